// SPDX-License-Identifier: MIT
#include <r2r/core/embedded_schemas.hpp>

#include "embedded_schema_files.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace r2r::core {

std::string_view embedded_schema_text(std::string_view name) {
  for (const auto& file : generated::schema_files) {
    if (file.name == name) return file.text;
  }
  return {};
}

std::vector<std::string> embedded_schema_names() {
  std::vector<std::string> names;
  for (const auto& file : generated::schema_files) names.emplace_back(file.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> kind_methods(std::string_view kind) {
  const std::string prefix = std::string(kind) + "/";
  const std::string suffix = ".request.schema.json";
  std::vector<std::string> methods;
  for (const auto& name : embedded_schema_names()) {
    if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size() + suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      methods.push_back(name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
    }
  }
  return methods;
}

const json_schema* embedded_schema(std::string_view name) {
  // Compiled schemas live until exit (leaked on purpose: no destruction-order hazards).
  static auto* cache = new std::map<std::string, std::unique_ptr<json_schema>, std::less<>>();
  static auto* mutex = new std::mutex();
  std::lock_guard<std::mutex> lock(*mutex);
  if (auto it = cache->find(name); it != cache->end()) return it->second.get();
  const std::string_view text = embedded_schema_text(name);
  std::unique_ptr<json_schema> compiled;
  if (!text.empty()) {
    if (auto schema = json_schema::compile_text(text, name))
      compiled = std::make_unique<json_schema>(std::move(*schema));
  }
  auto* out = compiled.get();
  cache->emplace(std::string(name), std::move(compiled));
  return out;
}

const json_schema* message_schema(std::string_view kind, std::string_view method, bool request) {
  std::string name(kind);
  name += "/";
  name += method;
  name += request ? ".request.schema.json" : ".response.schema.json";
  return embedded_schema(name);
}

}  // namespace r2r::core
