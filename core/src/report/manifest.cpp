// SPDX-License-Identifier: MIT
#include <r2r/report/manifest.hpp>
#include <r2r/report/sha256.hpp>
#include <r2r/report/signing.hpp>

#include <algorithm>

namespace r2r::report {
namespace {

bool valid_component(std::string_view n) {
  if (n.empty() || n == "." || n == "..") return false;
  return std::none_of(n.begin(), n.end(),
                      [](char c) { return c == '/' || c == '\\' || c == '\n' || c == '\r' || c == '\0'; });
}

/// A relative path of valid components joined by '/'.
bool valid_name(std::string_view n) {
  for (;;) {
    const std::size_t slash = n.find('/');
    if (!valid_component(n.substr(0, slash))) return false;
    if (slash == std::string_view::npos) return true;
    n.remove_prefix(slash + 1);
  }
}

bool valid_hex(std::string_view h) {
  return h.size() == 64 &&
         std::all_of(h.begin(), h.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

core::result<std::vector<manifest_entry>> hash_directory(const std::filesystem::path& dir) {
  std::vector<manifest_entry> out;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().lexically_relative(dir).generic_string();
    if (name == manifest_name || name == signature_name) continue;
    // symlink_status only: a link (even a loop) is judged as a link, never followed.
    if (std::error_code type_ec; it->symlink_status(type_ec).type() == std::filesystem::file_type::directory) continue;
    if (std::error_code type_ec; it->symlink_status(type_ec).type() != std::filesystem::file_type::regular)
      return core::fail(core::phase::io,
                        "bundle entry '" + name + "' is not a regular file; a bundle holds only plain files", "",
                        it->path().string());
    if (!valid_name(name))
      return core::fail(
          core::phase::io,
          "bundle file name '" + name + "' cannot be listed in " + std::string(manifest_name) + "; rename it", "",
          it->path().string());
    auto digest = sha256_file(it->path());
    if (!digest) return tl::unexpected(digest.error());
    out.push_back({name, *digest});
  }
  if (ec) return core::fail(core::phase::io, "cannot list " + dir.string() + ": " + ec.message(), "", dir.string());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

std::string render_manifest(const std::vector<manifest_entry>& entries) {
  std::string text;
  for (const auto& e : entries) text += e.sha256 + "  " + e.name + "\n";
  return text;
}

core::result<std::vector<manifest_entry>> parse_manifest(std::string_view text) {
  const std::string where(manifest_name);
  if (text.empty())
    return core::fail(core::phase::io, where + " is empty; expected one line per bundle file", "", where);
  if (text.back() != '\n')
    return core::fail(core::phase::io, where + ": the last line has no newline; the file was truncated", "", where);
  std::vector<manifest_entry> out;
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    const std::string at = where + " line " + std::to_string(line_no);
    if (line.size() < 67 || line.substr(64, 2) != "  " || !valid_hex(line.substr(0, 64)))
      return core::fail(
          core::phase::io,
          at + ": expected '<64 lowercase hex digits>  <file name>'; found '" + std::string(line.substr(0, 100)) + "'",
          "", where);
    const std::string_view name = line.substr(66);
    if (!valid_name(name))
      return core::fail(core::phase::io, at + ": '" + std::string(name) + "' is not a relative path of plain names", "",
                        where);
    if (name == manifest_name || name == signature_name)
      return core::fail(core::phase::io, at + ": the manifest lists itself or its signature", "", where);
    if (!out.empty() && !(out.back().name < name))
      return core::fail(
          core::phase::io,
          at + ": names must be sorted and unique; '" + std::string(name) + "' comes after '" + out.back().name + "'",
          "", where);
    out.push_back({std::string(name), std::string(line.substr(0, 64))});
  }
  return out;
}

}  // namespace r2r::report
