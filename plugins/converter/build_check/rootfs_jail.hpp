// SPDX-License-Identifier: MIT
// A toolchain rootfs run through bubblewrap: the compiler sees the rootfs (read-only) as `/`, the
// sources being checked read-only under /r2r/src and a scratch directory writable under
// /r2r/scratch, a private /tmp, and nothing else of the host. An `#include "/etc/..."` or a
// `../../` include therefore resolves inside the rootfs, never to a host file; there is no network.
// Host paths handed to the compiler are mapped to their guest paths (guest_path) and the
// compiler's output is mapped back (host_text) so diagnostics name the host files.
// THREADING: immutable after bind(); bind() and the mappings are not thread-safe together.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::converter {

class rootfs_jail {
 public:
  /// `rootfs`: an absolute directory holding usr/bin/hipcc; `bwrap`: the bubblewrap executable.
  /// Throws std::invalid_argument with what to do when either is missing.
  rootfs_jail(std::string rootfs, std::string bwrap);

  /// The host directories the next commands see: `sources` read-only at /r2r/src (may be empty:
  /// none), `scratch` writable at /r2r/scratch (may be empty: none). Both absolute.
  void bind(std::string sources, std::string scratch);

  /// The guest path of a host path beneath a bound directory; nullopt for any other path.
  std::optional<std::string> guest_path(const std::string& host) const;

  /// `text` with guest paths of the bound directories replaced by their host paths.
  std::string host_text(std::string text) const;

  /// bwrap's argv up to and including `--`, then the caller appends the guest command.
  std::vector<std::string> prefix() const;

  const std::string& rootfs() const noexcept { return rootfs_; }

  static constexpr const char* guest_sources = "/r2r/src";
  static constexpr const char* guest_scratch = "/r2r/scratch";

 private:
  std::string rootfs_;
  std::string bwrap_;
  std::string sources_;
  std::string scratch_;
};

}  // namespace r2r::plugins::converter
