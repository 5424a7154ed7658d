// SPDX-License-Identifier: MIT
#include <r2r/support/knowledge.hpp>

#include "knowledge_tables.hpp"

#include <map>
#include <stdexcept>

namespace r2r::knowledge {

namespace {

const std::map<std::string, nlohmann::json, std::less<>>& tables() {
  static const auto parsed = [] {
    std::map<std::string, nlohmann::json, std::less<>> out;
    for (const auto& t : generated::tables) out.emplace(std::string(t.name), nlohmann::json::parse(t.text));
    return out;
  }();
  return parsed;
}

}  // namespace

const nlohmann::json& table(std::string_view name) {
  const auto& all = tables();
  if (const auto it = all.find(name); it != all.end()) return it->second;
  std::string known;
  for (const auto& n : table_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::out_of_range("no knowledge table '" + std::string(name) + "' (embedded: " + known +
                          "); add it to support/knowledge/CMakeLists.txt");
}

std::vector<std::string> table_names() {
  std::vector<std::string> out;
  for (const auto& t : generated::tables) out.emplace_back(t.name);
  return out;
}

}  // namespace r2r::knowledge
