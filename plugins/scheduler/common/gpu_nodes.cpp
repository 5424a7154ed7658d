// SPDX-License-Identifier: MIT
#include "gpu_nodes.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace r2r::plugins::scheduler {
namespace fs = std::filesystem;

std::vector<gpu_node> list_gpu_nodes(const std::string& root) {
  const fs::path nodes = fs::path(root) / "sys/class/kfd/kfd/topology/nodes";
  std::vector<int> numbers;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(nodes, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      numbers.push_back(std::stoi(name));
  }
  std::sort(numbers.begin(), numbers.end());
  std::vector<gpu_node> out;
  for (const int n : numbers) {
    std::ifstream in(nodes / std::to_string(n) / "properties");
    std::string line;
    long long gfx = 0, minor = -1;
    while (std::getline(in, line)) {
      std::istringstream s(line);
      std::string key;
      long long value = 0;
      if (!(s >> key >> value)) continue;
      if (key == "gfx_target_version") gfx = value;
      if (key == "drm_render_minor") minor = value;
    }
    if (gfx == 0) continue;
    gpu_node g;
    g.index = static_cast<int>(out.size());
    g.node = n;
    if (minor >= 0) g.render_node = "/dev/dri/renderD" + std::to_string(minor);
    out.push_back(g);
  }
  return out;
}

}  // namespace r2r::plugins::scheduler
