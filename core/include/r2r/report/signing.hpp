// SPDX-License-Identifier: MIT
// The host's bundle signing key and MANIFEST.sig (docs/bundle.md "Signing").
//
// Every bundle's MANIFEST.sha256 is signed with an Ed25519 key of the host that ran it (OpenSSL
// libcrypto). The key is made on first use under the state directory, in `<state>/signing/`
// (directory 0700, `bundle-ed25519.key` 0600 PKCS#8 PEM, `bundle-ed25519.pub` SubjectPublicKeyInfo
// PEM for auditors: `repo2rocm verify --trusted-key`). The state directory is host state outside
// every sandbox: sandboxes mount only the run's workspace.
//
// THREADING: every function is reentrant. Two processes making the key at once both end up with
// the one key that was linked into place first.
#pragma once

#include <r2r/core/error.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace r2r::report {

inline constexpr std::string_view signature_name = "MANIFEST.sig";

/// An Ed25519 public key (the raw 32 bytes).
struct public_key {
  std::array<std::uint8_t, 32> raw{};
  /// "SHA256:<64 hex>" of the raw key: what verify prints and MANIFEST.sig names.
  std::string fingerprint() const;
  bool operator==(const public_key&) const = default;
};

/// An Ed25519 private key (the 32-byte seed) with its public key. Owns only bytes; no handle.
struct signing_key {
  std::array<std::uint8_t, 32> seed{};
  public_key pub;
};

/// `<state_dir>/signing`.
std::filesystem::path signing_dir(const std::filesystem::path& state_dir);
/// `<state_dir>/signing/bundle-ed25519.pub`: the file to hand to auditors.
std::filesystem::path host_public_key_file(const std::filesystem::path& state_dir);

/// Loads the host key from `<state_dir>/signing/`, making it on first use. Fails when the
/// directory or key file is a link, belongs to another user, or is readable by group or others.
core::result<signing_key> host_signing_key(const std::filesystem::path& state_dir);

/// The host's public key when `<state_dir>/signing/bundle-ed25519.pub` exists (never makes one).
core::result<std::optional<public_key>> host_public_key(const std::filesystem::path& state_dir);

/// Reads an Ed25519 public key: SubjectPublicKeyInfo PEM (`openssl pkey -pubout`).
core::result<public_key> read_public_key(const std::filesystem::path& file);

/// The text of MANIFEST.sig for `manifest` (the exact bytes of MANIFEST.sha256).
core::result<std::string> sign_manifest(const signing_key& key, std::string_view manifest);

/// What MANIFEST.sig says: the signer's public key, when the signature over `manifest` is valid.
/// Fails saying whether the file is malformed, or the signature does not match this manifest
/// (the manifest was regenerated or edited after signing).
core::result<public_key> check_manifest_signature(std::string_view signature_text, std::string_view manifest);

}  // namespace r2r::report
