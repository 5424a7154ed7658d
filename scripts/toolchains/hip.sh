#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds a HIP toolchain rootfs from Debian's archive, for the offline build check
# (plugins/converter/build_check, toolchain "rootfs"). Nothing is installed on the host: the
# toolchain lives in DIR and runs through bubblewrap.
#   6.4: Debian sid, HIP 6.4.3 on clang 21, plus the ROCm library headers sid carries
#   7.2: Debian sid + experimental, HIP 7.2.4 on clang 22, plus rocWMMA
# Usage: scripts/toolchains/hip.sh [6.4|7.2] DIR        (as root; needs debootstrap and bubblewrap)
# Idempotent: a DIR holding a finished rootfs (DIR/.r2r-toolchain) is left as it is, except that
# rocWMMA's internal/ headers are added when missing (add_rocwmma_headers below). Building goes
# to DIR.partial first and is renamed into place only when complete, so an interrupted run never
# leaves a DIR that looks finished. Environment: R2R_DEBIAN_MIRROR (default: the host's apt mirror).
set -euo pipefail

# shellcheck source=../lib/debian_mirror.sh
source "$(dirname "$0")/../lib/debian_mirror.sh"
# shellcheck source=../lib/rocwmma_headers.sh
source "$(dirname "$0")/../lib/rocwmma_headers.sh"

# add_rocwmma_headers ROOT: Debian's librocwmma-dev lacks rocWMMA's internal/ headers, so wmma ports
# do not compile in the rootfs; this adds them from the verified source package of the same version
# (scripts/lib/rocwmma_headers.sh). Runs on a finished rootfs too, so one built before this step (CI's
# cached one) gets them on the next run; a rootfs that has them is left as it is. Never fatal.
add_rocwmma_headers() {
  local root="$1"
  r2r_rocwmma_complete "$root" && return 0
  if ((EUID != 0)) || ! command -v bwrap >/dev/null; then
    echo "hip.sh: - rocWMMA internal headers: adding them needs root and bubblewrap" >&2
    return 0
  fi
  local src_mirror
  src_mirror="$(r2r_debian_mirror)"
  [[ -n "$src_mirror" ]] && r2r_rocwmma_headers "$root" "$src_mirror"
  return 0
}

version="${1:-}"
dir="${2:-}"
if [[ "$version" != "6.4" && "$version" != "7.2" ]] || [[ -z "$dir" ]]; then
  echo "usage: scripts/toolchains/hip.sh [6.4|7.2] DIR" >&2
  echo "  builds a HIP $version toolchain rootfs in DIR (Debian sid: 6.4.3, experimental: 7.2.4)" >&2
  exit 2
fi
if [[ -f "$dir/.r2r-toolchain" ]]; then
  echo "hip.sh: $dir already holds $(cat "$dir/.r2r-toolchain")"
  add_rocwmma_headers "$dir"
  exit 0
fi
for tool in debootstrap bwrap; do
  if ! command -v "$tool" >/dev/null; then
    echo "hip.sh: $tool not found; install it: apt-get install -y debootstrap bubblewrap" >&2
    exit 1
  fi
done
if ((EUID != 0)); then
  echo "hip.sh: debootstrap needs root; run as root (the CI machines are)" >&2
  exit 1
fi

mirror="$(r2r_debian_mirror)"
if [[ -z "$mirror" ]]; then
  echo "hip.sh: no Debian mirror found in the host's apt sources; set R2R_DEBIAN_MIRROR" >&2
  exit 1
fi

part="$dir.partial"
mkdir -p "$(dirname "$dir")"
start=$(date +%s)
# A finished debootstrap from an interrupted earlier run is reused; anything else starts over.
if [[ ! -f "$part/.r2r-debootstrap-done" ]]; then
  rm -rf "$part"
  echo "hip.sh: debootstrap sid from $mirror into $part"
  debootstrap --variant=minbase sid "$part" "$mirror" >"$part.log" 2>&1 || {
    echo "hip.sh: debootstrap failed; last lines of $part.log:" >&2
    tail -n 20 "$part.log" >&2
    exit 1
  }
  touch "$part/.r2r-debootstrap-done"
fi
echo "deb $mirror experimental main" >"$part/etc/apt/sources.list.d/experimental.list"
echo 'Acquire::Check-Valid-Until "false";' >"$part/etc/apt/apt.conf.d/99no-valid-until"

in_root=(bwrap --bind "$part" / --dev /dev --proc /proc --ro-bind /etc/resolv.conf /etc/resolv.conf
  --setenv PATH /usr/sbin:/usr/bin:/sbin:/bin --setenv DEBIAN_FRONTEND noninteractive)
# Library headers the build check can compile converted code against: the sid set for both
# versions; rocWMMA is only in experimental. Packages a suite lacks are skipped, not fatal.
base=(hipcc libamdhip64-dev)
libs=(libhipblas-dev libhipfft-dev libhiprand-dev librocrand-dev librocprim-dev libhipcub-dev
  librocthrust-dev libhipsparse-dev librocblas-dev libhipsolver-dev libroctx64-dev librocwmma-dev
  libhipblaslt-dev)
apt_flags=(-y -qq --no-install-recommends)
[[ "$version" == "7.2" ]] && apt_flags+=(-t experimental)
"${in_root[@]}" apt-get update -qq >>"$part.log" 2>&1
"${in_root[@]}" apt-get install "${apt_flags[@]}" "${base[@]}" >>"$part.log" 2>&1 || {
  echo "hip.sh: installing ${base[*]} failed; last lines of $part.log:" >&2
  tail -n 20 "$part.log" >&2
  exit 1
}
for pkg in "${libs[@]}"; do
  if "${in_root[@]}" apt-get install "${apt_flags[@]}" "$pkg" >>"$part.log" 2>&1; then
    echo "hip.sh: + $pkg"
  else
    echo "hip.sh: - $pkg (not available in this suite; skipped)"
  fi
done
"${in_root[@]}" apt-get clean >>"$part.log" 2>&1 || true
add_rocwmma_headers "$part"
# The rootfs only compiles (hipcc -c), never links or runs: the libraries' device code objects
# (rocBLAS/Tensile and hipBLASLt kernels, rocSPARSE, rocSOLVER, rocRAND: about 7 GB) are removed, their
# headers stay.
for lib in rocblas rocsparse rocsolver rocrand hipblaslt; do
  rm -rf "$part/usr/lib/x86_64-linux-gnu/$lib" "$part/usr/lib/x86_64-linux-gnu/lib$lib.so."*
done
rm -rf "$part/var/lib/apt/lists/"* "$part/.r2r-debootstrap-done" || true
# Mount points of the build check's bubblewrap binds (plugins/converter/build_check/rootfs_jail.hpp).
mkdir -p "$part/r2r/src" "$part/r2r/scratch"

hip_version="$("${in_root[@]}" hipcc --version 2>/dev/null | sed -nE 's/^HIP version: *([0-9.]+).*/\1/p' | head -n1)"
if [[ -z "$hip_version" ]]; then
  echo "hip.sh: hipcc inside the rootfs does not report a HIP version; see $part.log" >&2
  exit 1
fi
case "$hip_version" in
  "$version".*) ;;
  *)
    echo "hip.sh: asked for HIP $version, the archive gave HIP $hip_version" >&2
    exit 1
    ;;
esac
echo "HIP $hip_version" >"$part/.r2r-toolchain"
rm -rf "$dir"
mv "$part" "$dir"
mv "$part.log" "$dir.log"
end=$(date +%s)
echo "hip.sh: HIP $hip_version in $dir ($(du -sh "$dir" | cut -f1), $((end - start)) s)"
