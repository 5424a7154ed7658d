// SPDX-License-Identifier: MIT
#include "paper_target.hpp"

#include <r2r/paper/candidates.hpp>
#include <r2r/paper/target.hpp>

namespace r2r::planning {

using nlohmann::json;

paper_target plan_paper_target(const paper::document& doc, const std::filesystem::path& tree, const json& workload) {
  const auto candidates = paper::extract_candidates(doc);
  const auto choice = paper::choose_target(candidates, paper::gather_context(tree, workload));
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
  out.note = choice.note;
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
