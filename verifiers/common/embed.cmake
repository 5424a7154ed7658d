# SPDX-License-Identifier: MIT
# Writes a header holding the evidence-collection scripts as raw string literals.
# Usage: cmake -DOUT=<header> -DCOLLECT=<collect.sh> -DPROBE=<sitecustomize.py> -P embed.cmake
file(READ ${COLLECT} collect)
file(READ ${PROBE} probe)
file(WRITE ${OUT} "// Generated from verifiers/common/scripts by embed.cmake; do not edit.\n#pragma once\n"
                  "namespace r2r::verify::embedded {\n"
                  "inline constexpr const char* collect_sh = R\"R2R_EMBED(${collect})R2R_EMBED\";\n"
                  "inline constexpr const char* sitecustomize_py = R\"R2R_EMBED(${probe})R2R_EMBED\";\n}\n")
