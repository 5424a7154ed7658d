// SPDX-License-Identifier: MIT
// r2r-plugin-manifest --plugin LIB.so --out LIB.plugin.json [--expect-id ID] [--expect-version V]
// Loads a built plugin through the same loader as repo2rocm and writes its sidecar manifest from
// what the binary says, so the manifest cannot drift from the code. Fails (exit 1) when the plugin
// does not load cleanly (bad ABI, invalid schema, example config that violates the schema, ...) or
// disagrees with the expected id or version, which makes such a plugin fail its own build.
#include <r2r/core/plugin_loader.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

namespace {

int usage() {
  std::cerr << "usage: r2r-plugin-manifest --plugin LIB.so --out LIB.plugin.json [--expect-id ID] "
               "[--expect-version VERSION]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string plugin, out, expect_id, expect_version;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage();
    if (arg == "--plugin")
      plugin = argv[++i];
    else if (arg == "--out")
      out = argv[++i];
    else if (arg == "--expect-id")
      expect_id = argv[++i];
    else if (arg == "--expect-version")
      expect_version = argv[++i];
    else
      return usage();
  }
  if (plugin.empty() || out.empty()) return usage();

  std::error_code ec;
  const auto library = std::filesystem::absolute(plugin, ec).lexically_normal();
  std::filesystem::remove(r2r::core::manifest_path_for(library), ec);  // stale; being regenerated
  const auto outcome = r2r::core::load_plugin_file(library);
  for (const auto& d : outcome.disabled) std::cerr << "r2r-plugin-manifest: " << d.reason.to_string() << "\n";
  if (!outcome.disabled.empty() || outcome.plugins.empty()) return 1;
  if (!expect_id.empty()) {
    bool found = false;
    for (const auto& p : outcome.plugins) {
      if (p.info.id != expect_id) continue;
      found = true;
      if (!expect_version.empty() && p.info.version != expect_version) {
        std::cerr << "r2r-plugin-manifest: " << library.string() << ": version is " << p.info.version
                  << " but the build declares " << expect_version << "\n";
        return 1;
      }
    }
    if (!found) {
      std::cerr << "r2r-plugin-manifest: " << library.string() << " does not contain plugin " << expect_id
                << " declared by the build\n";
      return 1;
    }
  }
  const std::filesystem::path target = out;
  const std::filesystem::path temp = target.string() + ".tmp";
  {
    std::ofstream file(temp, std::ios::binary | std::ios::trunc);
    file << r2r::core::make_manifest(outcome.plugins, library).dump(2) << "\n";
    if (!file) {
      std::cerr << "r2r-plugin-manifest: cannot write " << temp.string() << "\n";
      return 1;
    }
  }
  std::filesystem::rename(temp, target, ec);  // atomic replace
  if (ec) {
    std::cerr << "r2r-plugin-manifest: cannot move " << temp.string() << " to " << target.string() << ": "
              << ec.message() << "\n";
    return 1;
  }
  return 0;
}
