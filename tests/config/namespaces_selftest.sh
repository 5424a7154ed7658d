#!/bin/sh
# SPDX-License-Identifier: MIT
# namespaces.py catches each kind of wrong namespace in a small fake tree and passes a clean one
# (including the look-alikes a careless scan would flag: comments, strings, raw strings, aliases,
# anonymous namespaces, a type named namespace_row).
# usage: namespaces_selftest.sh NAMESPACES_PY
set -u
check=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail=0
tree() {  # a clean tree
  rm -rf "$root/t" && mkdir -p "$root/t/core/src/run" "$root/t/support/text" "$root/t/plugins/converter/hipify" \
    "$root/t/guards/g" "$root/t/verifiers/v" "$root/t/sdk/include"
  cat >"$root/t/plugins/converter/hipify/ok.cpp" <<'CPP'
#include <string>
#define OPEN_NS namespace evil {
namespace fs = std::filesystem;  // namespace evil {
/* namespace evil { */
namespace {
namespace helpers {  // inside an anonymous namespace: internal linkage
}  // namespace helpers
}  // namespace
namespace r2r::plugins::converter {
struct namespace_row {
  const char* text = "namespace evil {";
  char brace = '{';
};
const char* json = R"x({"a": "namespace evil { }"})x";
namespace detail {
}  // namespace detail
}  // namespace r2r::plugins::converter
extern "C" {
int r2r_plugin_entry() { return 0; }
}
CPP
  printf 'namespace r2r::plugins::guard {\n}\n' >"$root/t/guards/g/ok.cpp"
  printf 'namespace r2r::plugins::verifier::mode2 {\n}\n' >"$root/t/verifiers/v/ok.hpp"
  printf 'namespace r2r::run {\nnamespace detail {\n}\n}\n' >"$root/t/core/src/run/ok.cpp"
  printf 'namespace r2r::text {\n}\n' >"$root/t/support/text/ok.hpp"
  printf 'namespace r2r::sdk {\n}\n' >"$root/t/sdk/include/sdk.hpp"  # the SDK keeps its own
}
expect() {  # expect RC WHAT
  python3 "$check" "$root/t" >"$root/out" 2>&1
  rc=$?
  if [ "$rc" -ne "$1" ]; then echo "FAIL: $2: exit $rc, expected $1"; cat "$root/out"; fail=1; else echo "ok: $2"; fi
}
tree; expect 0 "a clean tree passes"
tree; printf 'namespace r2r::verify {\n}\n' >"$root/t/verifiers/v/bad.cpp"; expect 1 "a verifier in r2r::verify"
tree; printf 'namespace r2r::sandbox_docker {\n}\n' >"$root/t/plugins/converter/hipify/bad.hpp"
expect 1 "a plugin in r2r::sandbox_docker"
tree; printf 'namespace r2r {\nnamespace guards {\n}\n}\n' >"$root/t/guards/g/bad.cpp"; expect 1 "the nested old form"
tree; printf 'namespace r2r::plugins::verifier {\n}\n' >"$root/t/guards/g/bad.cpp"; expect 1 "a guard in another kind"
tree; printf 'namespace util {\n}\n' >"$root/t/support/text/bad.cpp"; expect 1 "support outside r2r::"
tree; printf 'namespace r2r::plugins::llm {\n}\n' >"$root/t/core/src/run/bad.cpp"; expect 1 "core inside r2r::plugins"
tree; printf 'namespace r2r::plugins::converter {\n}\nnamespace hipify {\n}\n' >"$root/t/plugins/converter/hipify/bad.cpp"
expect 1 "a second top-level namespace after a good one"
tree; python3 "$check" "$root/t" 100 >"$root/out" 2>&1 && { echo "FAIL: the floor on declarations seen"; fail=1; }
exit $fail
