// SPDX-License-Identifier: MIT
#include "playbook_policy.hpp"

#include <r2r/sdk/error.hpp>

#include <stdexcept>

namespace r2r::plugins::policy {
namespace {

using sdk::policy::proposal;

std::string describe(const nlohmann::json& action) {
  const std::string type = action.value("type", std::string());
  if (action.contains("command")) return type + " `" + action.at("command").get<std::string>() + "`";
  if (action.contains("packages")) {
    std::string p;
    for (const auto& x : action.at("packages")) p += (p.empty() ? "" : " ") + x.get<std::string>();
    return type + " (" + action.value("manager", std::string()) + ") " + p;
  }
  return action.dump();
}

proposal make(nlohmann::json action, std::string rationale, const progress& p) {
  proposal out;
  out.action = std::move(action);
  out.rationale = std::move(rationale);
  out.state = p;
  return out;
}

proposal give_up(const std::string& reason, const progress& p) {
  return make(nlohmann::json{{"type", "give_up"}, {"reason", reason}}, reason, p);
}

/// Fix attempts made for `step`, as "ACTION -> OUTCOME" items.
std::string attempts_text(const progress& p, std::size_t step) {
  std::string out;
  for (const auto& a : p.attempts) {
    if (a.step != step) continue;
    out += (out.empty() ? "" : "; ") + describe(a.action) + " for " + a.signature + " -> " + a.outcome;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

void from_json(const nlohmann::json& j, playbook_policy::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object, found " + std::string(j.type_name()));
  const playbook_policy::config d;
  c.max_retries_per_step = j.value("max_retries_per_step", d.max_retries_per_step);
  c.knowledge_file = j.value("knowledge_file", d.knowledge_file);
  c.allow_degradation_fixes = j.value("allow_degradation_fixes", d.allow_degradation_fixes);
  c.use_hints = j.value("use_hints", d.use_hints);
  c.extra_steps.clear();
  for (const auto& s : j.value("extra_steps", nlohmann::json::array())) {
    extra_step e;
    e.id = s.value("id", std::string());
    e.type = s.value("type", std::string("run"));
    e.command = s.value("command", std::string());
    c.extra_steps.push_back(std::move(e));
  }
}

playbook_policy::playbook_policy(const config& cfg, const sdk::host& host) : config_(cfg), kb_(nullptr), host_(host) {
  if (cfg.max_retries_per_step < 0) {
    throw sdk::invalid_argument("max_retries_per_step must be 0 or more, found " +
                                std::to_string(cfg.max_retries_per_step));
  }
  for (std::size_t i = 0; i < cfg.extra_steps.size(); ++i) {
    const auto& e = cfg.extra_steps[i];
    if (e.command.empty() || (e.type != "run" && e.type != "build_kernel")) {
      throw sdk::invalid_argument("extra_steps[" + std::to_string(i) +
                                  "]: expected a non-empty command and type run or build_kernel, found type '" +
                                  e.type + "'");
    }
  }
  try {
    if (!cfg.knowledge_file.empty()) own_kb_ = knowledge_base::from_file(cfg.knowledge_file);
  } catch (const std::invalid_argument& e) {
    throw sdk::invalid_argument(e.what());
  }
  kb_ = own_kb_ ? &*own_kb_ : &knowledge_base::builtin();
}

proposal playbook_policy::propose(const sdk::policy::propose_request& request) {
  std::vector<step> steps;
  try {
    steps = plan_steps(request.plan, config_.extra_steps);
  } catch (const std::invalid_argument& e) {
    throw sdk::invalid_argument(e.what());
  }
  fold_context ctx;
  ctx.steps = &steps;
  ctx.kb = kb_;
  ctx.vars["arch"] = !request.context.arch.empty() ? request.context.arch : request.plan.value("arch", std::string());
  ctx.vars["kernel_build_command"] = kernel_build_command(steps);

  // The history is complete when it starts at turn 0; otherwise the executor trimmed it and the
  // state of the previous turn carries what the dropped turns established.
  progress start;
  const bool trimmed = !request.history.empty() && request.history.front().turn > 0;
  if (trimmed && request.state.is_object()) {
    try {
      start = request.state.get<progress>();
    } catch (const nlohmann::json::exception& e) {
      throw sdk::invalid_argument(std::string("the history was trimmed and `state` is not a playbook state (") +
                                  e.what() + "); resume from the trajectory's recorded state");
    }
  }
  const progress p = fold(start, request.history, ctx);

  if (p.gave_up) return give_up("the run already gave up at an earlier turn", p);
  if (p.claimed) {
    return make(
        nlohmann::json{{"type", "claim_success"}, {"reason", "the workload exited 0 and claim_success was accepted"}},
        "claim already accepted", p);
  }
  if (!p.claim_denied.empty()) {
    return give_up("workload_completed_awaiting_verifier: the workload `" +
                       steps.back().action.at("command").get<std::string>() + "` exited 0 at turn " +
                       std::to_string(p.workload_turn) + "; claim_success was denied by " + p.claim_denied +
                       "; the verdict belongs to the verifier stage",
                   p);
  }
  if (p.workload_turn >= 0) {
    return make(nlohmann::json{{"type", "claim_success"},
                               {"reason", "the workload `" + steps.back().action.at("command").get<std::string>() +
                                              "` exited 0 at turn " + std::to_string(p.workload_turn) +
                                              "; the verifier must confirm it ran on the AMD GPU"}},
                "workload finished; claim success for the verifier to check", p);
  }

  if (p.open) {
    const failure& f = *p.open;
    const step& s = steps.at(f.step);
    const std::string where = "step `" + s.id + "` (" + s.origin + ": " + describe(s.action) + ")";
    if (!f.denied.empty()) {
      return give_up(where + " was denied by " + f.denied + "; the playbook has no other way to run it", p);
    }
    const auto runs = p.failed_runs.count(f.step) ? p.failed_runs.at(f.step) : 0;
    if (!f.after_success && runs > config_.max_retries_per_step) {
      return give_up(where + " failed " + std::to_string(runs) + " times (max_retries_per_step " +
                         std::to_string(config_.max_retries_per_step) + "); last signature " + f.signature +
                         "; fixes tried: " + attempts_text(p, f.step),
                     p);
    }
    struct candidate {
      nlohmann::json action;
      std::string why;
    };
    std::vector<candidate> candidates;
    for (const auto& x : knowledge_fixes(f, ctx, p.venv)) {
      if (!x.degradation.empty() && !config_.allow_degradation_fixes) continue;
      candidates.push_back({x.action, "knowledge fix " + x.id + ": " + x.description +
                                          (x.degradation.empty() ? "" : " (degradation " + x.degradation + ")")});
    }
    if (config_.use_hints) {
      for (const auto& h : request.hints) {
        if (h.fix.is_object() && h.fix.contains("type") && h.fix.at("type").is_string()) {
          candidates.push_back({h.fix, h.source + " hint: " + h.text});
        }
      }
    }
    for (const auto& c : candidates) {
      if (tried(p.attempts, f.signature, c.action)) continue;
      return make(
          c.action,
          where + " " + (f.after_success ? "succeeded with a warning " : "failed with ") + f.signature + "; " + c.why,
          p);
    }
    if (!f.after_success) {
      std::string reason = where + " failed with signature " + f.signature +
                           "; fixes tried: " + attempts_text(p, f.step) + "; no other known fix applies";
      if (!f.matches.empty()) {
        reason += "; advice (" + f.matches.front().class_id + "): " + kb_->advice(f.matches.front(), ctx.vars);
      } else {
        reason += "; the output matches no known failure class; last output:\n" + f.tail;
      }
      return give_up(reason, p);
    }
    // A warning with no fix left: carry on with the next step.
  }
  if (p.step >= steps.size()) return give_up("every step of the plan ran and the workload did not exit 0", p);
  const step& next = steps.at(p.step);
  return make(in_venv(next.action, p.venv),
              "step `" + next.id + "` (" + next.origin + ")" +
                  (p.venv.empty() ? std::string() : " in the workspace virtual environment " + p.venv),
              p);
}

}  // namespace r2r::plugins::policy
