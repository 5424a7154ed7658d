// SPDX-License-Identifier: MIT
#include "tar_reader.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <optional>

namespace r2r::report::detail {
namespace {

using block = std::array<unsigned char, 512>;

std::string field(const block& b, std::size_t off, std::size_t len) {
  std::size_t n = 0;
  while (n < len && b[off + n] != 0) ++n;
  return std::string(reinterpret_cast<const char*>(b.data() + off), n);
}

/// An octal number (NUL/space terminated), or GNU base-256 when the first byte has its top bit set.
std::optional<std::uint64_t> number(const block& b, std::size_t off, std::size_t len) {
  if (b[off] & 0x80) {
    std::uint64_t v = b[off] & 0x7f;
    for (std::size_t i = 1; i < len; ++i) {
      if (v >> 55) return std::nullopt;
      v = v << 8 | b[off + i];
    }
    return v;
  }
  std::uint64_t v = 0;
  std::size_t i = 0;
  while (i < len && b[off + i] == ' ') ++i;
  bool digits = false;
  for (; i < len && b[off + i] >= '0' && b[off + i] <= '7'; ++i) {
    if (v >> 60) return std::nullopt;
    v = v * 8 + (b[off + i] - '0');
    digits = true;
  }
  for (; i < len; ++i)
    if (b[off + i] != ' ' && b[off + i] != 0) return std::nullopt;
  if (!digits) return std::nullopt;
  return v;
}

bool checksum_ok(const block& b) {
  const auto recorded = number(b, 148, 8);
  if (!recorded) return false;
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < b.size(); ++i) sum += (i >= 148 && i < 156) ? ' ' : b[i];
  return sum == *recorded;
}

bool is_zero(const block& b) {
  return std::all_of(b.begin(), b.end(), [](unsigned char c) { return c == 0; });
}

/// The "path" record of a PAX extended header ("<len> path=<value>\n" records), if any.
std::optional<std::string> pax_path(const std::string& data) {
  std::optional<std::string> out;
  std::size_t pos = 0;
  while (pos < data.size()) {
    const std::size_t space = data.find(' ', pos);
    if (space == std::string::npos) break;
    std::size_t len = 0;
    try {
      len = std::stoul(data.substr(pos, space - pos));
    } catch (...) {
      break;
    }
    if (len == 0 || pos + len > data.size()) break;
    const std::string record = data.substr(space + 1, len - (space + 1 - pos) - 1);
    if (record.rfind("path=", 0) == 0) out = record.substr(5);
    pos += len;
  }
  return out;
}

}  // namespace

std::string normalize_tar_path(std::string path) {
  while (path.rfind("./", 0) == 0) path.erase(0, 2);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path == "." ? std::string() : path;
}

core::result<tar_contents> read_tar(const std::filesystem::path& archive, const std::set<std::string>& wanted) {
  const std::string where = archive.filename().string();
  auto bad = [&](const std::string& what) {
    return core::fail(core::phase::io,
                      where + " is not a complete tar archive: " + what +
                          "; a bundle carries the repository exactly as `repo2rocm plan` archived it",
                      "", archive.string());
  };
  std::error_code ec;
  const std::uint64_t total = std::filesystem::file_size(archive, ec);
  if (ec) return bad("it cannot be read");
  if (total == 0) return bad("it is empty");
  std::ifstream in(archive, std::ios::binary);
  if (!in) return bad("it cannot be read");

  tar_contents out;
  std::uint64_t offset = 0;
  std::optional<std::string> next_name;  // from a PAX 'x' or GNU 'L' member
  block b{};
  auto read_block = [&]() -> bool {
    if (!in.read(reinterpret_cast<char*>(b.data()), b.size())) return false;
    offset += b.size();
    return true;
  };
  auto read_data = [&](std::uint64_t size, std::string* keep) -> bool {
    const std::uint64_t padded = (size + 511) / 512 * 512;
    if (padded > total - offset) return false;
    if (keep != nullptr) {
      keep->resize(static_cast<std::size_t>(size));
      if (!in.read(keep->data(), static_cast<std::streamsize>(size))) return false;
      in.seekg(static_cast<std::streamoff>(padded - size), std::ios::cur);
    } else {
      in.seekg(static_cast<std::streamoff>(padded), std::ios::cur);
    }
    offset += padded;
    return static_cast<bool>(in);
  };

  for (;;) {
    if (!read_block()) return bad("it ends at byte " + std::to_string(offset) + " without the end-of-archive marker");
    if (is_zero(b)) {
      if (!read_block() || !is_zero(b))
        return bad("the end-of-archive marker at byte " + std::to_string(offset - 512) + " is incomplete");
      break;
    }
    if (!checksum_ok(b)) return bad("the header at byte " + std::to_string(offset - 512) + " has a bad checksum");
    const auto size = number(b, 124, 12);
    if (!size) return bad("the header at byte " + std::to_string(offset - 512) + " has no valid size");
    const char type = static_cast<char>(b[156]);
    if (type == 'x' || type == 'L') {
      if (*size > (1u << 20)) return bad("a long-name record at byte " + std::to_string(offset - 512) + " is too big");
      std::string data;
      if (!read_data(*size, &data)) return bad("a member at byte " + std::to_string(offset - 512) + " is truncated");
      if (type == 'L') {
        next_name = data.substr(0, data.find('\0'));
      } else if (auto p = pax_path(data)) {
        next_name = *p;
      }
      continue;
    }
    std::string name = next_name ? *next_name : field(b, 0, 100);
    if (!next_name && field(b, 257, 5) == "ustar") {
      const std::string prefix = field(b, 345, 155);
      if (!prefix.empty()) name = prefix + "/" + name;
    }
    next_name.reset();
    name = normalize_tar_path(name);
    const bool regular = type == '0' || type == '\0' || type == '7';
    std::string content;
    const bool keep = regular && wanted.count(name) != 0;
    // Links and directories carry no data whatever their size field says.
    const std::uint64_t data_size = (type == '1' || type == '2' || type == '5') ? 0 : *size;
    if (!read_data(data_size, keep ? &content : nullptr))
      return bad("the data of a member at byte " + std::to_string(offset - 512) + " is truncated");
    if (!name.empty()) out.names.insert(name);
    if (regular) {
      ++out.regular_files;
      if (keep) out.wanted[name] = std::move(content);
    }
  }
  if (out.regular_files == 0) return bad("it holds no file");
  return out;
}

}  // namespace r2r::report::detail
