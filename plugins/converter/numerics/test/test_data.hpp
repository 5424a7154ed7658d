// SPDX-License-Identifier: MIT
// Reading the fixtures and the recorded H200 outputs in the numerics tests.
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace r2r::plugins::converter::numerics::test {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string fixture(const std::string& name) {
  return read_text(std::string(R2R_AGENTIC_FIXTURES) + "/" + name);
}
inline nlohmann::json spec(const std::string& stem) {
  return nlohmann::json::parse(fixture(stem + ".harness.json"));
}
inline nlohmann::json recorded(const std::string& name) {
  return nlohmann::json::parse(read_text(std::string(R2R_H200_DATA) + "/" + name));
}

/// The values of argument `name` of a driver output.
inline nlohmann::json& values(nlohmann::json& doc, const std::string& name) {
  for (auto& a : doc.at("args"))
    if (a.at("name") == name) return a.at("values");
  throw std::runtime_error("no argument " + name);
}

}  // namespace r2r::plugins::converter::numerics::test
