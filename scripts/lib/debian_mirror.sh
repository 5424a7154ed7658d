# SPDX-License-Identifier: MIT
# Sourced by the scripts that debootstrap a rootfs (scripts/toolchains/hip.sh,
# scripts/test-images/debian-pip.sh). r2r_debian_mirror prints the Debian mirror to use:
# $R2R_DEBIAN_MIRROR, else the first http(s) Debian URI of the host's apt sources (deb822 files,
# then sources.list); nothing when there is none. Safe under `set -euo pipefail` (no match is not an
# error here; the caller decides).
r2r_debian_mirror() {
  local mirror="${R2R_DEBIAN_MIRROR:-}"
  if [[ -z "$mirror" ]]; then
    mirror="$(grep -hoE '^URIs: *http[^ ]*debian/?$' /etc/apt/sources.list.d/*.sources 2>/dev/null |
      head -n1 | sed -E 's/^URIs: *//' || true)"
  fi
  if [[ -z "$mirror" ]]; then
    mirror="$(grep -hoE '^deb +http[^ ]*debian/? ' /etc/apt/sources.list 2>/dev/null | head -n1 | awk '{print $2}' || true)"
  fi
  printf '%s' "$mirror"
}
