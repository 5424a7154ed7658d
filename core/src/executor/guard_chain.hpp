// SPDX-License-Identifier: MIT
// Every `guard` stage of a pipeline, in file order. check() is fail-closed: the first deny wins,
// and a guard that errors or answers with something that is not a decision denies, its stage name
// in the reason. OWNERSHIP: borrows the session's instances.
#pragma once

#include <r2r/core/pipeline_session.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace r2r::executor {

struct guard_verdict {
  bool allowed = true;
  std::string guard;  // stage name of the denying guard
  std::string reason;
  std::string unlock;
  nlohmann::json ledger = nlohmann::json::array();  // [{guard, component, level, note}] of every allowing guard

  nlohmann::json to_json() const;
};

class guard_chain {
 public:
  explicit guard_chain(core::pipeline_session& session);
  guard_verdict check(const nlohmann::json& action, const nlohmann::json& context) const;
  /// Evidence of every guard: [{guard, kind, detail}]; a guard that fails adds kind "guard_error".
  nlohmann::json observe(const nlohmann::json& action, const nlohmann::json& observation,
                         const nlohmann::json& context) const;
  std::size_t size() const noexcept { return guards_.size(); }

 private:
  struct member {
    std::string name;
    core::plugin_instance* instance;
  };
  std::vector<member> guards_;
};

}  // namespace r2r::executor
