// SPDX-License-Identifier: MIT
#include "tree_copy.hpp"

#include <r2r/planning/tree_policy.hpp>
#include <r2r/support/safe_fs_bounded_walk.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace r2r::run {
namespace {

namespace fs = std::filesystem;
namespace safe_fs = r2r::safe_fs;

void copy_file(const safe_fs::walk_entry& e, const safe_fs::root& dst) {
  auto in = safe_fs::open_regular_at(e.dir_fd, e.info.name, e.path);
  safe_fs::new_file out(dst, e.path, e.info.mode & 0755);
  std::vector<char> buf(1 << 16);
  std::uint64_t left = planning::max_tree_file_bytes;  // a file growing while read stops here
  while (left > 0) {
    const ssize_t n = ::read(in.get(), buf.data(), std::min<std::uint64_t>(buf.size(), left));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw safe_fs::error(e.path, "cannot read");
    if (n == 0) break;
    out.write(buf.data(), static_cast<std::size_t>(n));
    left -= static_cast<std::uint64_t>(n);
  }
  out.commit();
}

}  // namespace

nlohmann::json copied_tree::to_json() const {
  nlohmann::json links = nlohmann::json::array(), skipped = nlohmann::json::array();
  for (const auto& n : notes) {
    (n.kind == "symlink" ? links : skipped).push_back({{"path", n.path}, {"kind", n.kind}, {"detail", n.detail}});
  }
  return {{"files", files.size()}, {"symlinks", std::move(links)}, {"skipped", std::move(skipped)}};
}

core::result<copied_tree> copy_tree(const fs::path& source, const fs::path& tree) {
  copied_tree out;
  std::error_code ec;
  fs::create_directories(tree, ec);
  if (ec) return core::fail(core::phase::io, "cannot create " + tree.string() + ": " + ec.message());
  try {
    const auto src = safe_fs::root::open(source, "repository");
    const auto dst = safe_fs::root::open(tree, "copy of the repository");
    safe_fs::bounded_walk_options options;
    options.max_depth = planning::max_tree_depth;
    const auto limits = safe_fs::bounded_walk(src, options, [&](const safe_fs::walk_entry& e) {
      const auto d = planning::classify_entry(e);
      if (!d.kind.empty()) out.notes.push_back({d.path, d.kind, d.detail});
      switch (d.action) {
        case planning::tree_action::enter:
          safe_fs::make_dirs(dst, e.path, (e.info.mode & 0755) | 0700);
          return true;
        case planning::tree_action::take_file:
          copy_file(e, dst);
          if (d.plain_name) out.files.push_back(e.path);
          return false;
        case planning::tree_action::keep_link:
          safe_fs::make_symlink(dst, e.path, e.link_target);
          ++out.symlinks;
          return false;
        case planning::tree_action::skip:
          return false;
      }
      return false;
    });
    for (const auto& l : limits) out.notes.push_back({safe_fs::escape_name(l.path), "too_deep", l.reason});
  } catch (const safe_fs::error& e) {
    return core::fail(core::phase::io,
                      "cannot copy " + safe_fs::escape_name(e.path()) + " from " + source.string() + " to " +
                          tree.string() + ": " + e.reason(),
                      "", source.string());
  }
  std::sort(out.files.begin(), out.files.end());
  return out;
}

}  // namespace r2r::run
