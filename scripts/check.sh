#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite on a fresh machine, once, under AddressSanitizer + UndefinedBehaviorSanitizer:
#   1. install dependencies (scripts/bootstrap.sh);
#   2. build what a user runs with gcc, the default preset's r2r_product target (-Wall -Wextra
#      -Werror; exactly what the quick start builds);
#   3. build everything in the asan preset (clang, ASan + UBSan on every target, libFuzzer coverage:
#      every test, fixture, tool and fuzz target);
#   4. lint (format: every file; clang-tidy: the files of the last commit);
#   5. run every test of every label in the asan build, the fuzz smoke included (label fuzz: each fuzz
#      target for 20 s from its seed corpus), with no re-runs: one failure fails the check.
# Usage: scripts/check.sh [--no-asan]
#   --no-asan: the default build (everything) and its whole suite instead, without sanitizers.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp() { printf 'check: %s UTC  %s\n' "$(date -u +%H:%M:%S)" "$*"; }
no_asan=false
case "${1:-}" in
  "") ;;
  --no-asan) no_asan=true ;;
  *) echo "check: unknown argument '$1' (expected nothing or --no-asan)" >&2; exit 2 ;;
esac

stamp "bootstrap"
scripts/bootstrap.sh
# The build check's HIP 6.4 toolchain rootfs and its copy with sid's PyTorch (the convert tests'
# fixtures hip_rootfs_setup and hip_torch_rootfs_setup build them when missing; about 10 minutes of
# downloads, then 2-3 more, once per machine) and the sandbox network tests' Debian + python3-pip
# image (fixture pip_rootfs_setup; a few minutes of debootstrap, mostly waiting on the mirror): all
# are built beside the compiles so the suite does not wait for them; each script leaves a finished
# rootfs as it is.
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
wait_for_rootfs() {
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
}

if $no_asan; then
  stamp "build default (everything)"
  scripts/build.sh default
  wait_for_rootfs
  stamp "lint (format: every file; tidy: files changed by the last commit)"
  scripts/lint.sh all HEAD~1
  stamp "test default (every label)"
  ctest --preset default
  stamp "all tests passed"
  exit 0
fi

stamp "build default r2r_product (gcc: what a user runs)"
scripts/build.sh default r2r_product
stamp "build asan (clang, ASan + UBSan: everything)"
scripts/build.sh asan
wait_for_rootfs
stamp "lint (format: every file; tidy: files changed by the last commit)"
scripts/lint.sh all HEAD~1
stamp "test asan (every label, the fuzz smoke included; no re-runs)"
ctest --preset asan
stamp "all tests passed"
