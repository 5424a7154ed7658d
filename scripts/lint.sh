#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The project's style checks.
#   format: every C/C++ source of the project is as clang-format (.clang-format) writes it.
#   tidy:   clang-tidy (.clang-tidy: identifier naming) on the C++ files changed since BASE (tests
#           excluded: GoogleTest names fixtures and suites in CamelCase), with
#           the compile commands of build/default (build it first).
# Usage: scripts/lint.sh [format|tidy|all] [BASE]      (BASE: a git revision, default HEAD~1)
# Exit status 1 when a check finds something (the files and the fix are printed), 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all} base=${2:-HEAD~1}

# Project sources: not third-party code, not the example repository (a CUDA project in its own
# style), not test data (inputs kept byte for byte).
project_sources() {
  git ls-files -- '*.c' '*.cc' '*.cpp' '*.h' '*.hpp' |
    grep -Ev '^(third_party|examples)/|^tests/(data|fuzz/corpus)/|/testdata/' || true
}

check_format() {
  local bad
  bad=$(project_sources | xargs -r clang-format --dry-run 2>&1 | grep -oE '^[^:]+:[0-9]+:[0-9]+: warning' |
        cut -d: -f1 | sort -u || true)
  if [[ -n "$bad" ]]; then
    echo "lint: these files are not formatted as .clang-format says:" >&2
    echo "$bad" | sed 's/^/  /' >&2
    echo "lint: fix with: clang-format -i $(echo $bad)" >&2
    return 1
  fi
  echo "lint: format: $(project_sources | wc -l) files formatted"
}

check_tidy() {
  if ! git rev-parse --verify -q "$base^{commit}" >/dev/null; then
    echo "lint: tidy: skipped, there is no revision '$base' to compare with (a shallow clone?); give BASE"
    return 0
  fi
  if [[ ! -f build/default/compile_commands.json ]]; then
    echo "lint: tidy needs build/default/compile_commands.json: run scripts/build.sh default first" >&2
    return 2
  fi
  local files
  # Tests are left out: GoogleTest names fixtures and suites in CamelCase (TEST(SuiteName, …)).
  files=$(git diff --name-only --diff-filter=AM "$base" -- '*.cpp' | grep -Ev '^(third_party|examples|tests)/|/test/' |
          while read -r f; do grep -q "\"file\": \"$PWD/$f\"" build/default/compile_commands.json && echo "$f"; done || true)
  if [[ -z "$files" ]]; then
    echo "lint: tidy: no compiled C++ file changed since $base"
    return 0
  fi
  echo "lint: tidy: $(echo "$files" | wc -l) files changed since $base"
  # The compile commands are gcc's; clang's constant evaluation needs the step limit that the clang
  # build gives mapping.cpp (plugins/converter/common/CMakeLists.txt) for the generated name table.
  echo "$files" | xargs -r -P2 -n4 clang-tidy -p build/default --quiet --extra-arg=-Wno-unknown-warning-option \
    --extra-arg=-fconstexpr-steps=33554432
}

case "$what" in
  format) check_format ;;
  tidy) check_tidy ;;
  all) check_format; check_tidy ;;
  *) echo "usage: scripts/lint.sh [format|tidy|all] [BASE]" >&2; exit 2 ;;
esac
