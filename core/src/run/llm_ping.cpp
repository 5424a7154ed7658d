// SPDX-License-Identifier: MIT
#include "llm_ping.hpp"

#include <r2r/core/plugin_kind.hpp>

#include <algorithm>

namespace r2r::run {
namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

}  // namespace

nlohmann::json ping_request() {
  return nlohmann::json::parse(R"({
    "system": "This is a connectivity check. Reply with the single word: pong",
    "messages": [{"role": "user", "content": [{"type": "text", "text": "ping"}]}],
    "max_tokens": 16
  })");
}

core::result<std::string> choose_llm_instance(const core::pipeline_config& config,
                                              const core::plugin_registry& registry, const std::string& instance) {
  std::vector<std::string> llm_names;
  std::vector<std::string> all_names;
  for (const auto& [name, use] : config.instances) {
    all_names.push_back(name);
    const auto* plugin = registry.find(use.use);
    if (plugin != nullptr && plugin->info.kind == R2R_KIND_LLM) llm_names.push_back(name);
  }
  if (!instance.empty()) {
    if (config.instances.count(instance) == 0) {
      return core::fail(core::phase::usage,
                        "the pipeline has no instance named '" + instance + "'; its instances are: " + join(all_names));
    }
    if (std::find(llm_names.begin(), llm_names.end(), instance) == llm_names.end()) {
      return core::fail(core::phase::usage, "instance '" + instance + "' uses " + config.instances.at(instance).use +
                                                ", which is not an llm plugin; llm instances: " + join(llm_names));
    }
    return instance;
  }
  if (llm_names.empty()) {
    return core::fail(core::phase::config,
                      "the pipeline declares no llm instance; add one under \"instances\" (for example \"llm\": "
                      "{\"use\": \"r2r.llm.anthropic\", \"config\": {...}}, see docs/llm.md)",
                      {}, config.file.string());
  }
  if (llm_names.size() > 1) {
    return core::fail(core::phase::usage, "the pipeline declares several llm instances (" + join(llm_names) +
                                              "); choose one with --instance");
  }
  return llm_names.front();
}

}  // namespace r2r::run
