// SPDX-License-Identifier: MIT
#include <r2r/core/search_path.hpp>

#include <algorithm>
#include <set>
#include <sstream>

namespace r2r::core {
namespace {

std::filesystem::path absolute_normal(const std::filesystem::path& p, const std::filesystem::path& base) {
  std::error_code ec;
  std::filesystem::path full = p.is_absolute() ? p : (base.empty() ? std::filesystem::absolute(p, ec) : base / p);
  return full.lexically_normal();
}

bool is_plugin_name(const std::string& name) {
  return name.rfind("libr2r-", 0) == 0 && name.size() > 10 && name.compare(name.size() - 3, 3, ".so") == 0;
}

}  // namespace

std::vector<search_location> plugin_search_path(const search_inputs& in) {
  std::vector<search_location> out;
  std::set<std::filesystem::path> seen;
  auto add = [&](const std::filesystem::path& p, const std::filesystem::path& base, const std::string& origin) {
    if (p.empty()) return;
    auto full = absolute_normal(p, base);
    if (seen.insert(full).second) out.push_back({full, origin});
  };
  for (const auto& p : in.cli_paths) add(p, {}, "--plugin-path");
  std::stringstream env(in.env_value);
  for (std::string item; std::getline(env, item, ':');) add(item, {}, "R2R_PLUGIN_PATH");
  for (const auto& p : in.pipeline_paths) add(p, in.pipeline_dir, "pipeline");
  if (!in.executable_dir.empty()) add(in.executable_dir / ".." / "lib" / "r2r" / "plugins", {}, "executable");
  if (!in.install_prefix.empty()) add(in.install_prefix / "lib" / "r2r" / "plugins", {}, "install prefix");
  return out;
}

std::vector<plugin_file> discover_plugin_files(const std::vector<search_location>& path,
                                               std::vector<std::string>* shadowed) {
  std::vector<plugin_file> out;
  std::set<std::string> names;
  std::set<std::filesystem::path> canonical_seen;
  auto take = [&](const std::filesystem::path& file, const std::string& origin) {
    std::error_code ec;
    auto canonical = std::filesystem::weakly_canonical(file, ec);
    if (ec) canonical = file;
    if (!canonical_seen.insert(canonical).second) return;
    const std::string name = file.filename().string();
    if (!names.insert(name).second) {
      if (shadowed != nullptr) shadowed->push_back(file.string() + " (shadowed by an earlier " + name + ")");
      return;
    }
    out.push_back({file, origin});
  };
  for (const auto& location : path) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(location.path, ec)) {
      take(location.path, location.origin);
      continue;
    }
    if (!std::filesystem::is_directory(location.path, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(location.path, ec)) {
      const std::string name = entry.path().filename().string();
      if (is_plugin_name(name) && (entry.is_regular_file(ec) || entry.is_symlink(ec))) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) take(f, location.origin);
  }
  return out;
}

}  // namespace r2r::core
