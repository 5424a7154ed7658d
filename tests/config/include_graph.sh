#!/bin/sh
# SPDX-License-Identifier: MIT
# The include graph between the core and the plugins. Fails when a file under core/ includes a
# header of plugins/, guards/ or verifiers/ (by a path into them, or by the bare name of a header
# only they have), or when a plugin includes a core-private header (a path into core/src, or the
# bare name of a header only core/src has). Code both sides need lives in support/ or the SDK.
# usage: include_graph.sh SOURCE_DIR
set -u
src=$1
fails=$(mktemp)
trap 'rm -f "$fails"' EXIT

headers_of() { find "$@" \( -name '*.hpp' -o -name '*.h' \) | sed 's|.*/||' | sort -u; }
plugin_only=$(headers_of "$src/plugins" "$src/guards" "$src/verifiers" | grep -vxF "$(headers_of "$src/core" "$src/support" "$src/sdk" "$src/plugin_api")")
core_private=$(headers_of "$src/core/src" | grep -vxF "$(headers_of "$src/plugins" "$src/guards" "$src/verifiers" "$src/support" "$src/sdk" "$src/plugin_api" "$src/core/include")")

# check FILES_ROOTS... -- FORBIDDEN_PATH_REGEX FORBIDDEN_NAMES WHAT
check() {
  regex=$1 names=$2 what=$3
  shift 3
  find "$@" \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.c' \) | while IFS= read -r f; do
    grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$f" | while IFS= read -r line; do
      inc=$(printf '%s' "$line" | sed -E 's/.*#[[:space:]]*include[[:space:]]*[<"]([^">]+)[">].*/\1/')
      if printf '%s' "$inc" | grep -qE "$regex" || printf '%s\n' "$names" | grep -qxF "${inc##*/}"; then
        echo "FAIL: ${f#"$src"/}:${line%%:*} includes $inc, $what"
        echo "$f" >>"$fails"
      fi
    done
  done
}
check '(^|/)(plugins|guards|verifiers)/' "$plugin_only" "a plugin's header (move the shared code to support/ or the SDK)" "$src/core"
check '(^|/)core/src/' "$core_private" "a core-private header (plugins use the SDK and support/ only)" \
  "$src/plugins" "$src/guards" "$src/verifiers"
if [ -s "$fails" ]; then exit 1; fi
echo "ok: no include from core/ into plugins/, guards/, verifiers/ or back"
