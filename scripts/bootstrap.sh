#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs every Debian 12 package repo2rocm needs to build and test. Idempotent: packages already
# present are skipped, and `apt-get update` runs only when something is missing.
# Usage: scripts/bootstrap.sh            (as root, or with sudo available)
set -euo pipefail

packages=(
  # toolchain
  build-essential g++ cmake ninja-build ccache pkg-config git clang-format binutils
  # the fuzz preset: clang 14 with its ASan/UBSan runtimes and libFuzzer (libclang_rt.fuzzer in
  # libclang-rt-14-dev), which build the fuzz targets of tests/fuzz
  clang libclang-rt-14-dev
  # core libraries (docs/dependencies.md says which part of the project uses which)
  libboost-dev libboost-program-options-dev libboost-filesystem-dev
  nlohmann-json3-dev libvalijson-dev libspdlog-dev libfmt-dev libexpected-dev
  # planning (`repo2rocm plan`): git intake, TOML and YAML dependency files
  libgit2-dev libtomlplusplus-dev libyaml-cpp-dev
  # sandboxes (plugins/sandbox): Engine API client, tar archives, engines the tests start
  libcurl4-openssl-dev libarchive-dev docker.io busybox-static bubblewrap podman runc
  # llm backends: loopback HTTP servers of the tests (libcurl is listed above)
  libcpp-httplib-dev
  # tests
  libgtest-dev libgmock-dev googletest
  # CUDA->HIP conversion: the offline build check and its tests compile with hipcc (HIP 5.2.3);
  # hipRAND/rocRAND let the cuRAND corpus program compile; python3 runs the mapping generator check
  hipcc libamdhip64-dev rocm-device-libs libhiprand-dev librocrand-dev python3
  # the optional paper (`--paper`, core/src/paper): PDF text and layout through poppler's C++ API;
  # the tests write their PDFs with cairo (DejaVu fonts) and encrypt one with qpdf
  libpoppler-cpp-dev libcairo2-dev fonts-dejavu-core qpdf
  # the build check's current HIP (6.4/7.2): scripts/toolchains/hip.sh debootstraps a Debian sid
  # rootfs (the ctest fixture hip_rootfs_setup builds it once per machine); bubblewrap runs it
  debootstrap
  # causal memory of the execution loop (core/src/memory)
  libsqlite3-dev
  # audit bundle: SHA-256 of the manifest (libcrypto); report.html rendered headless in its test
  libssl-dev chromium
  # batch (r2r.scheduler.slurm): the Slurm tests start slurmctld + slurmd with munge themselves
  slurm-wlm munge
  # sandbox network policy tests: bubblewrap installs from the test's package index with the host's
  # pip (the docker/podman tests use scripts/test-images/debian-pip.sh, which needs debootstrap)
  python3-pip
  # image pulls (r2r.sandbox.docker): the pull test pushes to and pulls from a registry it starts
  docker-registry
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "bootstrap: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo_cmd=()
if ((EUID != 0)); then
  if command -v sudo >/dev/null; then sudo_cmd=(sudo); else
    echo "bootstrap: need root to install: ${missing[*]}" >&2
    echo "bootstrap: run this script as root, or install sudo" >&2
    exit 1
  fi
fi

echo "bootstrap: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "bootstrap: done"
