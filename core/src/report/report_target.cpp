// SPDX-License-Identifier: MIT
#include "report_target.hpp"

namespace r2r::report::detail {

using nlohmann::json;

json report_target(const json& m, const json& metrics) {
  if (!m.is_object() || !m.contains("name") || !m["name"].is_string() || !m.contains("value") ||
      !m["value"].is_number())
    return nullptr;
  const std::string name = m["name"].get<std::string>();
  const auto measured = metrics.is_object() ? metrics.find(name) : metrics.end();
  json t = {{"metric", name},
            {"planned", m["value"]},
            {"unit", m.value("unit", std::string())},
            {"measured", measured != metrics.end() && measured->is_number() ? *measured : json(nullptr)},
            {"tolerance", m.contains("tolerance") && m["tolerance"].is_object() ? m["tolerance"] : json(nullptr)},
            {"direction", m.value("direction", std::string())},
            {"source", m.value("source", std::string("readme"))},
            {"file", m.value("file", std::string())}};
  for (const char* key : {"page", "row", "line"})
    if (m.contains(key) && m[key].is_number_integer()) t[key] = m[key];
  for (const char* key : {"table", "model", "dataset"})
    if (m.contains(key) && m[key].is_string()) t[key] = m[key];
  return t;
}

}  // namespace r2r::report::detail
