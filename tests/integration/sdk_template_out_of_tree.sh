#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the SDK from BUILD_DIR into a temporary prefix, builds TEMPLATE_DIR out of tree against
# it, runs the template's ctest (the conformance runner), and checks the plugin's exports.
set -euo pipefail
build=${1:?usage: sdk_template_out_of_tree.sh BUILD_DIR TEMPLATE_DIR}
template=${2:?usage: sdk_template_out_of_tree.sh BUILD_DIR TEMPLATE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --component sdk --prefix "$work/prefix" >"$work/install.log"
test -f "$work/prefix/lib/cmake/r2r-sdk/r2r-sdkConfig.cmake"
test -f "$work/prefix/include/r2r/plugin_api.h"
test -x "$work/prefix/bin/r2r-plugin-conformance"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$template" -B "$work/build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" || exit 1
lib="$work/build/libr2r-guard-max_command_length.so"
test -f "$lib"
test -f "$work/build/libr2r-guard-max_command_length.plugin.json"
exports=$(nm -D --defined-only "$lib" | awk '{print $NF}')
if [[ "$exports" != "r2r_plugin_entry_v1" ]]; then
  echo "template plugin exports more than the entry: $exports" >&2
  exit 1
fi
ctest --test-dir "$work/build" --output-on-failure
echo "sdk template: built out of tree and passed conformance"
