#!/bin/sh
# SPDX-License-Identifier: MIT
# include_graph.sh catches each kind of bad include in a small fake tree and passes a clean one.
# usage: include_graph_selftest.sh INCLUDE_GRAPH_SH
set -u
check=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail=0
tree() {  # a clean tree: core uses its own and support headers, a plugin uses the SDK
  rm -rf "$root/t" && mkdir -p "$root/t/core/src/executor" "$root/t/core/include/r2r/core" "$root/t/support/a/include" \
    "$root/t/plugins/sandbox/common" "$root/t/guards/g" "$root/t/verifiers/v" "$root/t/sdk/include" "$root/t/plugin_api"
  echo '#pragma once' >"$root/t/core/src/executor/store.hpp"
  echo '#pragma once' >"$root/t/core/include/r2r/core/error.hpp"
  echo '#pragma once' >"$root/t/support/a/include/archive.hpp"
  echo '#pragma once' >"$root/t/plugins/sandbox/common/snapshot.hpp"
  printf '#include "store.hpp"\n#include <r2r/core/error.hpp>\n#include <archive.hpp>\n' >"$root/t/core/src/executor/store.cpp"
  printf '#include "snapshot.hpp"\n#include <archive.hpp>\n' >"$root/t/plugins/sandbox/common/snapshot.cpp"
}
expect() {  # expect RC WHAT
  sh "$check" "$root/t" >"$root/out" 2>&1
  rc=$?
  if [ "$rc" -ne "$1" ]; then echo "FAIL: $2: exit $rc, expected $1"; cat "$root/out"; fail=1; else echo "ok: $2"; fi
}
tree; expect 0 "a clean tree passes"
tree; echo '#include "snapshot.hpp"' >>"$root/t/core/src/executor/store.cpp"; expect 1 "core including a plugin header by name"
tree; echo '#include "../../../plugins/sandbox/common/snapshot.hpp"' >>"$root/t/core/src/executor/store.cpp"
expect 1 "core including a plugin header by path"
tree; echo '#include <guards/g/rules.hpp>' >>"$root/t/core/include/r2r/core/error.hpp"; expect 1 "a core public header including a guard's"
tree; echo '#include "store.hpp"' >>"$root/t/plugins/sandbox/common/snapshot.cpp"; expect 1 "a plugin including a core-private header by name"
tree; echo '#include "../../../core/src/executor/store.hpp"' >>"$root/t/verifiers/v/x.cpp"; expect 1 "a verifier including core/src by path"
exit $fail
