#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite on a fresh machine: install dependencies; build the default preset (gcc,
# RelWithDebInfo with line tables: what the quick start uses) and run every test in it; then, in the
# asan preset (clang, ASan + UBSan on every target, libFuzzer coverage), build every plugin, tool and
# fuzz target plus the tests of the sanitizer labels, run those tests under the sanitizers and run
# the fuzz smoke (label fuzz: each target for 20 s from its seed corpus, -seed=1).
# Usage: scripts/check.sh [--no-asan]     (--no-asan: the default build and suite only)
set -euo pipefail
cd "$(dirname "$0")/.."
# The labels whose tests run under the sanitizers in CI (the whole suite under them: by hand, see
# docs/fuzzing.md).
sanitizer_labels='loader|config|cli|plugins|llm|support'
stamp() { printf 'check: %s UTC  %s\n' "$(date -u +%H:%M:%S)" "$*"; }

stamp "bootstrap"
scripts/bootstrap.sh
stamp "build default"
scripts/build.sh default
stamp "lint (format: every file; tidy: files changed by the last commit)"
scripts/lint.sh all HEAD~1
stamp "test default"
ctest --preset default
if [[ "${1:-}" != "--no-asan" ]]; then
  stamp "build asan (plugins, tools, fuzz targets, tests of: $sanitizer_labels)"
  cmake --preset asan >/dev/null
  mapfile -t targets < <(scripts/ci/sanitizer_targets.py --reference build/default --build build/asan \
                           --labels "$sanitizer_labels")
  cmake --build --preset asan --target "${targets[@]}"
  stamp "test asan"
  # A test is re-run once only when it failed: LeakSanitizer's tracer occasionally crashes at exit
  # on a loaded machine ("Tracer caught signal 11"); a real memory error fails both runs.
  ctest --preset asan -L "$sanitizer_labels" --repeat until-pass:2
  stamp "fuzz smoke"
  ctest --preset fuzz
fi
stamp "all tests passed"
