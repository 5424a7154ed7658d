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
# The labels whose tests run under the sanitizers in CI. The whole suite under them (`cmake --build
# --preset asan && ctest --preset asan`) takes about three times this check's length on 2 cores at
# the asan preset's -O0: docs/fuzzing.md has the numbers.
sanitizer_labels='loader|config|cli|plugins|llm|support|verify|paper'
stamp() { printf 'check: %s UTC  %s\n' "$(date -u +%H:%M:%S)" "$*"; }
case "${1:-}" in
  "" | --no-asan) ;;
  *) echo "check: unknown argument '$1' (expected nothing or --no-asan)" >&2; exit 2 ;;
esac

stamp "bootstrap"
scripts/bootstrap.sh
# The build check's HIP 6.4 toolchain rootfs and its copy with sid's PyTorch (the convert tests'
# fixtures hip_rootfs_setup and hip_torch_rootfs_setup build them when missing; about 10 minutes of
# downloads, then 2-3 more, once per machine) and the sandbox network tests' Debian + python3-pip
# image (fixture pip_rootfs_setup; a few minutes of debootstrap, mostly waiting on the mirror): all
# are built beside the default build so the suite does not wait for them; each script leaves a
# finished rootfs as it is.
hip_rootfs="${HOME:-/root}/.local/state/repo2rocm/toolchains/hip-6.4"
pip_rootfs="${HOME:-/root}/.local/state/repo2rocm/test-images/debian-pip"
mkdir -p build
{
  scripts/toolchains/hip.sh 6.4 "$hip_rootfs" &&
    scripts/toolchains/hip.sh 6.4 "$hip_rootfs-torch" --with-torch --from "$hip_rootfs"
} >build/hip-rootfs.log 2>&1 &
rootfs_job=$!
scripts/test-images/debian-pip.sh "$pip_rootfs" >build/pip-rootfs.log 2>&1 &
pip_rootfs_job=$!
stamp "build default (the rootfs images build beside it: build/hip-rootfs.log, build/pip-rootfs.log)"
scripts/build.sh default
if ! wait "$rootfs_job"; then
  echo "check: building the HIP 6.4 rootfs or its PyTorch copy failed; the end of build/hip-rootfs.log:" >&2
  tail -n 30 build/hip-rootfs.log >&2
  exit 1
fi
stamp "HIP rootfs and its PyTorch copy ready"
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
  # No re-runs: a failure fails the check (docs/fuzzing.md: the LeakSanitizer tracer crash and its
  # cause; tests/sanitizers/lsan.supp: leaks inside third-party libraries).
  ctest --preset asan -L "$sanitizer_labels"
  stamp "fuzz smoke"
  ctest --preset fuzz
fi
stamp "all tests passed"
