#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds a HIP toolchain rootfs from Debian's archive, for the offline build check
# (plugins/converter/build_check, toolchain "rootfs"). Nothing is installed on the host: the
# toolchain lives in DIR and runs through bubblewrap.
#   6.4: Debian sid, HIP 6.4.3 on clang 21, plus the ROCm library headers sid carries
#   7.2: Debian sid + experimental, HIP 7.2.4 on clang 22, plus rocWMMA
#   --with-torch: also sid's CPU PyTorch (python3-torch, libtorch-dev, pybind11-dev) and the ROCm-side
#     headers (ATen/hip, c10/hip) made from its CUDA headers by PyTorch's own hipify, as a ROCm build
#     of PyTorch makes them (torch_hip_headers.py); the build check then compiles
#     torch.utils.cpp_extension sources. DIR/.r2r-torch names the torch version.
#   --from BASE: start from a copy of the finished rootfs BASE (no debootstrap); BASE is not changed.
# Usage: scripts/toolchains/hip.sh [6.4|7.2] DIR [--with-torch] [--from BASE]
#        (as root; needs debootstrap and bubblewrap)
# Idempotent: a DIR holding a finished rootfs (DIR/.r2r-toolchain, and DIR/.r2r-torch with
# --with-torch) is left as it is, except that rocWMMA's internal/ headers are added when missing
# (add_rocwmma_headers below). Building goes to DIR.partial first and is renamed into place only
# when complete, so an interrupted run never leaves a DIR that looks finished.
# Environment: R2R_DEBIAN_MIRROR (default: the host's apt mirror).
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

usage() {
  echo "usage: scripts/toolchains/hip.sh [6.4|7.2] DIR [--with-torch] [--from BASE]" >&2
  echo "  builds a HIP toolchain rootfs in DIR (Debian sid: 6.4.3, experimental: 7.2.4)" >&2
  exit 2
}
version="${1:-}"
dir="${2:-}"
with_torch=0
from=""
shift 2 || usage
while (($#)); do
  case "$1" in
    --with-torch) with_torch=1 ;;
    --from)
      [[ $# -ge 2 ]] || usage
      from="$2"
      shift
      ;;
    *) usage ;;
  esac
  shift
done
if [[ "$version" != "6.4" && "$version" != "7.2" ]] || [[ -z "$dir" ]]; then
  usage
fi
if [[ -f "$dir/.r2r-toolchain" ]] && { ((with_torch == 0)) || [[ -f "$dir/.r2r-torch" ]]; }; then
  echo "hip.sh: $dir already holds $(cat "$dir/.r2r-toolchain")$(sed 's/^/ + /' "$dir/.r2r-torch" 2>/dev/null)"
  add_rocwmma_headers "$dir"
  exit 0
fi
if [[ -n "$from" && ! -f "$from/.r2r-toolchain" ]]; then
  echo "hip.sh: --from $from holds no finished rootfs (no $from/.r2r-toolchain); build it first: scripts/toolchains/hip.sh $version $from" >&2
  exit 1
fi
if [[ -n "$from" ]] && ! grep -q "^HIP $version\." "$from/.r2r-toolchain"; then
  echo "hip.sh: --from $from holds $(cat "$from/.r2r-toolchain"), not HIP $version" >&2
  exit 1
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
in_root=(bwrap --bind "$part" / --dev /dev --proc /proc --ro-bind /etc/resolv.conf /etc/resolv.conf
  --setenv PATH /usr/sbin:/usr/bin:/sbin:/bin --setenv DEBIAN_FRONTEND noninteractive)
apt_flags=(-y -qq --no-install-recommends)
[[ "$version" == "7.2" ]] && apt_flags+=(-t experimental)

if [[ -n "$from" ]]; then
  rm -rf "$part"
  echo "hip.sh: copying $from into $part"
  cp -a "$from" "$part"
  rm -f "$part/.r2r-toolchain" "$part/.r2r-torch"
  : >"$part.log"
  "${in_root[@]}" apt-get update -qq >>"$part.log" 2>&1
else
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

  # Library headers the build check can compile converted code against: the sid set for both
  # versions; rocWMMA is only in experimental. Packages a suite lacks are skipped, not fatal.
  base=(hipcc libamdhip64-dev)
  libs=(libhipblas-dev libhipfft-dev libhiprand-dev librocrand-dev librocprim-dev libhipcub-dev
    librocthrust-dev libhipsparse-dev librocblas-dev libhipsolver-dev libroctx64-dev librocwmma-dev
    libhipblaslt-dev)
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
  # The rootfs only compiles (hipcc -c), never links or runs: the libraries' device code objects
  # (rocBLAS/Tensile and hipBLASLt kernels, rocSPARSE, rocSOLVER, rocRAND: about 7 GB) are removed, their
  # headers stay.
  for lib in rocblas rocsparse rocsolver rocrand hipblaslt; do
    rm -rf "$part/usr/lib/x86_64-linux-gnu/$lib" "$part/usr/lib/x86_64-linux-gnu/lib$lib.so."*
  done
fi

if ((with_torch)); then
  # sid's CPU PyTorch: its CUDA headers, its hipify and torch/extension.h with pybind11 and Python.h.
  torch_pkgs=(python3-torch libtorch-dev pybind11-dev python3-dev)
  "${in_root[@]}" apt-get install -y -qq --no-install-recommends "${torch_pkgs[@]}" >>"$part.log" 2>&1 || {
    echo "hip.sh: installing ${torch_pkgs[*]} failed; last lines of $part.log:" >&2
    tail -n 20 "$part.log" >&2
    exit 1
  }
  # The ROCm-side headers, made where the build check looks for them (build_check/torch_extension.hpp).
  "${in_root[@]}" --ro-bind "$(realpath "$(dirname "$0")")/torch_hip_headers.py" /tmp/torch_hip_headers.py \
    python3 /tmp/torch_hip_headers.py /opt/r2r-torch-hip >>"$part.log" 2>&1 || {
    echo "hip.sh: making the ROCm PyTorch headers failed; last lines of $part.log:" >&2
    tail -n 20 "$part.log" >&2
    exit 1
  }
  echo "PyTorch $(cat "$part/opt/r2r-torch-hip/torch_version.txt")" >"$part/.r2r-torch"
  echo "hip.sh: + $(cat "$part/.r2r-torch") with ATen/hip and c10/hip in /opt/r2r-torch-hip"
fi
"${in_root[@]}" apt-get clean >>"$part.log" 2>&1 || true
add_rocwmma_headers "$part"
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
