#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tests scripts/lib/rocwmma_headers.sh offline, on a fake rootfs and a fake source package: the
# headers are installed only from an orig tarball whose SHA-256 matches the .dsc, the binary package's
# files are kept, and a rootfs that is complete (or has no rocWMMA) is left alone.
# Usage: rocwmma_headers_test.sh REPO_ROOT
set -euo pipefail
# shellcheck source=../../scripts/lib/rocwmma_headers.sh
source "$1/scripts/lib/rocwmma_headers.sh"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
check() { # check NAME COMMAND...: COMMAND must succeed
  if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
}
fails() { # fails NAME COMMAND...: COMMAND must fail
  if "${@:2}" 2>/dev/null; then echo "FAIL $1 (succeeded)"; failures=$((failures + 1)); else echo "ok   $1"; fi
}

# A rootfs as Debian's librocwmma-dev leaves it: rocwmma.hpp, no internal/.
new_root() {
  rm -rf "$tmp/root" && mkdir -p "$tmp/root/usr/include/rocwmma"
  echo '// packaged' >"$tmp/root/usr/include/rocwmma/rocwmma.hpp"
}
# A source package: orig tarball with library/include/rocwmma (WITH_INTERNAL=0 leaves internal/ out)
# and a .dsc holding its SHA-256.
make_source() {
  local with_internal="$1"
  rm -rf "$tmp/src" "$tmp/pkg" && mkdir -p "$tmp/src/rocwmma-7.2.4/library/include/rocwmma/internal" "$tmp/pkg"
  echo '// upstream' >"$tmp/src/rocwmma-7.2.4/library/include/rocwmma/rocwmma.hpp"
  if ((with_internal)); then
    echo '// accessors' >"$tmp/src/rocwmma-7.2.4/library/include/rocwmma/internal/accessors.hpp"
  fi
  tar -czf "$tmp/pkg/rocwmma_7.2.4.orig.tar.gz" -C "$tmp/src" rocwmma-7.2.4
  local sum size
  sum="$(sha256sum "$tmp/pkg/rocwmma_7.2.4.orig.tar.gz" | cut -d' ' -f1)"
  size="$(stat -c %s "$tmp/pkg/rocwmma_7.2.4.orig.tar.gz")"
  printf 'Format: 3.0 (quilt)\nSource: rocwmma\nChecksums-Sha256:\n %s %s rocwmma_7.2.4.orig.tar.gz\n %s 7368 rocwmma_7.2.4-1~exp1.debian.tar.xz\nFiles:\n 0 0 x\n' \
    "$sum" "$size" "$(printf '0%.0s' {1..64})" >"$tmp/pkg/rocwmma_7.2.4-1~exp1.dsc"
}
dsc="$tmp/pkg/rocwmma_7.2.4-1~exp1.dsc"
installed() { [[ -f "$tmp/root/usr/include/rocwmma/internal/accessors.hpp" ]]; }
kept_packaged() { grep -q packaged "$tmp/root/usr/include/rocwmma/rocwmma.hpp"; }

# Honest case: a matching tarball adds internal/ and keeps the packaged rocwmma.hpp.
new_root
make_source 1
fails "a packaged rocwmma.hpp without internal/ is incomplete" r2r_rocwmma_complete "$tmp/root"
check "a verified tarball installs" r2r_rocwmma_install_from_dsc "$dsc" "$tmp/root"
check "internal/ is installed" installed
check "the binary package's rocwmma.hpp is kept" kept_packaged
check "the rootfs is complete afterwards" r2r_rocwmma_complete "$tmp/root"

# Attack: the tarball was changed after the .dsc was signed; nothing is installed.
new_root
make_source 1
echo '// tampered' >"$tmp/src/rocwmma-7.2.4/library/include/rocwmma/internal/extra.hpp"
tar -czf "$tmp/pkg/rocwmma_7.2.4.orig.tar.gz" -C "$tmp/src" rocwmma-7.2.4
fails "a tarball whose SHA-256 differs from the .dsc is refused" r2r_rocwmma_install_from_dsc "$dsc" "$tmp/root"
fails "nothing is installed from it" installed

# Attack: a .dsc whose Checksums-Sha256 names no orig tarball (only a Files/MD5 line would).
new_root
make_source 1
sed -i '/orig.tar.gz$/d' "$dsc"
echo " 3ca2be0d32c7e74f8b7ff1e92b763482 1 rocwmma_7.2.4.orig.tar.gz" >>"$dsc"
fails "a .dsc without the tarball's SHA-256 is refused" r2r_rocwmma_install_from_dsc "$dsc" "$tmp/root"
fails "nothing is installed from it" installed

# A tarball without internal/ (a source that would not fix anything) is refused, rootfs untouched.
new_root
make_source 0
fails "a tarball without internal/accessors.hpp is refused" r2r_rocwmma_install_from_dsc "$dsc" "$tmp/root"
check "the rootfs is left as it was" test "$(ls "$tmp/root/usr/include/rocwmma")" = rocwmma.hpp

# A complete rootfs, and one without rocWMMA, are left alone: no fetch (an unreachable mirror and
# no bubblewrap run would fail loudly), no work directory.
new_root
mkdir -p "$tmp/root/usr/include/rocwmma/internal" && echo '// ours' >"$tmp/root/usr/include/rocwmma/internal/accessors.hpp"
check "a complete rootfs needs nothing" r2r_rocwmma_headers "$tmp/root" http://invalid.invalid/debian
check "no work directory in it" test ! -e "$tmp/root/var/tmp/r2r-rocwmma-src"
check "its headers are untouched" grep -q ours "$tmp/root/usr/include/rocwmma/internal/accessors.hpp"
rm -rf "$tmp/root" && mkdir -p "$tmp/root/usr/include"
check "a rootfs without rocWMMA needs nothing" r2r_rocwmma_complete "$tmp/root"

if ((failures)); then
  echo "$failures failed"
  exit 1
fi
echo "rocwmma_headers: all checks passed"
