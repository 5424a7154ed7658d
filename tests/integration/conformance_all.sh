#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs r2r-plugin-conformance on every plugin library in DIR.
set -euo pipefail
runner=${1:?usage: conformance_all.sh RUNNER PLUGIN_DIR}
dir=${2:?usage: conformance_all.sh RUNNER PLUGIN_DIR}
shopt -s nullglob
libs=("$dir"/libr2r-*.so)
if ((${#libs[@]} == 0)); then echo "no plugins in $dir" >&2; exit 1; fi
for lib in "${libs[@]}"; do
  echo "== $lib"
  "$runner" --plugin "$lib" --gtest_brief=1
done
