// SPDX-License-Identifier: MIT
#include <r2r/core/pipeline_session.hpp>

#include <r2r/core/logging.hpp>

namespace r2r::core {

pipeline_session::pipeline_session(pipeline_config config, std::shared_ptr<cancel_token> cancel)
    : config_(std::move(config)), cancel_(std::move(cancel)) {}

pipeline_session::~pipeline_session() {
  stages_.clear();
  aliases_.clear();
  while (!owned_.empty()) owned_.pop_back();  // reverse creation order
}

result<std::unique_ptr<pipeline_session>> pipeline_session::create(const pipeline_config& config,
                                                                   const plugin_registry& registry,
                                                                   std::shared_ptr<cancel_token> cancel) {
  if (auto problems = check_pipeline_plugins(config, registry); !problems.empty()) {
    std::string message = std::to_string(problems.size()) + " problem(s) in " + config.file.string() + ":";
    for (const auto& p : problems) message += "\n  " + p.to_string();
    return fail(phase::config, message);
  }
  if (!cancel) cancel = std::make_shared<cancel_token>();
  std::unique_ptr<pipeline_session> session(new pipeline_session(config, cancel));

  auto make = [&](const std::string& name, const plugin_use& use) -> result<plugin_instance*> {
    instance_options options;
    options.name = name;
    if (use.log_level) options.log_level = logging::parse_level(*use.log_level);
    options.services = session.get();
    options.cancel = cancel;
    auto instance = plugin_instance::create(*registry.find(use.use), use.config, options);
    if (!instance) {
      auto e = instance.error();
      e.message = use.pointer + ": " + e.message;
      return tl::unexpected(e);
    }
    session->owned_.emplace_back(name, std::move(*instance));
    return session->owned_.back().second.get();
  };
  for (const auto& [name, use] : session->config_.instances) {
    if (auto made = make(name, use); !made) return tl::unexpected(made.error());
  }
  for (const auto& stage : session->config_.stages) {
    auto made = make(stage.name, stage.plugin);
    if (!made) return tl::unexpected(made.error());
    session->stages_.push_back({&stage, *made});
  }
  return session;
}

plugin_instance* pipeline_session::resolve(std::string_view name) {
  for (auto& [owned_name, instance] : owned_) {
    if (owned_name == name) return instance.get();
  }
  for (auto& [alias_name, instance] : aliases_) {
    if (alias_name == name) return instance;
  }
  return nullptr;
}

bool pipeline_session::alias(const std::string& name, const std::string& target) {
  for (const auto& [owned_name, instance] : owned_) {
    if (owned_name == name) return false;
  }
  plugin_instance* to = nullptr;
  for (auto& [owned_name, instance] : owned_) {
    if (owned_name == target) to = instance.get();
  }
  if (to == nullptr) return false;
  for (auto& [alias_name, instance] : aliases_) {
    if (alias_name == name) {
      instance = to;
      return true;
    }
  }
  aliases_.emplace_back(name, to);
  return true;
}

}  // namespace r2r::core
