#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the rootfs of the sandbox network tests' image: Debian bookworm (minbase) with Debian's
# python3-pip, so a sandbox can `pip install` from the test's own package index and the index
# server itself can run `python3 -m http.server`. The tests `docker import` a tar of DIR.
# Usage: scripts/test-images/debian-pip.sh DIR        (as root; needs debootstrap)
# Idempotent: a DIR holding a finished rootfs (DIR/.r2r-test-image) is left as it is. Building goes
# to DIR.partial first and is renamed into place only when complete. Environment:
# R2R_DEBIAN_MIRROR (default: the host's apt mirror).
set -euo pipefail

dir="${1:-}"
if [[ -z "$dir" ]]; then
  echo "usage: scripts/test-images/debian-pip.sh DIR" >&2
  echo "  builds a Debian bookworm rootfs with python3-pip in DIR (about a minute, ~250 MB)" >&2
  exit 2
fi
if [[ -f "$dir/.r2r-test-image" ]]; then
  echo "debian-pip.sh: $dir already holds $(cat "$dir/.r2r-test-image")"
  exit 0
fi
if ! command -v debootstrap >/dev/null; then
  echo "debian-pip.sh: debootstrap not found; install it: apt-get install -y debootstrap" >&2
  exit 1
fi
if ((EUID != 0)); then
  echo "debian-pip.sh: debootstrap needs root; run as root (the CI machines are)" >&2
  exit 1
fi
# shellcheck source=../lib/debian_mirror.sh
source "$(dirname "$0")/../lib/debian_mirror.sh"
mirror="$(r2r_debian_mirror)"
if [[ -z "$mirror" ]]; then
  echo "debian-pip.sh: no Debian mirror found in the host's apt sources; set R2R_DEBIAN_MIRROR" >&2
  exit 1
fi

part="$dir.partial"
mkdir -p "$(dirname "$dir")"
start=$(date +%s)
rm -rf "$part"
echo "debian-pip.sh: debootstrap bookworm (python3-pip) from $mirror into $part"
debootstrap --variant=minbase --include=python3-pip bookworm "$part" "$mirror" >"$part.log" 2>&1 || {
  echo "debian-pip.sh: debootstrap failed; last lines of $part.log:" >&2
  tail -n 20 "$part.log" >&2
  exit 1
}
rm -rf "$part/var/lib/apt/lists/"* "$part/var/cache/apt/archives/"*.deb
# pip refuses to install into Debian's system Python (PEP 668) unless told this is fine: in a
# throwaway sandbox it is.
rm -f "$part"/usr/lib/python3*/EXTERNALLY-MANAGED
mkdir -p "$part/workspace"
pip_version="$(chroot "$part" python3 -m pip --version | awk '{print $2}')"
[[ -n "$pip_version" ]] || {
  echo "debian-pip.sh: python3 -m pip does not run inside $part" >&2
  exit 1
}
echo "bookworm pip $pip_version" >"$part/.r2r-test-image"
rm -rf "$dir"
mv "$part" "$dir"
mv "$part.log" "$dir.log"
echo "debian-pip.sh: pip $pip_version in $dir ($(du -sh "$dir" | cut -f1), $(($(date +%s) - start)) s)"
