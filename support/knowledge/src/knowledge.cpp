// SPDX-License-Identifier: MIT
#include <r2r/support/knowledge.hpp>

#include <map>
#include <stdexcept>

namespace r2r::knowledge {
namespace generated {
struct data_file {
  std::string_view name;
  std::string_view text;
};
extern const data_file data_files[];
extern const unsigned data_file_count;
}  // namespace generated

namespace {

const std::map<std::string, nlohmann::json, std::less<>>& tables() {
  static const auto parsed = [] {
    std::map<std::string, nlohmann::json, std::less<>> out;
    for (unsigned i = 0; i < generated::data_file_count; ++i)
      out.emplace(std::string(generated::data_files[i].name), nlohmann::json::parse(generated::data_files[i].text));
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
  for (unsigned i = 0; i < generated::data_file_count; ++i) out.emplace_back(generated::data_files[i].name);
  return out;
}

}  // namespace r2r::knowledge
