// SPDX-License-Identifier: MIT
#include <r2r/planning/knowledge.hpp>
#include <r2r/sdk/package_name.hpp>
#include <r2r/support/knowledge.hpp>

#include "image_catalog_text.hpp"

#include <cctype>
#include <stdexcept>
#include <string>

namespace r2r::planning {

namespace {

/// The image catalog is embedded here; the knowledge tables are r2r::knowledge's (parsed once).
nlohmann::json embedded(std::string_view name) {
  if (name != "catalog") return ::r2r::knowledge::table(name);
  return nlohmann::json::parse(generated::image_catalog);
}

package_rule rule_from(const nlohmann::json& j) {
  return package_rule{j.at("action").get<std::string>(), j.value("with", std::string()),
                      j.value("install", std::string()), j.value("note", std::string()),
                      j.value("alternative", std::string())};
}

knowledge load() {
  knowledge k;
  const auto stdlib = embedded("stdlib");  // kept alive: a range-for over a temporary's member dangles
  for (const auto& m : stdlib.at("modules")) k.stdlib.insert(m.get<std::string>());
  const auto imports = embedded("imports");
  for (const auto& [module, package] : imports.at("imports").items()) {
    k.import_to_package[module] = normalise_name(package.get<std::string>());
  }
  for (const auto& [fw, packages] : imports.at("frameworks").items()) {
    for (const auto& p : packages) k.frameworks[fw].push_back(normalise_name(p.get<std::string>()));
  }
  const auto cuda = embedded("cuda_packages");
  for (const auto& [name, rule] : cuda.at("packages").items()) k.packages[normalise_name(name)] = rule_from(rule);
  for (const auto& [prefix, rule] : cuda.at("prefixes").items()) k.prefixes[prefix] = rule_from(rule);
  if (const auto extras = cuda.find("extras"); extras != cuda.end()) {
    for (const auto& [package, rules] : extras->items()) {
      for (const auto& [extra, rule] : rules.items())
        k.extras[normalise_name(package)].emplace_back(extra, rule_from(rule));
    }
  }
  k.catalog = embedded("catalog");
  return k;
}

}  // namespace

std::string normalise_name(std::string_view name) {
  return sdk::normalise_package_name(name);
}

const package_rule* knowledge::rule_for(std::string_view normalised) const {
  if (auto it = packages.find(std::string(normalised)); it != packages.end()) return &it->second;
  const package_rule* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& [prefix, rule] : prefixes) {
    if (normalised.substr(0, prefix.size()) == prefix && prefix.size() > best_len) {
      best = &rule;
      best_len = prefix.size();
    }
  }
  return best;
}

const package_rule* knowledge::extra_rule_for(std::string_view normalised, std::string_view extra) const {
  const auto it = extras.find(std::string(normalised));
  if (it == extras.end()) return nullptr;
  for (const auto& [prefix, rule] : it->second) {
    if (extra.substr(0, prefix.size()) == prefix) return &rule;
  }
  return nullptr;
}

std::string knowledge::package_of_import(std::string_view module) const {
  if (auto it = import_to_package.find(std::string(module)); it != import_to_package.end()) return it->second;
  return normalise_name(module);
}

const knowledge& builtin_knowledge() {
  static const knowledge k = load();
  return k;
}

}  // namespace r2r::planning
