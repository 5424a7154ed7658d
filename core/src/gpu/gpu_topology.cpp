// SPDX-License-Identifier: MIT
#include <r2r/core/gpu_topology.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace r2r::core {
namespace fs = std::filesystem;
namespace {

std::map<std::string, std::string> read_properties(const fs::path& file) {
  std::map<std::string, std::string> props;
  std::ifstream in(file);
  std::string key, value;
  while (in >> key >> value) props[key] = value;
  return props;
}

std::uint64_t number(const std::map<std::string, std::string>& props, const std::string& key, std::uint64_t fallback) {
  auto it = props.find(key);
  if (it == props.end()) return fallback;
  try {
    return std::stoull(it->second);
  } catch (...) {
    return fallback;
  }
}

}  // namespace

std::string gfx_name(std::uint32_t v) {
  if (v == 0) return {};
  std::ostringstream out;
  out << "gfx" << v / 10000 << (v / 100) % 100 << std::hex << v % 100;
  return out.str();
}

std::string gpu_discovery::summary() const {
  if (gpus.empty()) {
    if (!kfd_present && !topology_present)
      return "no AMD GPU: /dev/kfd and the KFD topology are absent (amdgpu not loaded or no GPU)";
    if (!kfd_present) return "no AMD GPU usable: the KFD topology exists but /dev/kfd is absent";
    return "no AMD GPU: /dev/kfd exists but the KFD topology lists no GPU node";
  }
  std::ostringstream out;
  out << gpus.size() << " AMD GPU" << (gpus.size() == 1 ? "" : "s") << ":";
  for (const auto& g : gpus) out << " [" << g.index << "] " << g.gfx << " " << g.render_node;
  if (!kfd_present) out << " (but /dev/kfd is absent)";
  return out.str();
}

gpu_discovery discover_amd_gpus(const fs::path& root) {
  gpu_discovery found;
  std::error_code ec;
  found.kfd_present = fs::exists(root / "dev/kfd", ec);
  const fs::path nodes = root / "sys/class/kfd/kfd/topology/nodes";
  found.topology_present = fs::is_directory(nodes, ec);
  if (!found.topology_present) return found;
  std::vector<int> numbers;
  for (const auto& entry : fs::directory_iterator(nodes, ec)) {
    const std::string n = entry.path().filename().string();
    if (!n.empty() && std::all_of(n.begin(), n.end(), ::isdigit)) numbers.push_back(std::stoi(n));
  }
  std::sort(numbers.begin(), numbers.end());
  for (int n : numbers) {
    const fs::path dir = nodes / std::to_string(n);
    const auto props = read_properties(dir / "properties");
    const auto version = static_cast<std::uint32_t>(number(props, "gfx_target_version", 0));
    if (version == 0) continue;  // a CPU node
    amd_gpu g;
    g.index = static_cast<int>(found.gpus.size());
    g.node = n;
    g.gfx_target_version = version;
    g.gfx = gfx_name(version);
    g.render_minor = static_cast<int>(number(props, "drm_render_minor", static_cast<std::uint64_t>(-1)));
    if (g.render_minor >= 0) g.render_node = "/dev/dri/renderD" + std::to_string(g.render_minor);
    std::ifstream name(dir / "name");
    std::getline(name, g.name);
    found.gpus.push_back(std::move(g));
  }
  return found;
}

std::map<std::string, std::string> gpu_pin::describe() const {
  return {{"index", std::to_string(gpu.index)},
          {"render_minor", std::to_string(gpu.render_minor)},
          {"host_kfd", kfd},
          {"host_render", gpu.render_node},
          {"visible_devices", env.at("HIP_VISIBLE_DEVICES")}};
}

tl::expected<gpu_pin, error> pin_gpu(const gpu_discovery& found, int index) {
  if (found.gpus.empty()) return tl::unexpected(error{phase::run, found.summary() + "; cannot pin a GPU"});
  if (index < 0 || index >= static_cast<int>(found.gpus.size())) {
    return tl::unexpected(
        error{phase::run, "GPU index " + std::to_string(index) + " is out of range: " + found.summary()});
  }
  const auto& g = found.gpus[static_cast<std::size_t>(index)];
  if (g.render_minor < 0) {
    return tl::unexpected(error{phase::run, "GPU " + std::to_string(index) + " (" + g.gfx +
                                                ") has no drm_render_minor in its KFD properties; cannot pin it"});
  }
  gpu_pin pin;
  pin.gpu = g;
  pin.env = {{"HIP_VISIBLE_DEVICES", "0"}, {"ROCR_VISIBLE_DEVICES", "0"}};
  return pin;
}

}  // namespace r2r::core
