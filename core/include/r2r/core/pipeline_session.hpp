// SPDX-License-Identifier: MIT
// The live plugin instances of one pipeline: named service instances ("instances") and the stage
// plugins ("pipeline"), created only after the whole file and every plugin config validated.
// Also the service directory that routes host call_service requests by name.
// OWNERSHIP: the session owns its instances and destroys them in reverse creation order; the
// registry it was created from must outlive it. THREADING: create/destroy from one thread.
#pragma once

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace r2r::core {

class pipeline_session : public service_directory {
 public:
  /// Validates (every problem reported, phase::config) and then creates every instance.
  static result<std::unique_ptr<pipeline_session>> create(const pipeline_config& config,
                                                          const plugin_registry& registry,
                                                          std::shared_ptr<cancel_token> cancel = {});
  ~pipeline_session() override;

  plugin_instance* resolve(std::string_view name) override;

  /// Makes `name` resolve to the instance of the instance or stage entry `target` (e.g. the service
  /// "sandbox" to the sandbox stage a run chose among alternatives). False when `target` is not one
  /// of the session's, or `name` already names an instance or entry of its own.
  bool alias(const std::string& name, const std::string& target);

  /// Stage entries and their instances, in file order.
  struct stage_member {
    const pipeline_stage* stage;
    plugin_instance* instance;
  };
  const std::vector<stage_member>& stages() const noexcept { return stages_; }
  const pipeline_config& config() const noexcept { return config_; }
  const std::shared_ptr<cancel_token>& cancel() const noexcept { return cancel_; }

 private:
  explicit pipeline_session(pipeline_config config, std::shared_ptr<cancel_token> cancel);
  pipeline_config config_;
  std::shared_ptr<cancel_token> cancel_;
  std::vector<std::pair<std::string, std::unique_ptr<plugin_instance>>> owned_;  // creation order
  std::vector<stage_member> stages_;
  std::vector<std::pair<std::string, plugin_instance*>> aliases_;
};

}  // namespace r2r::core
