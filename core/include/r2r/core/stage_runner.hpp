// SPDX-License-Identifier: MIT
// Runs the stages of a pipeline session in file order. Consecutive entries of the same stage form
// one group (a converter chain, a guard chain) handed to that stage's handler together. Later
// features register their stage handlers; a stage without a handler is an error, never skipped.
// THREADING: one run at a time per runner.
#pragma once

#include <r2r/core/pipeline_session.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace r2r::core {

struct stage_group {
  std::string stage;
  std::vector<pipeline_session::stage_member> members;
};

/// What a handler sees: its group, the session (for services) and the run state that stages
/// read and extend (plan, conversion results, ...).
struct stage_context {
  const stage_group& group;
  pipeline_session& session;
  nlohmann::json& state;
};

struct stage_report {
  std::string stage;
  std::vector<std::string> members;  // stage entry names
  double seconds = 0;
  bool ok = false;
  std::string error;  // empty when ok
};

class stage_runner {
 public:
  using handler = std::function<result<void>(stage_context&)>;

  /// Registers the handler of `stage` (replacing any previous one).
  void on(const std::string& stage, handler h);

  /// The groups of `session` in run order.
  static std::vector<stage_group> groups_of(const pipeline_session& session);

  /// Runs every group; stops at the first failure or cancellation. The reports cover the stages
  /// that ran, the failed one included.
  result<std::vector<stage_report>> run(pipeline_session& session, nlohmann::json& state) const;

 private:
  std::map<std::string, handler, std::less<>> handlers_;
};

}  // namespace r2r::core
