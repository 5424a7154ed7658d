#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite on a fresh machine, each test run once: install dependencies; build the
# default preset (gcc, RelWithDebInfo with line tables: what the quick start uses) for the product
# and the tests of the smoke labels, lint, and run those tests there; then build everything in the
# asan preset (clang, ASan + UBSan on every target, libFuzzer coverage) and run the whole suite under
# the sanitizers, every label, with no re-runs; then the fuzz smoke (label fuzz: each target for
# 20 s from its seed corpus, -seed=1). Why the suite runs under the sanitizers and not twice:
# docs/fuzzing.md ("The sanitizers in CI").
# Usage: scripts/check.sh [--no-asan]     (--no-asan: the whole suite in the default build instead,
#                                          for a machine without clang's sanitizer runtimes)
set -euo pipefail
cd "$(dirname "$0")/.."
# The default build's smoke: the shipped gcc build's plugins loaded, pipelines validated and every
# CLI command run (labels loader, config, cli); the targets their tests need.
smoke_labels='loader|config|cli'
smoke_targets=(r2r_product loader_test config_test cli_test)
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
if [[ "${1:-}" == "--no-asan" ]]; then
  stamp "build default, everything (the rootfs images build beside it: build/hip-rootfs.log, build/pip-rootfs.log)"
  scripts/build.sh default
else
  stamp "build default: ${smoke_targets[*]} (the rootfs images build beside it: build/hip-rootfs.log, build/pip-rootfs.log)"
  scripts/build.sh default "${smoke_targets[@]}"
fi
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
if [[ "${1:-}" == "--no-asan" ]]; then
  stamp "test default (the whole suite)"
  ctest --preset default
  stamp "all tests passed"
  exit 0
fi
stamp "test default (smoke: $smoke_labels)"
ctest --preset default -L "$smoke_labels"
stamp "build asan (everything)"
scripts/build.sh asan
stamp "test asan (the whole suite but the fuzz smoke)"
# No re-runs: a failure fails the check (docs/fuzzing.md: the LeakSanitizer tracer crash and its
# cause; tests/sanitizers/lsan.supp: leaks inside third-party libraries).
ctest --preset asan -LE '^fuzz$'
stamp "fuzz smoke"
ctest --preset fuzz
stamp "all tests passed"
