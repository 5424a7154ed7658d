// SPDX-License-Identifier: MIT
#include "paper_target.hpp"

#include <r2r/paper/candidates.hpp>
#include <r2r/paper/target.hpp>

namespace r2r::planning {

using nlohmann::json;

namespace {

/// Asks `model` to rank; returns the choice to use and fills `ranking` (plan.paper.ranking) and `note`.
paper::target_choice ranked_choice(const std::vector<paper::candidate>& candidates, const paper::tie_context& ctx,
                                   paper::target_choice choice, const paper::model_call& model,
                                   const std::string& instance, json& ranking, std::string& note) {
  const auto prompt = paper::make_rank_prompt(candidates, choice, ctx);
  ranking = {{"instance", instance}};
  auto answer = model(prompt.system, prompt.user);
  std::string failed;
  std::optional<paper::rank_pick> pick;
  if (!answer) {
    failed = answer.error();
  } else {
    ranking["model"] = answer->model;
    auto parsed = paper::parse_rank_reply(answer->text);
    if (parsed)
      pick = std::move(*parsed);
    else
      failed = parsed.error();
  }
  if (!pick) {
    ranking["error"] = failed;
    note = choice.note + " (the model's ranking was not used: " + failed + ")";
    return choice;
  }
  ranking["pick"] = pick->index;
  ranking["reason"] = pick->reason;
  auto ranked = paper::choose_target(candidates, ctx, pick->index);
  const bool accepted = ranked.index.has_value() && *ranked.index == pick->index;
  ranking["accepted"] = accepted;
  if (accepted) {
    note = "ranked by the model (" + instance + ": " + pick->reason + "): " + ranked.note;
  } else {
    note = ranked.note;
    const std::string why = pick->index < candidates.size() ? ranked.ties[pick->index].why : "not a candidate";
    ranking["refused"] = "the model's pick was refused: " + why;
    if (note.find("was refused") == std::string::npos) note += " (the model's pick was refused: " + why + ")";
  }
  return ranked;
}

}  // namespace

paper_target plan_paper_target(const paper::document& doc, const std::filesystem::path& tree, const json& workload,
                               const paper::model_call& model, const std::string& instance) {
  const auto candidates = paper::extract_candidates(doc);
  const auto ctx = paper::gather_context(tree, workload);
  auto choice = paper::choose_target(candidates, ctx);
  std::string note = choice.note;
  json ranking;
  if (model && paper::worth_ranking(choice))
    choice = ranked_choice(candidates, ctx, std::move(choice), model, instance, ranking, note);
  paper_target out;
  json listed = json::array();
  for (std::size_t i = 0; i < candidates.size() && i < 50; ++i) {
    json c = paper::to_json(candidates[i]);
    c["tied"] = choice.ties[i].tied;
    c["tie"] = choice.ties[i].why;
    listed.push_back(std::move(c));
  }
  out.section = {{"file", doc.name},
                 {"format", doc.format},
                 {"reader", doc.reader},
                 {"pages", doc.pages},
                 {"candidate_count", candidates.size()},
                 {"candidates", listed},
                 {"target", choice.index ? json(*choice.index) : json(nullptr)}};
  if (!ranking.is_null()) out.section["ranking"] = ranking;
  out.note = note;
  if (!choice.index) return out;
  const auto& c = candidates[*choice.index];
  // Mode 2 reads the workload's output by the label rule; the paper's qualifier (top-1, test)
  // selects among readings that differ in it.
  json extractor = {{"kind", "label"}, {"label", c.metric}};
  if (!c.qualifier.empty()) extractor["qualifier"] = c.qualifier;
  out.metric = {{"name", c.metric},
                {"value", c.value},
                {"direction", c.direction},
                {"class", c.metric_class},
                {"tolerance", {{"kind", c.tolerance_kind}, {"value", c.tolerance}}},
                {"text", c.text},
                {"file", doc.name},
                {"line", 0},
                {"source", "paper"},
                {"page", c.page},
                {"model", c.model},
                {"dataset", c.dataset},
                {"split", c.split},
                {"extractor", extractor}};
  if (!c.unit.empty()) out.metric["unit"] = c.unit;
  if (c.source == "table") {
    out.metric["table"] = c.table;
    out.metric["row"] = c.row;
    out.metric["column"] = c.column;
  }
  return out;
}

}  // namespace r2r::planning
