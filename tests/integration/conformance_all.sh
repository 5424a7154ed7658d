#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs r2r-plugin-conformance on every plugin library in DIR with its example config. A plugin
# whose example config reaches no engine, server, tool or service is reported SKIPPED with its
# reason (listed at the end), never as passed; conformance_services_test exercises those against
# real loopback dependencies with --require-available.
set -euo pipefail
runner=${1:?usage: conformance_all.sh RUNNER PLUGIN_DIR}
dir=${2:?usage: conformance_all.sh RUNNER PLUGIN_DIR}
shopt -s nullglob
libs=("$dir"/libr2r-*.so)
if ((${#libs[@]} == 0)); then echo "no plugins in $dir" >&2; exit 1; fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
skipped=()
status=0
for lib in "${libs[@]}"; do
  echo "== $lib"
  if ! "$runner" --plugin "$lib" >"$log" 2>&1; then
    cat "$log"
    status=1
    continue
  fi
  grep -E '^\[  (PASSED|SKIPPED) \] [0-9]+ test' "$log" || true
  if grep -q '^\[  SKIPPED \]' "$log"; then
    reason=$(grep -m1 -E 'unavailable here: ' "$log" | sed -E 's/.*unavailable here: //' || true)
    skipped+=("$(basename "$lib"): ${reason:-see its output}")
  fi
done
if ((${#skipped[@]} > 0)); then
  echo
  echo "SKIPPED (not exercised with the example config here):"
  printf '  %s\n' "${skipped[@]}"
fi
exit "$status"
