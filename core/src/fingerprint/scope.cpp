// SPDX-License-Identifier: MIT
// The scope of a dependency file (required / optional / vendored) from where it sits in the tree,
// which command names it and which file includes it.
#include "scan_parts.hpp"
#include "text_util.hpp"

namespace r2r::planning::detail {
namespace {

bool vendor_dir_name(const std::string& d) {
  const std::string l = text::lower(d);
  for (const char* v : {"third_party", "third-party", "thirdparty", "3rdparty", "vendor", "vendored", "external",
                        "externals", "extern", "submodules", "deps", "dependencies"}) {
    if (l == v) return true;
  }
  return false;
}

}  // namespace

bool vendored_path(const scan_state& s, const std::string& rel) {
  std::size_t slash = rel.find('/');
  while (slash != std::string::npos) {
    const std::string dir = rel.substr(0, slash);
    const auto prev = dir.rfind('/');
    if (vendor_dir_name(prev == std::string::npos ? dir : dir.substr(prev + 1))) return true;
    // A nested project: a directory below the root with its own packaging.
    if (s.files.count(dir + "/setup.py") || s.files.count(dir + "/pyproject.toml")) return true;
    slash = rel.find('/', slash + 1);
  }
  return false;
}

std::string file_scope(const scan_state& s, const std::string& rel) {
  std::string at = rel;
  for (int hops = 0; hops < 32; ++hops) {  // bounded: -r cycles are already broken, but be sure
    if (vendored_path(s, at)) return "vendored";
    if (s.named_by_command.count(at)) return "required";
    const auto inc = s.included_by.find(at);
    if (inc == s.included_by.end()) break;
    at = inc->second;
  }
  if (vendored_path(s, at)) return "vendored";
  const auto slash = at.find('/');
  const bool top = slash == std::string::npos;
  const bool requirements_dir =
      !top && at.substr(0, slash) == "requirements" && at.find('/', slash + 1) == std::string::npos;
  return top || requirements_dir ? "required" : "optional";
}

}  // namespace r2r::planning::detail
