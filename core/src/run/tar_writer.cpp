// SPDX-License-Identifier: MIT
#include "tar_writer.hpp"

#include <r2r/planning/tree_policy.hpp>
#include <r2r/support/safe_fs_bounded_walk.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace r2r::run {
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
  const fs::path tmp = archive.string() + ".tmp";
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) return core::fail(core::phase::io, "cannot write " + tmp.string(), "", tmp.string());
  try {
    // One pass over the tree in sorted order (bounded_walk sorts each directory's entries, and a
    // directory's entries follow it), streaming each file: nothing is held in memory whole.
    const auto root = safe_fs::root::open(dir, "repository");
    safe_fs::bounded_walk_options options;
    options.max_depth = planning::max_tree_depth;
    std::vector<char> buffer(1 << 16);
    safe_fs::bounded_walk(root, options, [&](const safe_fs::walk_entry& e) {
      const auto d = planning::classify_entry(e);
      switch (d.action) {
        case planning::tree_action::enter:
          write_entry_header(out, e.path + "/", '5', 0, 0755);
          return true;
        case planning::tree_action::keep_link:
          write_entry_header(out, e.path, '2', 0, 0777, e.link_target);
          return false;
        case planning::tree_action::take_file: {
          auto in = safe_fs::open_regular_at(e.dir_fd, e.info.name, e.path);
          const bool exec = (e.info.mode & 0100) != 0;
          // The size in the header is the size lstat saw; a file that changes meanwhile is cut
          // or padded with zeros to it, so the archive stays well formed.
          const std::uint64_t size = e.info.size;
          write_entry_header(out, e.path, '0', size, exec ? 0755 : 0644);
          std::uint64_t left = size;
          while (left > 0) {
            const ssize_t n = ::read(in.get(), buffer.data(), std::min<std::uint64_t>(buffer.size(), left));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            out.write(buffer.data(), n);
            left -= static_cast<std::uint64_t>(n);
          }
          std::fill(buffer.begin(), buffer.end(), '\0');
          while (left > 0) {
            const auto n = std::min<std::uint64_t>(buffer.size(), left);
            out.write(buffer.data(), static_cast<std::streamsize>(n));
            left -= n;
          }
          pad(out, size);
          return false;
        }
        case planning::tree_action::skip:
          return false;
      }
      return false;
    });
  } catch (const safe_fs::error& e) {
    out.close();
    std::error_code ec;
    fs::remove(tmp, ec);
    return core::fail(core::phase::io, "archiving " + dir.string() + ": " + e.what(), "", dir.string());
  }
  static const block zeros{};
  out.write(zeros.data(), zeros.size());
  out.write(zeros.data(), zeros.size());
  out.close();
  if (!out) return core::fail(core::phase::io, "writing " + tmp.string() + " failed (disk full?)", "", tmp.string());
  if (const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced) return core::fail(core::phase::io, "cannot fsync " + tmp.string(), "", tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, archive, ec);
  if (ec)
    return core::fail(core::phase::io, "cannot replace " + archive.string() + ": " + ec.message(), "",
                      archive.string());
  return {};
}

}  // namespace r2r::run
