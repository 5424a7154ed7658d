// SPDX-License-Identifier: MIT
// Where the playbook stands, folded from the turn history alone: the next step, failed runs per
// step, every fix tried (with the failure signature it was tried for and its outcome), the failure
// still open, and the workload / claim outcome. The playbook returns it as its `state` and rebuilds
// it from the history each turn; the state is only read when the executor trimmed the oldest turns.
// Pure functions; no I/O.
#pragma once

#include "knowledge_base.hpp"
#include "steps.hpp"

#include <r2r/sdk/kinds/policy.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::policy {

/// A failed (or denied) run of a step, or warnings found in a successful one.
struct failure {
  std::size_t step = 0;
  bool after_success = false;  // on_success classes found in a step that succeeded (e.g. NVIDIA wheels)
  std::int64_t turn = 0;
  int exit_code = 0;
  bool timed_out = false;
  std::string signature;       // the primary class's signature, else the executor's, else exit:<code>
  std::vector<match> matches;  // classes that matched, priority order (info classes left out)
  std::string tail;            // last lines of the output
  std::string denied;          // non-empty when a guard denied the step: "guard: reason (unlock: ...)"
};

/// One fix proposed for an open failure, and what happened.
struct attempt {
  std::int64_t turn = 0;
  std::size_t step = 0;
  std::string signature;
  nlohmann::json action;
  std::string outcome;  // ok | failed (exit N) | denied by G: reason
};

struct progress {
  std::int64_t through_turn = -1;  // last turn folded
  std::size_t step = 0;            // next step to run
  std::map<std::size_t, int> failed_runs;
  std::vector<attempt> attempts;
  std::optional<failure> open;
  std::int64_t workload_turn = -1;  // turn the workload exited 0, or -1
  std::string claim_denied;         // the success guard's reason, once claim_success was denied
  bool claimed = false;             // claim_success was allowed
  bool gave_up = false;
  std::string venv;  // a workspace virtual environment a fix created ("activates"); later actions run in it
};
void to_json(nlohmann::json& j, const progress& p);
/// Throws nlohmann::json::exception on a malformed state.
void from_json(const nlohmann::json& j, progress& p);

/// What a fold needs besides the history.
struct fold_context {
  const std::vector<step>* steps = nullptr;
  const knowledge_base* kb = nullptr;
  variables vars;  // arch, kernel_build_command
};

/// The knowledge-base fixes for `f` (every non-info match, primary first), filled for its step.
std::vector<fix> knowledge_fixes(const failure& f, const fold_context& ctx, const std::string& venv = {});

/// `action` run inside the workspace virtual environment `venv` (unchanged when `venv` is empty):
/// a command gets `. VENV/bin/activate && ` in front; an install {manager pip|uv, packages} becomes
/// the run `. VENV/bin/activate && python -m pip install 'a' 'b'` (the venv's pip, not the system's).
nlohmann::json in_venv(const nlohmann::json& action, const std::string& venv);

/// `start` advanced by every turn of `history` after start.through_turn.
progress fold(progress start, const std::vector<sdk::policy::turn_record>& history, const fold_context& ctx);

/// True when `attempts` holds `action` tried for `signature`.
bool tried(const std::vector<attempt>& attempts, const std::string& signature, const nlohmann::json& action);

}  // namespace r2r::plugins::policy
