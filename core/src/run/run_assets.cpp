// SPDX-License-Identifier: MIT
#include "run_assets.hpp"

#include "asset_cache.hpp"

#include <r2r/support/http/url.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace r2r::run {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

/// "workload.py:3, train.py:9": where the plan says the asset is asked for.
std::string asked_at(const json& asset) {
  std::string out;
  for (const auto& w : asset.value("from", json::array())) {
    if (!out.empty()) out += ", ";
    out += w.value("file", "?") + ":" + std::to_string(w.value("line", 0));
  }
  return out.empty() ? "an unknown place" : out;
}

std::string shown(const json& asset) {
  const std::string rev = asset.value("revision", "");
  return asset.value("kind", "") + " " + asset.value("id", "") + (rev.empty() ? "" : "@" + rev);
}

json read_manifest(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return json::object();
  std::stringstream s;
  s << in.rdbuf();
  json m = json::parse(s.str(), nullptr, false);
  return m.is_object() ? m : json::object();
}

json known_entry(const json& manifest, const json& asset) {
  for (const auto& e : manifest.value("assets", json::array()))
    if (e.is_object() && e.value("kind", "") == asset.value("kind", "") && e.value("id", "") == asset.value("id", "") &&
        e.value("revision", "") == asset.value("revision", ""))
      return e;
  return nullptr;
}

void write_manifest(const fs::path& dir, const json& manifest) {
  const auto tmp = dir / "manifest.json.tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << manifest.dump(2) << "\n";
  }
  std::error_code ec;
  fs::rename(tmp, dir / "manifest.json", ec);
}

/// The sandbox's configured network policy (the pipeline entry's `network`; default install).
std::string policy_of(const run_context& ctx) {
  const json v =
      ctx.sandbox.config.is_object() ? ctx.sandbox.config.value("network", json("install")) : json("install");
  if (v.is_boolean()) return v.get<bool>() ? "always" : "none";
  return v.is_string() ? v.get<std::string>() : "install";
}

void not_verified(run_context& ctx, const std::string& why) {
  run_verdict v;
  v.status = "not_verified";
  v.message = "an asset the workload needs is not available: " + why;
  v.failed_checks.push_back("assets.available: " + why);
  v.details = json{{"verdict", "fail"}, {"assets", why}};
  ctx.verdict = std::move(v);
}

}  // namespace

assets::hub_source hub_source_from_environment() {
  assets::hub_source hub;
  hub.endpoint = env_or("HF_ENDPOINT", "https://huggingface.co");
  while (!hub.endpoint.empty() && hub.endpoint.back() == '/') hub.endpoint.pop_back();
  hub.token = env_or("HF_TOKEN", env_or("HUGGING_FACE_HUB_TOKEN", ""));
  return hub;
}

assets_step fetch_plan_assets(run_context& ctx) {
  assets_step out;
  std::vector<json> wanted;
  for (const auto& a : ctx.plan.value("assets", json::array()))
    if (a.is_object() && a.value("fetch", false)) wanted.push_back(a);
  if (wanted.empty()) return out;
  const fs::path dir = ctx.run_dir / "assets";
  const std::string policy = policy_of(ctx);
  if (policy == "none") {
    const json& a = wanted.front();
    const std::string why = shown(a) + " (asked at " + asked_at(a) +
                            ") cannot be fetched: the sandbox's network policy is `none`; set it to `install` in "
                            "the pipeline's sandbox entry, or put the asset in the repository";
    not_verified(ctx, why);
    out.ok = false;
    out.message = why;
    return out;
  }
  const assets::hub_source hub = hub_source_from_environment();
  std::error_code ec;
  fs::create_directories(dir / "torch", ec);
  if (ec) {
    out.ok = false;
    out.message = "cannot create " + dir.string() + " for the assets: " + ec.message();
    return out;
  }
  const json before = read_manifest(dir / "manifest.json");
  json manifest{{"endpoint", support::http::redact_url(hub.endpoint)}, {"assets", json::array()}};
  int fetched = 0, cached = 0;
  std::uintmax_t bytes = 0;
  for (const auto& a : wanted) {
    const auto progress = [&ctx](const std::string& text) { ctx.progress->stage_progress("environment", text); };
    auto got = assets::fetch_asset(a, dir, hub, known_entry(before, a), progress);
    json result{{"kind", a.value("kind", "")}, {"id", a.value("id", "")}, {"status", got.status}};
    if (a.contains("revision")) result["revision"] = a["revision"];
    if (got.record.contains("commit")) result["commit"] = got.record["commit"];
    result["files"] = got.record.value("files", json::array()).size();
    result["bytes"] = got.bytes;
    if (!got.reason.empty()) result["reason"] = got.reason;
    out.results.push_back(result);
    if (got.status == "fetched" || got.status == "cached") {
      got.status == "fetched" ? ++fetched : ++cached;
      bytes += got.bytes;
      manifest["assets"].push_back(got.record);
      progress(shown(a) + ": " + got.status);
      continue;
    }
    write_manifest(dir, manifest);
    const std::string why = got.reason + " (asked at " + asked_at(a) + ")";
    out.ok = false;
    out.message = why;
    // Gated or missing: the asset itself is the reason the run cannot be verified.
    if (got.status == "gated" || got.status == "missing") not_verified(ctx, why);
    return out;
  }
  write_manifest(dir, manifest);
  ctx.assets_dir = dir;
  out.message = std::to_string(wanted.size()) + " asset(s) in " + dir.string() + " (" + std::to_string(fetched) +
                " fetched, " + std::to_string(bytes) + " bytes; " + std::to_string(cached) +
                " already cached), mounted read-only at " + assets_mount + " with the hub offline";
  return out;
}

void add_asset_mount(const run_context& ctx, json& request) {
  if (ctx.assets_dir.empty()) return;
  if (!request.contains("mounts")) request["mounts"] = json::array();
  request["mounts"].push_back({{"source", ctx.assets_dir.string()}, {"target", assets_mount}});
  if (!request.contains("env")) request["env"] = json::object();
  auto& env = request["env"];
  const std::string root = assets_mount;
  env["HF_HOME"] = root + "/hf";
  env["HF_HUB_OFFLINE"] = "1";
  env["TRANSFORMERS_OFFLINE"] = "1";
  env["HF_DATASETS_OFFLINE"] = "1";
  env["HF_DATASETS_CACHE"] = "/tmp/r2r-hf-datasets";  // datasets writes its Arrow files there
  env["TORCH_HOME"] = root + "/torch";
}

}  // namespace r2r::run
