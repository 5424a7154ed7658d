#!/bin/sh
# SPDX-License-Identifier: MIT
# One id separator: every in-tree plugin id is r2r.<kind>.<name> with '-' (never '_') inside the
# name, in the plugin's CMake declaration and in every shipped pipeline. A file that breaks the
# rule is named with the id and the spelling to use. Test fixtures under tests/ are left out: some
# exist to be malformed.
# usage: plugin_ids.sh SOURCE_DIR
set -u
src=$1
bad=0
declared=$(grep -rnE '^[[:space:]]*ID[[:space:]]+[a-z0-9.-_]+' --include=CMakeLists.txt \
  "$src/guards" "$src/plugins" "$src/verifiers" | sed -E 's/^([^:]+:[0-9]+):[[:space:]]*ID[[:space:]]+([^[:space:]]+).*/\1 \2/')
used=$(grep -rnoE '"use"[[:space:]]*:[[:space:]]*"[^"]+"' "$src/configs/pipelines" |
  sed -E 's/^([^:]+:[0-9]+):.*"([^"]+)"$/\1 \2/')
report=$(printf '%s\n%s\n' "$declared" "$used" | while read -r where id; do
  [ -n "$where" ] || continue
  case "$id" in
    r2r.*.*) ;;
    *) echo "FAIL: ${where#"$src"/}: '$id' is not r2r.<kind>.<name>" ;;
  esac
  case "${id#r2r.*.}" in
    *_*) echo "FAIL: ${where#"$src"/}: '$id' uses '_' in its name; write $(printf '%s' "$id" | sed 's/_/-/g')" ;;
  esac
done)
if [ -n "$report" ]; then
  printf '%s\n' "$report"
  exit 1
fi
count=$(printf '%s\n%s\n' "$declared" "$used" | grep -c .)
[ "$count" -gt 20 ] || { echo "FAIL: found only $count ids; the scan no longer sees the declarations"; exit 1; }
echo "ok: $count plugin ids (declarations and pipeline uses) follow r2r.<kind>.<name-with-dashes>"
