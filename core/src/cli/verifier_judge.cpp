// SPDX-License-Identifier: MIT
#include "verifier_judge.hpp"

#include <r2r/core/plugin_instance.hpp>

#include <map>
#include <memory>

namespace r2r::cli {

report::judge_function registry_judge(const core::plugin_registry& registry) {
  auto instances = std::make_shared<std::map<std::string, std::unique_ptr<core::plugin_instance>>>();
  return [&registry, instances](const std::string& id, const nlohmann::json& request) -> core::result<nlohmann::json> {
    auto it = instances->find(id);
    if (it == instances->end()) {
      const auto* plugin = registry.find(id);
      if (plugin == nullptr || plugin->info.kind != R2R_KIND_VERIFIER)
        return core::fail(core::phase::registry,
                          "verifier " + id +
                              " is not installed here, so its stored evidence cannot be re-judged; install it or "
                              "pass --plugin-path",
                          id);
      core::instance_options options;
      options.name = id + " (judge)";
      auto instance = core::plugin_instance::create(*plugin, nlohmann::json::object(), options);
      if (!instance) return tl::unexpected(instance.error());
      it = instances->emplace(id, std::move(*instance)).first;
    }
    return it->second->call("judge", request);
  };
}

}  // namespace r2r::cli
