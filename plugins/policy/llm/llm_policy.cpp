// SPDX-License-Identifier: MIT
#include "llm_policy.hpp"

#include "tools.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/kinds/llm.hpp>

#include <stdexcept>

namespace r2r::plugins::policy {
namespace {

constexpr std::size_t max_rationale_bytes = 2000;

std::string clip(std::string s) {
  if (s.size() <= max_rationale_bytes) return s;
  std::size_t cut = max_rationale_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + " [...]";
}

}  // namespace

void from_json(const nlohmann::json& j, llm_policy::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object, found " + std::string(j.type_name()));
  const llm_policy::config d;
  c.llm_service = j.value("llm_service", d.llm_service);
  c.max_invalid_replies = j.value("max_invalid_replies", d.max_invalid_replies);
  c.knowledge_file = j.value("knowledge_file", d.knowledge_file);
  c.prompt.context_budget_tokens = j.value("context_budget_tokens", d.prompt.context_budget_tokens);
  c.prompt.keep_last_turns = j.value("keep_last_turns", d.prompt.keep_last_turns);
  c.prompt.max_observation_chars = j.value("max_observation_chars", d.prompt.max_observation_chars);
  c.prompt.max_tokens_per_call = j.value("max_tokens_per_call", d.prompt.max_tokens_per_call);
  if (j.contains("model")) c.prompt.model = j.at("model").get<std::string>();
  if (j.contains("temperature")) c.prompt.temperature = j.at("temperature").get<double>();
}

llm_policy::llm_policy(const config& cfg, const sdk::host& host) : config_(cfg), kb_(nullptr), host_(host) {
  if (cfg.max_invalid_replies < 1) {
    throw sdk::invalid_argument("max_invalid_replies must be at least 1, found " +
                                std::to_string(cfg.max_invalid_replies));
  }
  if (cfg.prompt.context_budget_tokens < 1000) {
    throw sdk::invalid_argument(
        "context_budget_tokens must be at least 1000 (the rules and tools alone need that), "
        "found " +
        std::to_string(cfg.prompt.context_budget_tokens));
  }
  try {
    if (!cfg.knowledge_file.empty()) own_kb_ = knowledge_base::from_file(cfg.knowledge_file);
  } catch (const std::invalid_argument& e) {
    throw sdk::invalid_argument(e.what());
  }
  kb_ = own_kb_ ? &*own_kb_ : &knowledge_base::builtin();
}

sdk::policy::proposal llm_policy::propose(const sdk::policy::propose_request& request, sdk::call_context& ctx) {
  sdk::policy::proposal out;
  const auto give_up = [&](const std::string& reason, int replies) {
    out.action = nlohmann::json{{"type", "give_up"}, {"reason", reason}};
    out.rationale = reason;
    out.state = nlohmann::json{{"replies", replies}};
    return out;
  };
  if (request.budget.tokens_left == 0) return give_up("the run's token budget is spent (budget.tokens_left 0)", 0);
  if (request.budget.usd_left == 0) return give_up("the run's money budget is spent (budget.usd_left 0)", 0);

  auto llm_request = build_request(request, *kb_, config_.prompt);
  std::string problem;
  for (int reply = 1; reply <= config_.max_invalid_replies; ++reply) {
    ctx.throw_if_cancelled();
    sdk::llm::complete_response answer;
    try {
      answer = ctx.call_service(config_.llm_service, "complete", llm_request).get<sdk::llm::complete_response>();
    } catch (const sdk::error& e) {
      if (e.status() == R2R_ERR_UNAVAILABLE || e.status() == R2R_ERR_CANCELLED) throw;
      return give_up(std::string("the llm call failed: ") + e.what(), reply);
    }
    out.usage.input_tokens += answer.usage.all_input();
    out.usage.output_tokens += answer.usage.output_tokens;
    out.usage.cost_usd += answer.cost_usd;
    auto parsed = parse_reply(answer);
    if (parsed.action) {
      out.action = std::move(*parsed.action);
      out.rationale = clip(answer.text());
      out.state = nlohmann::json{{"replies", reply}};
      return out;
    }
    problem = parsed.problem;
    R2R_LOG(host_, info, "unusable model reply " << reply << " of " << config_.max_invalid_replies << ": " << problem);
    llm_request.messages.push_back(assistant_message(answer));
    llm_request.messages.push_back(feedback_message(answer, problem));
  }
  return give_up("the model gave no usable action in " + std::to_string(config_.max_invalid_replies) +
                     " replies; last problem: " + problem,
                 config_.max_invalid_replies);
}

}  // namespace r2r::plugins::policy
