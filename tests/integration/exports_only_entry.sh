#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every plugin library in DIR exports exactly one defined dynamic symbol: r2r_plugin_entry_v1.
set -euo pipefail
dir=${1:?usage: exports_only_entry.sh PLUGIN_DIR}
shopt -s nullglob
libs=("$dir"/libr2r-*.so)
if ((${#libs[@]} == 0)); then echo "no plugins in $dir" >&2; exit 1; fi
status=0
for lib in "${libs[@]}"; do
  symbols=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u)
  if [[ "$symbols" != "r2r_plugin_entry_v1" ]]; then
    echo "FAIL $lib exports:" >&2
    echo "$symbols" | sed 's/^/  /' >&2
    status=1
  else
    echo "ok   $lib"
  fi
done
exit $status
