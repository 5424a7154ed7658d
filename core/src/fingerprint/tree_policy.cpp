// SPDX-License-Identifier: MIT
#include <r2r/planning/tree_policy.hpp>
#include <r2r/support/safe_fs_bounded_walk.hpp>

namespace r2r::planning {
namespace {

std::string last_component(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string mib(std::uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

tree_decision classify_entry(const safe_fs::walk_entry& e) {
  tree_decision d;
  d.plain_name = safe_fs::plain_name(e.path);
  d.path = d.plain_name ? e.path : safe_fs::escape_name(e.path);
  if (last_component(e.path) == ".git") {
    if (e.info.type != safe_fs::entry_type::directory) {  // a .git directory is expected: skipped silently
      d.kind = "git";
      d.detail = std::string("a .git ") + safe_fs::to_string(e.info.type) +
                 ": not read, copied or archived (it could point git at another repository)";
    }
    return d;  // skip
  }
  switch (e.info.type) {
    case safe_fs::entry_type::directory:
      d.action = tree_action::enter;
      break;
    case safe_fs::entry_type::symlink: {
      d.action = tree_action::keep_link;
      d.kind = "symlink";
      d.inside_target = safe_fs::link_target_inside(e.path, e.link_target);
      const std::string shown =
          safe_fs::plain_name(e.link_target) ? e.link_target : safe_fs::escape_name(e.link_target);
      d.detail =
          "symbolic link to " + shown +
          (d.inside_target.empty() ? " (outside the repository): kept as a link, never followed"
                                   : " (inside the repository): kept as a link; its target is read only as itself");
      break;
    }
    case safe_fs::entry_type::regular:
      if (e.info.size > max_tree_file_bytes) {
        d.kind = "too_large";
        d.detail = "a file of " + mib(e.info.size) + ", larger than " + mib(max_tree_file_bytes) +
                   ": not read, copied or archived";
        break;  // skip
      }
      d.action = tree_action::take_file;
      if (!d.plain_name) {
        d.kind = "odd_name";
        d.detail = "the name has a control character or is not UTF-8: copied, but neither scanned nor converted";
      }
      break;
    default:
      d.kind = "special";
      d.detail = std::string("a ") + safe_fs::to_string(e.info.type) + ": not read, copied or archived";
      break;
  }
  return d;
}

}  // namespace r2r::planning
