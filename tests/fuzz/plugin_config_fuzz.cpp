// SPDX-License-Identifier: MIT
// Fuzzes plugin configs through valijson: the input is JSON validated against every in-tree plugin
// config schema and the guard policy schema, and every violation is formatted as the CLI prints it.
#include "fuzz_support.hpp"

#include <r2r/core/json_schema.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

namespace {

std::vector<r2r::core::json_schema> load_schemas() {
  namespace fs = std::filesystem;
  const fs::path root = R2R_FUZZ_SOURCE_DIR;
  std::vector<fs::path> files{root / "configs/schema/guard_policy.schema.json"};
  for (const char* dir : {"plugins", "verifiers", "guards"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir))
      if (e.path().filename() == "config.schema.json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<r2r::core::json_schema> out;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    auto schema = r2r::core::json_schema::compile_text(text.str(), f.string());
    // A template schema that only compiles after CMake fills it in (guards) is skipped.
    if (schema) out.push_back(std::move(*schema));
  }
  if (out.empty()) throw std::runtime_error("no plugin config schema compiled under " + root.string());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto schemas = load_schemas();
  const auto json = nlohmann::json::parse(r2r::fuzz::as_text(data, size), nullptr, false);
  if (json.is_discarded()) return 0;
  for (const auto& schema : schemas)
    for (const auto& v : schema.validate(json)) (void)r2r::core::format_violation(v, "/config");
  (void)r2r::core::describe_value(json);
  return 0;
}
