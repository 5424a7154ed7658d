// SPDX-License-Identifier: MIT
// Integrity: the signature over MANIFEST.sha256 by the trusted key, then every file's hash.
#include "bundle_checks.hpp"

#include <r2r/report/manifest.hpp>
#include <r2r/report/signing.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace r2r::report::detail {
namespace {

constexpr const char* required_files[] = {"Dockerfile", "repo.tar",    "patch.diff",  "commands.log",
                                          "plan.json",  "report.json", "report.html", "trajectory.jsonl"};

std::optional<std::string> read_all(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

core::result<std::string> check_signature(const std::filesystem::path& dir, const std::string& manifest,
                                          const verify_options& options, std::vector<std::string>& notes) {
  const std::string sig_file(signature_name);
  if (std::filesystem::symlink_status(dir / sig_file).type() == std::filesystem::file_type::not_found)
    return bundle_error(dir, sig_file,
                        "missing: the bundle is unsigned; only bundles whose MANIFEST.sha256 is signed by the key of "
                        "the host that ran them are accepted (docs/bundle.md \"Signing\")");
  const auto text = read_all(dir / sig_file);
  if (!text) return bundle_error(dir, sig_file, "cannot be read");
  auto signer = check_manifest_signature(*text, manifest);
  if (!signer) return core::fail(core::phase::io, signer.error().message, "", (dir / signer.error().path).string());
  const std::string fp = signer->fingerprint();
  if (!options.trusted_key)
    return bundle_error(dir, sig_file,
                        "signed by key " + fp +
                            ", but no key is trusted here: pass --trusted-key FILE with the public key of the host "
                            "that ran the bundle (its <state dir>/signing/bundle-ed25519.pub)");
  if (!(*signer == *options.trusted_key))
    return bundle_error(dir, sig_file,
                        "signed by another key (" + fp + "), not the trusted key " +
                            options.trusted_key->fingerprint() +
                            (options.trusted_key_source.empty() ? "" : " (" + options.trusted_key_source + ")") +
                            ": the bundle was re-signed after the run, or comes from another host");
  notes.push_back("signature: MANIFEST.sha256 is signed by the trusted key " + fp);
  return fp;
}

}  // namespace

core::result<std::string> check_integrity(const std::filesystem::path& dir, const verify_options& options,
                                          std::vector<std::string>& notes) {
  const std::string manifest_file(manifest_name);
  const auto text = read_all(dir / manifest_file);
  if (!text) return bundle_error(dir, manifest_file, "missing or unreadable; this is not a complete bundle");
  auto listed = parse_manifest(*text);
  if (!listed) return tl::unexpected(listed.error());
  auto signer = check_signature(dir, *text, options, notes);
  if (!signer) return signer;
  auto present = hash_directory(dir);
  if (!present) return tl::unexpected(present.error());
  std::map<std::string, std::string> have;
  for (const auto& e : *present) have[e.name] = e.sha256;
  std::set<std::string> names;
  for (const auto& e : *listed) {
    names.insert(e.name);
    const auto it = have.find(e.name);
    if (it == have.end()) return bundle_error(dir, e.name, "listed in MANIFEST.sha256 but missing from the bundle");
    if (it->second != e.sha256)
      return core::fail(
          core::phase::io,
          e.name + "'s hash does not match the manifest; the file was changed after the bundle was signed", "",
          (dir / e.name).string());
  }
  for (const auto& [name, digest] : have)
    if (!names.count(name))
      return bundle_error(dir, name, "is not listed in MANIFEST.sha256; it was added after the bundle was signed");
  for (const char* f : required_files)
    if (!have.count(f)) return bundle_error(dir, f, "missing: every bundle has it (docs/bundle.md)");
  notes.push_back("integrity: " + std::to_string(listed->size()) + " files match MANIFEST.sha256, none unlisted");
  return signer;
}

}  // namespace r2r::report::detail
