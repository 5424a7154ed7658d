// SPDX-License-Identifier: MIT
#include "prompt.hpp"

#include "tools.hpp"

#include <algorithm>

namespace r2r::plugins::policy {
namespace {

using nlohmann::json;
using sdk::llm::content_block;
using sdk::llm::message;
using sdk::policy::turn_record;

constexpr std::size_t max_summary_lines = 40;
constexpr std::size_t min_observation_chars = 200;

std::string tail(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t cut = text.size() - max;
  while (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) ++cut;
  return "[... " + std::to_string(cut) + " earlier bytes cut]\n" + text.substr(cut);
}

std::string call_id(const turn_record& t) {
  return "turn-" + std::to_string(t.turn);
}

std::string first_line(const std::string& s, std::size_t max = 160) {
  std::string line = s.substr(0, s.find('\n'));
  if (line.size() > max) line = line.substr(0, max) + "...";
  return line;
}

/// The signature of a failed turn: the executor's, else the knowledge base's primary class.
std::string signature_of(const turn_record& t, const knowledge_base& kb) {
  if (!t.error_signature.empty()) return t.error_signature;
  for (const auto& m : kb.classify(t.stdout_text + "\n" + t.stderr_text))
    if (m.severity != "info") return m.signature;
  return {};
}

std::string outcome_line(const turn_record& t, const std::string& sig) {
  if (t.decision == "deny") {
    return "denied by " + (t.guard.empty() ? std::string("a guard") : t.guard) + ": " + t.reason;
  }
  if (!t.observed) return "no observation";
  std::string s = t.timed_out ? std::string("timed out") : "exit " + std::to_string(t.exit_code);
  if (!sig.empty()) s += ", signature " + sig;
  return s;
}

std::string action_line(const json& action) {
  const std::string type = action.value("type", std::string());
  for (const char* key : {"command", "path", "image", "label", "to", "reason"}) {
    if (action.contains(key) && action.at(key).is_string()) {
      return type + " " + first_line(action.at(key).get<std::string>(), 120);
    }
  }
  if (action.contains("packages")) return type + " " + action.at("packages").dump();
  return type;
}

std::string result_text(const turn_record& t, const std::string& sig, std::size_t max_chars) {
  if (t.decision == "deny") {
    std::string s = "DENIED by guard " + (t.guard.empty() ? std::string("(unnamed)") : t.guard) + ": " + t.reason;
    if (!t.unlock.empty()) s += "\nwhat would allow it: " + t.unlock;
    return s;
  }
  if (!t.observed) return "no observation was recorded";
  std::string s = "exit_code: " + std::to_string(t.exit_code);
  if (t.timed_out) s += " (timed out)";
  if (t.truncated) s += " (output truncated by the executor)";
  if (!sig.empty()) s += "\nsignature: " + sig;
  s += "\nstdout:\n" + tail(t.stdout_text, max_chars);
  s += "\nstderr:\n" + tail(t.stderr_text, max_chars);
  return s;
}

json tool_arguments(const json& action) {
  json args = action;
  args.erase("type");
  return args;
}

/// Knowledge about the last turn when it failed: its class, advice and known fixes.
std::string knowledge_note(const turn_record& t, const knowledge_base& kb, const std::string& arch) {
  if (!t.failed() || t.decision == "deny") return {};
  std::string out;
  for (const auto& m : kb.classify(t.stdout_text + "\n" + t.stderr_text)) {
    if (m.severity == "info") continue;
    const variables ctx{
        {"arch", arch}, {"command", t.action.value("command", std::string())}, {"action_type", t.action_type()}};
    out += "- " + m.class_id + " (" + m.title + ", line " + std::to_string(m.line) + ": " + first_line(m.excerpt) +
           "): " + kb.advice(m, ctx) + "\n";
    for (const auto& f : kb.fixes(m, ctx)) {
      out += "  known fix: " + f.description + " -> " + f.action.dump() +
             (f.degradation.empty() ? "" : " [degradation " + f.degradation + ", guards judge it]") + "\n";
    }
  }
  return out.empty() ? out : "Knowledge base on the last failure:\n" + out;
}

std::string closing_text(const sdk::policy::propose_request& r, const knowledge_base& kb) {
  std::string s = "Turn " + std::to_string(r.turn) + ".";
  if (!r.history.empty()) {
    const std::string note = knowledge_note(r.history.back(), kb, r.context.arch);
    if (!note.empty()) s += "\n" + note;
  }
  if (!r.hints.empty()) {
    s += "\nHints (advice only; guards judge every action):";
    for (const auto& h : r.hints) {
      s += "\n- [" + h.source + "] " + h.text;
      if (!h.fix.is_null()) s += " fix: " + h.fix.dump();
      if (!h.provenance.empty()) s += " (from " + h.provenance + ")";
    }
  }
  const auto& b = r.budget;
  std::string budget;
  if (b.turns_left >= 0) budget += " turns " + std::to_string(b.turns_left) + ";";
  if (b.seconds_left >= 0) budget += " seconds " + std::to_string(static_cast<std::int64_t>(b.seconds_left)) + ";";
  if (b.tokens_left >= 0) budget += " tokens " + std::to_string(b.tokens_left) + ";";
  if (!budget.empty()) s += "\nBudget left:" + budget;
  s += "\nPropose the next action with exactly one tool call.";
  return s;
}

std::int64_t text_tokens(const std::string& s) {
  return static_cast<std::int64_t>((s.size() + 3) / 4);
}

}  // namespace

std::string system_prompt(const sdk::policy::propose_request& r, const knowledge_base& kb) {
  std::string s =
      "You are the execution policy of repo2rocm. You make a research repository written for NVIDIA CUDA run its "
      "official workload on an AMD GPU through ROCm, inside a sandbox container";
  if (!r.context.arch.empty()) s += " on " + r.context.arch;
  if (!r.context.image.empty()) s += " (image " + r.context.image + ")";
  if (!r.context.workspace.empty()) s += ", workspace " + r.context.workspace;
  s += ", mode " + std::to_string(r.context.mode) +
       ". Each turn you call exactly one tool; guards check the action before it runs and you see the outcome "
       "next turn.\n"
       "Rules:\n"
       "1. Keep the work on the AMD GPU: never fall back to the CPU, never hide the GPU, never reduce the model, "
       "data, batch size or steps of the workload.\n"
       "2. No stubs: never replace a kernel, module, import or function with a stub, no-op, mock or hard-coded "
       "result.\n"
       "3. Never install NVIDIA wheels (nvidia-*-cu11/cu12, torch+cuXXX, CUDA package indexes); keep the image's "
       "ROCm frameworks (install with -c /opt/r2r/constraints.txt).\n"
       "4. Never swap flash-attn or another accelerated component for SDPA, eager or a slower path silently: "
       "build its ROCm version; a swap is a degradation (D1-D5) that must be stated in the action's reason, and "
       "guards decide.\n"
       "5. Never set HSA_OVERRIDE_GFX_VERSION; rebuild for the target arch (--offload-arch, PYTORCH_ROCM_ARCH).\n"
       "6. Success is decided only by the verifier: call claim_success once the plan's workload ran to completion; "
       "printed markers are never evidence. If claim_success is denied, call give_up with the denial.\n"
       "7. Call give_up with a precise reason (what failed, what you tried) when no action can make progress.\n"
       "Known failure classes (from the knowledge base):\n";
  for (const auto& line : kb.summaries()) s += "- " + line + "\n";
  return s;
}

std::string plan_message(const json& plan) {
  json view = json::object();
  for (const char* key : {"arch", "workload", "install_steps", "kernel_builds", "skipped_packages", "hazards", "env",
                          "validation", "metric"}) {
    if (plan.contains(key)) view[key] = plan.at(key);
  }
  if (plan.contains("base_image") && plan.at("base_image").is_object()) {
    view["base_image"] = plan.at("base_image").value("ref", std::string());
  }
  return "The plan of this run (plan.json; follow its install steps, then run its workload unchanged):\n" +
         view.dump(1);
}

rendered_history render(const sdk::policy::propose_request& r, const knowledge_base& kb, const prompt_options& opts) {
  sdk::llm::complete_request skeleton;
  skeleton.system = system_prompt(r, kb);
  skeleton.tools = action_tools();
  const std::int64_t fixed = estimate_tokens(skeleton);
  const std::string plan = plan_message(r.plan);
  const std::string closing = closing_text(r, kb);

  // Everything that does not depend on the cut is computed once: signatures (a classification
  // each) and the summary lines.
  const std::size_t n = r.history.size();
  std::vector<std::string> sigs(n), summary_lines(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& t = r.history[i];
    if (t.failed() && t.decision != "deny") sigs[i] = signature_of(t, kb);
    summary_lines[i] =
        "\n- turn " + std::to_string(t.turn) + ": " + action_line(t.action) + " -> " + outcome_line(t, sigs[i]);
  }
  const auto build = [&](std::size_t dropped, std::size_t obs_chars) {
    std::vector<message> msgs;
    message first{"user", {content_block::make_text(plan)}};
    if (dropped > 0) {
      std::string summary = "Earlier turns (summarised to stay within the context budget):";
      const std::size_t from = dropped > max_summary_lines ? dropped - max_summary_lines : 0;
      if (from > 0) summary += "\n(" + std::to_string(from) + " older turns omitted)";
      for (std::size_t i = from; i < dropped; ++i) summary += summary_lines[i];
      first.content.push_back(content_block::make_text(summary));
    }
    msgs.push_back(std::move(first));
    for (std::size_t i = dropped; i < n; ++i) {
      const auto& t = r.history[i];
      msgs.push_back(
          {"assistant", {content_block::make_tool_call(call_id(t), t.action_type(), tool_arguments(t.action))}});
      msgs.push_back(
          {"user", {content_block::make_tool_result(call_id(t), result_text(t, sigs[i], obs_chars), t.failed())}});
    }
    msgs.back().content.push_back(content_block::make_text(closing));
    return msgs;
  };
  const auto tokens = [&](const std::vector<message>& msgs) {
    sdk::llm::complete_request probe;
    probe.messages = msgs;
    return fixed + estimate_tokens(probe);
  };

  rendered_history out;
  out.observation_chars = opts.max_observation_chars;
  const std::size_t must_keep = std::min(n, opts.keep_last_turns);
  out.messages = build(0, out.observation_chars);
  out.estimated_tokens = tokens(out.messages);
  if (out.estimated_tokens > opts.context_budget_tokens && n > must_keep) {
    // Each dropped turn's messages leave, its summary line comes in: find the fewest drops that fit
    // from per-turn estimates, then confirm with the whole estimate (one more drop when rounding bites).
    std::int64_t over = out.estimated_tokens - opts.context_budget_tokens;
    std::size_t dropped = 0;
    while (dropped < n - must_keep && over > 0) {
      const auto& t = r.history[dropped];
      sdk::llm::complete_request one;
      one.messages = {
          {"assistant", {content_block::make_tool_call(call_id(t), t.action_type(), tool_arguments(t.action))}},
          {"user",
           {content_block::make_tool_result(call_id(t), result_text(t, sigs[dropped], out.observation_chars),
                                            t.failed())}}};
      over -= estimate_tokens(one) - text_tokens(summary_lines[dropped]);
      ++dropped;
    }
    out.dropped_turns = dropped;
    out.messages = build(out.dropped_turns, out.observation_chars);
    out.estimated_tokens = tokens(out.messages);
    while (out.estimated_tokens > opts.context_budget_tokens && out.dropped_turns < n - must_keep) {
      ++out.dropped_turns;
      out.messages = build(out.dropped_turns, out.observation_chars);
      out.estimated_tokens = tokens(out.messages);
    }
  }
  while (out.estimated_tokens > opts.context_budget_tokens && out.observation_chars > min_observation_chars) {
    out.observation_chars = std::max(min_observation_chars, out.observation_chars / 2);
    out.messages = build(out.dropped_turns, out.observation_chars);
    out.estimated_tokens = tokens(out.messages);
  }
  return out;
}

sdk::llm::complete_request build_request(const sdk::policy::propose_request& r, const knowledge_base& kb,
                                         const prompt_options& opts) {
  sdk::llm::complete_request req;
  req.model = opts.model;
  req.system = system_prompt(r, kb);
  req.cache_system = true;
  req.tools = action_tools();
  req.choice = sdk::llm::tool_choice{"any", ""};
  req.max_tokens = opts.max_tokens_per_call;
  req.temperature = opts.temperature;
  req.messages = render(r, kb, opts).messages;
  return req;
}

sdk::llm::message assistant_message(const sdk::llm::complete_response& reply) {
  message m{"assistant", {}};
  for (const auto& b : reply.content) {
    if (b.type == content_block::kind::text && b.text.empty()) continue;
    m.content.push_back(b);
  }
  if (m.content.empty()) m.content.push_back(content_block::make_text("(empty reply)"));
  return m;
}

sdk::llm::message feedback_message(const sdk::llm::complete_response& reply, const std::string& problem) {
  message m{"user", {}};
  for (const auto& b : reply.content) {
    if (b.type == content_block::kind::tool_call) {
      m.content.push_back(content_block::make_tool_result(b.id, "not run: " + problem, true));
    }
  }
  m.content.push_back(content_block::make_text(
      "Your reply could not be used: " + problem +
      ". Reply with exactly one tool call whose arguments match the tool's schema; nothing ran."));
  return m;
}

std::int64_t estimate_tokens(const sdk::llm::complete_request& r) {
  std::int64_t n = r.system ? text_tokens(*r.system) : 0;
  for (const auto& t : r.tools) n += text_tokens(t.name + t.description + t.parameters.dump());
  for (const auto& m : r.messages) {
    for (const auto& b : m.content) {
      n += text_tokens(b.text) + text_tokens(b.content) + text_tokens(b.name);
      if (b.type == content_block::kind::tool_call) n += text_tokens(b.arguments.dump());
    }
  }
  return n;
}

}  // namespace r2r::plugins::policy
