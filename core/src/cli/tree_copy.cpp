// SPDX-License-Identifier: MIT
#include "tree_copy.hpp"

#include <algorithm>

namespace r2r::cli {

namespace fs = std::filesystem;

core::result<copied_tree> copy_tree(const fs::path& source, const fs::path& tree) {
  copied_tree out;
  std::error_code ec;
  fs::create_directories(tree, ec);
  if (ec) return core::fail(core::phase::io, "cannot create " + tree.string() + ": " + ec.message());
  for (auto it = fs::recursive_directory_iterator(source, fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path rel = fs::relative(it->path(), source);
    if (it->is_directory() && !it->is_symlink() && rel.filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    const fs::path dest = tree / rel;
    if (it->is_symlink()) {
      fs::remove(dest, ec);
      fs::copy_symlink(it->path(), dest, ec);
      ++out.symlinks;
    } else if (it->is_directory()) {
      fs::create_directories(dest, ec);
    } else if (it->is_regular_file()) {
      fs::copy_file(it->path(), dest, fs::copy_options::overwrite_existing, ec);
      out.files.push_back(rel.generic_string());
    }
    if (ec)
      return core::fail(core::phase::io,
                        "cannot copy " + it->path().string() + " to " + dest.string() + ": " + ec.message());
  }
  if (ec) return core::fail(core::phase::io, "cannot read " + source.string() + ": " + ec.message());
  std::sort(out.files.begin(), out.files.end());
  return out;
}

}  // namespace r2r::cli
