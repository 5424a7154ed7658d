// SPDX-License-Identifier: MIT
// The model ranking's prompt and reply (rank.hpp).
#include <r2r/paper/rank.hpp>

#include "utf8.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace r2r::paper {
namespace {

constexpr std::size_t max_source_bytes = 2000;  // per command/config/README excerpt in the prompt

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string where(const candidate& c) {
  if (c.source == "table")
    return c.table + " row " + std::to_string(c.row) + (c.column.empty() ? "" : ", column \"" + c.column + "\"");
  return "a sentence";
}

}  // namespace

bool worth_ranking(const target_choice& choice) {
  if (choice.index) return false;
  std::size_t tied = 0;
  for (const auto& t : choice.ties) tied += t.tied ? 1 : 0;
  return tied >= 2;
}

rank_prompt make_rank_prompt(const std::vector<candidate>& candidates, const target_choice& choice,
                             const tie_context& ctx) {
  rank_prompt p;
  p.system =
      "You help reproduce a research paper. Several results reported in the paper could be the one that a "
      "repository's workload reproduces. Pick the single candidate whose model, dataset and metric match what the "
      "workload runs. You may only pick one of the listed indices; never propose a value of your own. Answer with "
      "strict JSON and nothing else: {\"index\": <integer>, \"reason\": \"<one sentence>\"}";
  std::string u = "The workload the repository runs:\n";
  for (const auto& [from, text] : ctx.sources) {
    const std::string shown = detail::clip_utf8(detail::valid_utf8(text), max_source_bytes);
    u += "--- " + from + (shown.size() < text.size() ? " (clipped)" : "") + " ---\n" + shown;
    if (!shown.empty() && shown.back() != '\n') u += "\n";
  }
  u += "\nCandidate results found in the paper:\n";
  for (std::size_t i = 0; i < candidates.size() && i < max_ranked_candidates; ++i) {
    const auto& c = candidates[i];
    u += "[" + std::to_string(i) + "] page " + std::to_string(c.page) + ", " + where(c) + ": " + c.metric +
         (c.qualifier.empty() ? "" : " (" + c.qualifier + ")") + " = " + number(c.value) + c.unit +
         "; model: " + (c.model.empty() ? "not stated" : c.model) +
         "; dataset: " + (c.dataset.empty() ? "not stated" : c.dataset) +
         (c.split.empty() ? "" : " (" + c.split + ")") +
         "; named by the workload: " + (i < choice.ties.size() && choice.ties[i].tied ? "yes" : "no") +
         "\n    text: " + c.text + "\n";
  }
  if (candidates.size() > max_ranked_candidates)
    u += "(" + std::to_string(candidates.size() - max_ranked_candidates) + " more not listed)\n";
  u += "\nWhich candidate is the result this workload reproduces? Answer with strict JSON only: "
       "{\"index\": <one of the indices above>, \"reason\": \"<one sentence>\"}\n";
  p.user = std::move(u);
  return p;
}

tl::expected<rank_pick, std::string> parse_rank_reply(std::string_view reply) {
  const auto j = nlohmann::json::parse(reply.begin(), reply.end(), nullptr, false);
  if (j.is_discarded())
    return tl::unexpected("the reply is not strict JSON (expected {\"index\": N, \"reason\": \"...\"}, found " +
                          nlohmann::json(detail::clip_utf8(detail::valid_utf8(reply), 120)).dump() + ")");
  if (!j.is_object()) return tl::unexpected(std::string("the reply is JSON but not an object"));
  const auto index = j.find("index");
  if (index == j.end() || !index->is_number_integer() || index->get<long long>() < 0)
    return tl::unexpected(std::string("the reply has no non-negative integer \"index\""));
  const auto reason = j.find("reason");
  if (reason == j.end() || !reason->is_string())
    return tl::unexpected(std::string("the reply has no string \"reason\""));
  rank_pick pick;
  pick.index = static_cast<std::size_t>(index->get<long long>());
  pick.reason = detail::clip_utf8(detail::valid_utf8(reason->get<std::string>()), 300);
  return pick;
}

}  // namespace r2r::paper
