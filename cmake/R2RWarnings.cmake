# SPDX-License-Identifier: MIT
# Warnings as errors for every target of this project. Third-party headers come from system include
# directories, so they do not trip these. -Wshadow=local is gcc's; clang has no option with the same
# scope (its -Wshadow also flags locals that shadow namespace-scope names), so the gcc build (the
# default preset) enforces it and the clang build (the asan preset) does not. (The order of the
# flags is kept as it was, so that ccache entries of earlier gcc builds still hit.)
add_compile_options(-Wall -Wextra -Werror -Wno-missing-field-initializers
                    "$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wshadow=local>"
                    "$<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor>")
