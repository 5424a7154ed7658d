// SPDX-License-Identifier: MIT
#include "templates.hpp"

namespace r2r::plugins::policy {

std::string fill(const std::string& text, const variables& vars, bool* missing) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('{', at);
    if (open == std::string::npos) break;
    const std::size_t close = text.find('}', open + 1);
    if (close == std::string::npos) break;
    out.append(text, at, open - at);
    const std::string name = text.substr(open + 1, close - open - 1);
    const auto it = vars.find(name);
    if (it != vars.end() && !it->second.empty()) {
      out += it->second;
    } else {
      if (missing != nullptr) *missing = true;
      out.append(text, open, close - open + 1);
    }
    at = close + 1;
  }
  out.append(text, at, std::string::npos);
  return out;
}

nlohmann::json fill(const nlohmann::json& tmpl, const variables& vars, bool* missing) {
  if (tmpl.is_string()) return fill(tmpl.get<std::string>(), vars, missing);
  if (tmpl.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : tmpl) out.push_back(fill(item, vars, missing));
    return out;
  }
  if (tmpl.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : tmpl.items()) out[key] = fill(value, vars, missing);
    return out;
  }
  return tmpl;
}

}  // namespace r2r::plugins::policy
