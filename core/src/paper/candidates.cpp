// SPDX-License-Identifier: MIT
// extract_candidates, to_json, describe (candidates.hpp).
#include "paper_internal.hpp"

#include <cstdio>

namespace r2r::paper {

std::vector<candidate> extract_candidates(const document& doc) {
  std::vector<candidate> out;
  std::vector<bool> skip(doc.lines.size(), false);
  for (const auto& t : extract_tables(doc)) {
    for (std::size_t i = t.first_line; i < t.end_line && i < skip.size(); ++i) skip[i] = true;
    for (auto& c : detail::table_candidates(t)) {
      if (out.size() >= 2000) return out;
      out.push_back(std::move(c));
    }
  }
  for (auto& c : detail::sentence_candidates(doc, skip)) {
    if (out.size() >= 2000) break;
    out.push_back(std::move(c));
  }
  return out;
}

nlohmann::json to_json(const candidate& c) {
  nlohmann::json j = {{"page", c.page},
                      {"source", c.source},
                      {"text", c.text},
                      {"metric", c.metric},
                      {"value", c.value},
                      {"unit", c.unit},
                      {"direction", c.direction},
                      {"class", c.metric_class},
                      {"tolerance", {{"kind", c.tolerance_kind}, {"value", c.tolerance}}},
                      {"dataset", c.dataset},
                      {"split", c.split},
                      {"model", c.model}};
  if (!c.qualifier.empty()) j["qualifier"] = c.qualifier;
  if (c.source == "table") {
    j["table"] = c.table;
    j["row"] = c.row;
    j["column"] = c.column;
  }
  return j;
}

std::string describe(const candidate& c) {
  char value[64];
  std::snprintf(value, sizeof value, "%g", c.value);
  std::string where = "p." + std::to_string(c.page) + " ";
  if (c.source == "table")
    where +=
        c.table + " row " + std::to_string(c.row) + " (" + (c.model.empty() ? "?" : c.model) + ", " + c.column + ")";
  else
    where += "sentence" + (c.model.empty() ? std::string() : " (" + c.model + ")");
  std::string what = (c.qualifier.empty() ? "" : c.qualifier + " ") + c.metric + " " + value + c.unit;
  if (!c.dataset.empty()) what += " on " + c.dataset;
  return where + ": " + what;
}

}  // namespace r2r::paper
