// SPDX-License-Identifier: MIT
#include "progress.hpp"

#include <algorithm>

namespace r2r::plugins::policy {
namespace {

using sdk::policy::turn_record;

constexpr std::size_t tail_lines = 6;
constexpr std::size_t tail_bytes = 800;

std::string tail_of(const turn_record& t) {
  const std::string& text =
      t.stderr_text.find_first_not_of(" \t\r\n") != std::string::npos ? t.stderr_text : t.stdout_text;
  std::vector<std::string> lines;
  std::size_t end = text.size();
  while (end > 0 && lines.size() < tail_lines) {
    const std::size_t start = text.rfind('\n', end - 1);
    const std::size_t from = start == std::string::npos ? 0 : start + 1;
    std::string line = text.substr(from, end - from);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) lines.push_back(line);
    if (start == std::string::npos) break;
    end = start;
  }
  std::string out;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) out += (out.empty() ? "" : "\n") + *it;
  if (out.size() > tail_bytes) out = "..." + out.substr(out.size() - tail_bytes);
  return out;
}

bool succeeded(const turn_record& t) {
  return t.decision == "allow" && t.observed && t.exit_code == 0 && !t.timed_out;
}

std::string outcome_of(const turn_record& t) {
  if (t.decision == "deny")
    return "denied by " + (t.guard.empty() ? std::string("a guard") : t.guard) + ": " + t.reason;
  if (!t.observed) return "no observation";
  if (t.timed_out) return "timed out";
  if (t.exit_code != 0) return "failed (exit " + std::to_string(t.exit_code) + ")";
  return "ok";
}

/// Classifies a turn's output; `after_success` looks only for on_success classes.
failure classify(const turn_record& t, std::size_t step, bool after_success, const knowledge_base& kb) {
  failure f;
  f.step = step;
  f.after_success = after_success;
  f.turn = t.turn;
  f.exit_code = t.exit_code;
  f.timed_out = t.timed_out;
  if (t.decision == "deny") {
    f.denied = (t.guard.empty() ? std::string("a guard") : t.guard) + ": " + t.reason +
               (t.unlock.empty() ? std::string() : " (unlock: " + t.unlock + ")");
    f.signature = "denied:" + (t.guard.empty() ? std::string("guard") : t.guard);
    return f;
  }
  for (auto& m : kb.classify(t.stdout_text + "\n" + t.stderr_text, after_success)) {
    if (m.severity != "info") f.matches.push_back(std::move(m));
  }
  f.tail = tail_of(t);
  if (!f.matches.empty()) {
    f.signature = f.matches.front().signature;
  } else if (!t.error_signature.empty()) {
    f.signature = t.error_signature;
  } else {
    f.signature = t.timed_out ? std::string("timeout") : "exit:" + std::to_string(t.exit_code);
  }
  return f;
}

std::optional<std::size_t> step_of(const nlohmann::json& action, const std::vector<step>& steps,
                                   const std::string& venv) {
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (steps[i].action == action || (!venv.empty() && in_venv(steps[i].action, venv) == action)) return i;
  return std::nullopt;
}

std::string quoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// A step ran (or was denied): advance, or open a failure.
void on_step_run(progress& p, std::size_t i, const turn_record& t, const fold_context& ctx) {
  const auto& steps = *ctx.steps;
  if (succeeded(t)) {
    p.step = std::max(p.step, i + 1);
    p.open.reset();
    if (steps[i].workload) {
      p.workload_turn = t.turn;
      return;
    }
    failure warn = classify(t, i, true, *ctx.kb);
    if (!warn.matches.empty()) p.open = std::move(warn);
    return;
  }
  p.failed_runs[i] += 1;
  p.open = classify(t, i, false, *ctx.kb);
}

}  // namespace

void to_json(nlohmann::json& j, const progress& p) {
  nlohmann::json failed = nlohmann::json::object();
  for (const auto& [step, n] : p.failed_runs) failed[std::to_string(step)] = n;
  nlohmann::json attempts = nlohmann::json::array();
  for (const auto& a : p.attempts) {
    attempts.push_back(
        {{"turn", a.turn}, {"step", a.step}, {"signature", a.signature}, {"action", a.action}, {"outcome", a.outcome}});
  }
  j = nlohmann::json{{"through_turn", p.through_turn},
                     {"step", p.step},
                     {"failed_runs", failed},
                     {"attempts", attempts},
                     {"workload_turn", p.workload_turn},
                     {"claim_denied", p.claim_denied},
                     {"claimed", p.claimed},
                     {"gave_up", p.gave_up}};
  if (!p.venv.empty()) j["venv"] = p.venv;
  if (p.open) {
    const failure& f = *p.open;
    j["open"] = {{"step", f.step},           {"after_success", f.after_success},
                 {"turn", f.turn},           {"exit_code", f.exit_code},
                 {"timed_out", f.timed_out}, {"signature", f.signature},
                 {"matches", f.matches},     {"tail", f.tail},
                 {"denied", f.denied}};
  }
}

void from_json(const nlohmann::json& j, progress& p) {
  p = progress{};
  p.through_turn = j.at("through_turn").get<std::int64_t>();
  p.step = j.at("step").get<std::size_t>();
  for (const auto& [step, n] : j.at("failed_runs").items()) p.failed_runs[std::stoul(step)] = n.get<int>();
  for (const auto& a : j.at("attempts")) {
    p.attempts.push_back({a.at("turn").get<std::int64_t>(), a.at("step").get<std::size_t>(),
                          a.at("signature").get<std::string>(), a.at("action"), a.at("outcome").get<std::string>()});
  }
  p.workload_turn = j.at("workload_turn").get<std::int64_t>();
  p.claim_denied = j.at("claim_denied").get<std::string>();
  p.claimed = j.at("claimed").get<bool>();
  p.gave_up = j.at("gave_up").get<bool>();
  p.venv = j.value("venv", std::string());
  if (auto o = j.find("open"); o != j.end()) {
    failure f;
    f.step = o->at("step").get<std::size_t>();
    f.after_success = o->at("after_success").get<bool>();
    f.turn = o->at("turn").get<std::int64_t>();
    f.exit_code = o->at("exit_code").get<int>();
    f.timed_out = o->at("timed_out").get<bool>();
    f.signature = o->at("signature").get<std::string>();
    f.matches = o->at("matches").get<std::vector<match>>();
    f.tail = o->at("tail").get<std::string>();
    f.denied = o->at("denied").get<std::string>();
    p.open = std::move(f);
  }
}

nlohmann::json in_venv(const nlohmann::json& action, const std::string& venv) {
  if (venv.empty() || !action.is_object()) return action;
  const std::string activate = ". " + venv + "/bin/activate && ";
  if (action.contains("command") && action.at("command").is_string()) {
    nlohmann::json out = action;
    if (action.value("type", std::string()) == "install") out["type"] = "run";  // two commands: not one install
    out["command"] = activate + action.at("command").get<std::string>();
    return out;
  }
  const std::string manager = action.value("manager", std::string());
  if (action.value("type", std::string()) == "install" && (manager == "pip" || manager == "uv") &&
      action.contains("packages") && action.at("packages").is_array()) {
    std::string command = activate + "python -m pip install";
    for (const auto& p : action.at("packages"))
      if (p.is_string()) command += " " + quoted(p.get<std::string>());
    return nlohmann::json{{"type", "run"}, {"command", command}};
  }
  return action;
}

std::vector<fix> knowledge_fixes(const failure& f, const fold_context& ctx, const std::string& venv) {
  std::vector<fix> out;
  if (f.step >= ctx.steps->size()) return out;
  variables vars = ctx.vars;
  const auto& action = (*ctx.steps)[f.step].action;
  vars["command"] = action.value("command", std::string());
  vars["action_type"] = action.value("type", std::string());
  for (const auto& m : f.matches) {
    for (auto& x : ctx.kb->fixes(m, vars)) {
      x.action = in_venv(x.action, venv);
      out.push_back(std::move(x));
    }
  }
  return out;
}

bool tried(const std::vector<attempt>& attempts, const std::string& signature, const nlohmann::json& action) {
  return std::any_of(attempts.begin(), attempts.end(),
                     [&](const attempt& a) { return a.signature == signature && a.action == action; });
}

progress fold(progress p, const std::vector<turn_record>& history, const fold_context& ctx) {
  const auto& steps = *ctx.steps;
  for (const auto& t : history) {
    if (t.turn <= p.through_turn) continue;
    p.through_turn = t.turn;
    const std::string type = t.action_type();
    if (type == "claim_success") {
      if (t.decision == "deny") {
        p.claim_denied = (t.guard.empty() ? std::string("a guard") : t.guard) + ": " + t.reason +
                         (t.unlock.empty() ? std::string() : " (unlock: " + t.unlock + ")");
      } else {
        p.claimed = true;
      }
      continue;
    }
    if (type == "give_up") {
      p.gave_up = true;
      continue;
    }
    if (p.open) {
      // A knowledge-base fix of the open failure, a step (re)run, or else a fix from a hint.
      const failure open = *p.open;
      const auto candidates = knowledge_fixes(open, ctx, p.venv);
      const auto known =
          std::find_if(candidates.begin(), candidates.end(), [&](const fix& f) { return f.action == t.action; });
      const auto as_step = step_of(t.action, steps, p.venv);
      if (known == candidates.end() && as_step) {
        on_step_run(p, *as_step, t, ctx);
        continue;
      }
      const bool retries_step = known != candidates.end() && known->retries_step;
      p.attempts.push_back({t.turn, open.step, open.signature, t.action, outcome_of(t)});
      if (known != candidates.end() && !known->activates.empty() && succeeded(t)) p.venv = known->activates;
      if (retries_step) {
        on_step_run(p, open.step, t, ctx);
      } else if (succeeded(t)) {
        p.open.reset();  // the step runs again next (or, after a warning, the next step)
      }
      continue;
    }
    if (const auto i = step_of(t.action, steps, p.venv)) on_step_run(p, *i, t, ctx);
    // Anything else (an operator's or another policy's action) does not move the playbook.
  }
  return p;
}

}  // namespace r2r::plugins::policy
