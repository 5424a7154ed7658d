// SPDX-License-Identifier: MIT
#include "verifier_judge.hpp"

#include <fstream>
#include <sstream>

#include <r2r/core/plugin_instance.hpp>
#include <r2r/report/signing.hpp>

#include <map>
#include <memory>

namespace r2r::run {

report::judge_function registry_judge(const core::plugin_registry& registry) {
  auto instances = std::make_shared<std::map<std::string, std::unique_ptr<core::plugin_instance>>>();
  return [&registry, instances](const std::string& id, const nlohmann::json& request) -> core::result<nlohmann::json> {
    auto it = instances->find(id);
    if (it == instances->end()) {
      const auto* plugin = registry.find(id);
      if (plugin == nullptr || plugin->info.kind != R2R_KIND_VERIFIER)
        return core::fail(core::phase::registry,
                          "verifier " + id +
                              " is not installed here, so its stored evidence cannot be re-judged; install it or "
                              "pass --plugin-path",
                          id);
      core::instance_options options;
      options.name = id + " (judge)";
      auto instance = core::plugin_instance::create(*plugin, nlohmann::json::object(), options);
      if (!instance) return tl::unexpected(instance.error());
      it = instances->emplace(id, std::move(*instance)).first;
    }
    return it->second->call("judge", request);
  };
}

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

core::result<json> read_object(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return core::fail(core::phase::io, "cannot read " + file.string(), "", file.string());
  std::ostringstream s;
  s << in.rdbuf();
  json j = json::parse(s.str(), nullptr, false);
  if (!j.is_object()) return core::fail(core::phase::io, file.string() + " is not a JSON object", "", file.string());
  return j;
}

/// The verifier that judges `dir`/capture.json: the directory's name when it is an installed
/// verifier, else the Mode 1 verifier of the capture's vendor.
std::string verifier_for(const fs::path& dir, const json& capture, const core::plugin_registry& registry) {
  const std::string name = dir.filename().string();
  if (const auto* p = registry.find(name); p != nullptr && p->info.kind == R2R_KIND_VERIFIER) return name;
  return capture.value("vendor", std::string()) == "nvidia" ? "r2r.verifier.mode1-cuda" : "r2r.verifier.mode1-rocm";
}

}  // namespace

core::result<report::verify_options> bundle_trust(const std::string& trusted_key_file, const fs::path& state_dir) {
  report::verify_options o;
  if (!trusted_key_file.empty()) {
    auto key = report::read_public_key(trusted_key_file);
    if (!key) return core::fail(core::phase::usage, "--trusted-key: " + key.error().message, "", key.error().path);
    o.trusted_key = *key;
    o.trusted_key_source = "--trusted-key " + trusted_key_file;
    return o;
  }
  auto host = report::host_public_key(state_dir);
  if (!host) return tl::unexpected(host.error());
  if (*host) {
    o.trusted_key = **host;
    o.trusted_key_source = "this host's key " + report::host_public_key_file(state_dir).string();
  }
  return o;
}

core::result<json> read_json_object(const fs::path& file) {
  return read_object(file);
}

core::result<json> judge_evidence(const core::plugin_registry& registry, const std::vector<fs::path>& dirs,
                                  const json& plan, int mode) {
  auto judge = registry_judge(registry);
  json results = json::array();
  std::vector<std::string> verdicts;
  for (const auto& dir : dirs) {
    auto capture = read_object(dir / "capture.json");
    if (!capture) return tl::unexpected(capture.error());
    const std::string id = verifier_for(dir, *capture, registry);
    auto response = judge(id, json{{"plan", plan}, {"mode", mode}, {"capture", *capture}});
    if (!response) return tl::unexpected(response.error());
    verdicts.push_back(response->value("verdict", std::string("error")));
    response->erase("capture");
    results.push_back(json{{"id", id}, {"evidence", (dir / "capture.json").string()}, {"response", *response}});
  }
  return json{{"verdict", report::combine_verdicts(verdicts)}, {"results", results}};
}

}  // namespace r2r::run
