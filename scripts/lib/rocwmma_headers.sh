# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by scripts/toolchains/hip.sh. Debian's librocwmma-dev (7.2.4-1~exp1) ships rocwmma.hpp
# without the internal/ headers it includes, so `#include <rocwmma/rocwmma.hpp>` does not compile
# in the rootfs ('internal/accessors.hpp' file not found). rocWMMA is header-only and Debian's source
# package of the same version holds the whole library/include/rocwmma tree: these functions add the
# missing headers from it. Safe under `set -euo pipefail`; every function returns non-zero on failure
# and leaves the rootfs as it was.

# r2r_rocwmma_complete ROOT: true when ROOT has no rocWMMA at all or a complete one (internal/
# present), so there is nothing to add.
r2r_rocwmma_complete() {
  local inc="$1/usr/include/rocwmma"
  [[ ! -f "$inc/rocwmma.hpp" || -f "$inc/internal/accessors.hpp" ]]
}

# r2r_rocwmma_install_from_dsc DSC ROOT: verifies the orig tarball named in DSC (same directory)
# against the DSC's Checksums-Sha256 and copies its library/include/rocwmma tree into
# ROOT/usr/include/rocwmma. Files the binary package installed are kept (no overwrite): the tarball
# only adds what the package left out. The DSC itself must come from a verified source (apt checks
# it against the signed Sources index).
r2r_rocwmma_install_from_dsc() {
  local dsc="$1" root="$2"
  local dir name sum
  dir="$(dirname "$dsc")"
  # The Checksums-Sha256 field: indented "SHA256 SIZE NAME" lines up to the next field.
  read -r sum name < <(awk '/^Checksums-Sha256:/{f=1; next} /^[^ ]/{f=0}
    f && $3 ~ /\.orig\.tar\.(gz|xz|bz2)$/ {print $1, $3; exit}' "$dsc") || true
  if [[ -z "${name:-}" ]]; then
    echo "rocwmma: $dsc names no .orig.tar.* under Checksums-Sha256; expected a Debian source package .dsc" >&2
    return 1
  fi
  if [[ ! -f "$dir/$name" ]]; then
    echo "rocwmma: $dir/$name (named by $dsc) is missing" >&2
    return 1
  fi
  if [[ "$(sha256sum "$dir/$name" | cut -d' ' -f1)" != "$sum" ]]; then
    echo "rocwmma: $dir/$name does not match the SHA-256 in $dsc; not installed" >&2
    return 1
  fi
  local tmp
  tmp="$(mktemp -d)"
  if ! tar -xf "$dir/$name" -C "$tmp" --wildcards '*/library/include/rocwmma/*' 2>/dev/null; then
    rm -rf "$tmp"
    echo "rocwmma: $dir/$name has no library/include/rocwmma tree" >&2
    return 1
  fi
  local src
  src="$(find "$tmp" -path '*/library/include/rocwmma/internal/accessors.hpp' -print -quit)"
  if [[ -z "$src" ]]; then
    rm -rf "$tmp"
    echo "rocwmma: $dir/$name has library/include/rocwmma but no internal/accessors.hpp" >&2
    return 1
  fi
  src="$(dirname "$(dirname "$src")")"
  mkdir -p "$root/usr/include/rocwmma"
  cp -rn "$src/." "$root/usr/include/rocwmma/"
  rm -rf "$tmp"
}

# r2r_rocwmma_headers ROOT MIRROR: when ROOT's rocWMMA lacks internal/, downloads the source package
# of the installed librocwmma-dev version with apt inside ROOT (bubblewrap; apt verifies the files
# against the signed Sources index of experimental) and installs its headers. Not fatal: a mirror
# without the source package leaves ROOT as it was, with a message (wmma ports then do not compile
# in ROOT). Runs as root, like hip.sh.
r2r_rocwmma_headers() {
  local root="$1" mirror="$2"
  if r2r_rocwmma_complete "$root"; then
    return 0
  fi
  local version
  version="$(awk '/^Package: librocwmma-dev$/{f=1} f && /^Version:/{print $2; exit}' \
    "$root/var/lib/dpkg/status")"
  local work=/var/tmp/r2r-rocwmma-src
  rm -rf "${root:?}$work"
  mkdir -p "$root$work/lists/partial" "$root$work/src"
  echo "deb-src $mirror experimental main" >"$root$work/sources.list"
  local apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent
    -o "Dir::State::Lists=$work/lists" -o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root)
  local jail=(bwrap --bind "$root" / --dev /dev --proc /proc --ro-bind /etc/resolv.conf /etc/resolv.conf
    --chdir "$work/src" --setenv PATH /usr/sbin:/usr/bin:/sbin:/bin)
  local ok=0
  if "${jail[@]}" apt-get "${apt_opts[@]}" -qq update >"$root$work/log" 2>&1 &&
    "${jail[@]}" apt-get "${apt_opts[@]}" -qq source --download-only "rocwmma${version:+=$version}" \
      >>"$root$work/log" 2>&1; then
    local dsc
    dsc="$(find "$root$work/src" -maxdepth 1 -name 'rocwmma_*.dsc' -print -quit)"
    if [[ -n "$dsc" ]] && r2r_rocwmma_install_from_dsc "$dsc" "$root"; then
      ok=1
    fi
  fi
  if ((ok)); then
    echo "hip.sh: + rocWMMA internal headers (source package rocwmma ${version:-})"
  else
    echo "hip.sh: - rocWMMA internal headers: the source package rocwmma ${version:-} could not be" \
      "fetched or verified from $mirror (last lines below); #include <rocwmma/rocwmma.hpp> will not" \
      "compile in this rootfs"
    tail -n 3 "$root$work/log" 2>/dev/null | sed 's/^/    /'
  fi
  rm -rf "${root:?}$work"
  return 0
}
