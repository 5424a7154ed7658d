// SPDX-License-Identifier: MIT
#include "tar_writer.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace r2r::cli {
namespace {

using block = std::array<char, 512>;

void put_octal(char* field, std::size_t width, unsigned long long value) {
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1), value);
}

void write_header(std::ofstream& out, const std::string& name, char type, unsigned long long size, unsigned mode,
                  const std::string& link = {}) {
  block h{};
  std::memcpy(h.data(), name.data(), std::min<std::size_t>(name.size(), 100));
  put_octal(&h[100], 8, mode);
  put_octal(&h[108], 8, 0);
  put_octal(&h[116], 8, 0);
  put_octal(&h[124], 12, size);
  put_octal(&h[136], 12, 0);
  h[156] = type;
  std::memcpy(&h[157], link.data(), std::min<std::size_t>(link.size(), 100));
  std::memcpy(&h[257], "ustar", 6);
  std::memcpy(&h[263], "00", 2);
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (char c : h) sum += static_cast<unsigned char>(c);
  std::snprintf(&h[148], 8, "%06o", sum);
  h[155] = ' ';
  out.write(h.data(), h.size());
}

void pad(std::ofstream& out, unsigned long long size) {
  static const block zeros{};
  if (size % 512) out.write(zeros.data(), static_cast<std::streamsize>(512 - size % 512));
}

/// A PAX extended header carrying `path` (and `linkpath`) when they do not fit ustar's fields.
void write_entry_header(std::ofstream& out, const std::string& name, char type, unsigned long long size, unsigned mode,
                        const std::string& link = {}) {
  if (name.size() > 99 || link.size() > 99) {
    std::string records;
    auto record = [&](const std::string& key, const std::string& value) {
      const std::string body = " " + key + "=" + value + "\n";
      std::size_t len = body.size() + 1;
      while (std::to_string(len).size() + body.size() != len) ++len;
      records += std::to_string(len) + body;
    };
    if (name.size() > 99) record("path", name);
    if (link.size() > 99) record("linkpath", link);
    write_header(out, "././@PaxHeader", 'x', records.size(), 0644);
    out.write(records.data(), static_cast<std::streamsize>(records.size()));
    pad(out, records.size());
  }
  write_header(out, name, type, size, mode, link);
}

}  // namespace

core::result<void> write_tree_tar(const std::filesystem::path& dir, const std::filesystem::path& archive) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> entries;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->path().filename() == ".git") {
      if (it->is_directory(ec) && !it->is_symlink(ec)) it.disable_recursion_pending();
      continue;
    }
    entries.push_back(it->path());
  }
  if (ec) return core::fail(core::phase::io, "listing " + dir.string() + ": " + ec.message(), "", dir.string());
  std::sort(entries.begin(), entries.end());
  const fs::path tmp = archive.string() + ".tmp";
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) return core::fail(core::phase::io, "cannot write " + tmp.string(), "", tmp.string());
  std::vector<char> buffer;
  for (const auto& p : entries) {
    const std::string name = p.lexically_relative(dir).generic_string();
    const auto status = fs::symlink_status(p, ec);
    if (fs::is_symlink(status)) {
      write_entry_header(out, name, '2', 0, 0777, fs::read_symlink(p, ec).generic_string());
    } else if (fs::is_directory(status)) {
      write_entry_header(out, name + "/", '5', 0, 0755);
    } else if (fs::is_regular_file(status)) {
      std::ifstream in(p, std::ios::binary);
      buffer.assign(std::istreambuf_iterator<char>(in), {});
      const bool exec = (status.permissions() & fs::perms::owner_exec) != fs::perms::none;
      write_entry_header(out, name, '0', buffer.size(), exec ? 0755 : 0644);
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      pad(out, buffer.size());
    }
  }
  static const block zeros{};
  out.write(zeros.data(), zeros.size());
  out.write(zeros.data(), zeros.size());
  out.close();
  if (!out) return core::fail(core::phase::io, "writing " + tmp.string() + " failed (disk full?)", "", tmp.string());
  fs::rename(tmp, archive, ec);
  if (ec)
    return core::fail(core::phase::io, "cannot replace " + archive.string() + ": " + ec.message(), "",
                      archive.string());
  return {};
}

}  // namespace r2r::cli
