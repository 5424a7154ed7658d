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
# The build check's HIP 6.4 toolchain rootfs (the convert tests' fixture hip_rootfs_setup builds it
# when missing; about 10 minutes of downloads once per machine): built here beside the default
# build so the suite does not wait for it; hip.sh leaves a finished rootfs as it is.
hip_rootfs="${HOME:-/root}/.local/state/repo2rocm/toolchains/hip-6.4"
mkdir -p build
scripts/toolchains/hip.sh 6.4 "$hip_rootfs" >build/hip-rootfs.log 2>&1 &
rootfs_job=$!
# The sandbox network tests' image (Debian + python3-pip; the ctest fixture pip_rootfs_setup builds
# it when absent): a few minutes of debootstrap, mostly waiting on the mirror, so it runs here too.
pip_rootfs="${HOME:-/root}/.local/state/repo2rocm/test-images/debian-pip"
scripts/test-images/debian-pip.sh "$pip_rootfs" >build/pip-rootfs.log 2>&1 &
pip_rootfs_job=$!
stamp "build default (the HIP rootfs builds beside it: build/hip-rootfs.log)"
scripts/build.sh default
if ! wait "$rootfs_job"; then
  echo "check: building the HIP 6.4 rootfs failed; the end of build/hip-rootfs.log:" >&2
  tail -n 30 build/hip-rootfs.log >&2
  exit 1
fi
stamp "HIP rootfs ready"
if ! wait "$pip_rootfs_job"; then
  echo "check: building the sandbox network tests' rootfs failed; the end of build/pip-rootfs.log:" >&2
  tail -n 30 build/pip-rootfs.log >&2
  exit 1
fi
stamp "pip test rootfs ready"
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
  # No re-runs: a failure fails the check (docs/fuzzing.md: the LeakSanitizer tracer crash and its cause).
  ctest --preset asan -L "$sanitizer_labels"
  stamp "fuzz smoke"
  ctest --preset fuzz
fi
stamp "all tests passed"
