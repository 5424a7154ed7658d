// SPDX-License-Identifier: MIT
// `repo2rocm llm ping --pipeline FILE [--instance NAME]`: sends one tiny request through the llm
// instance a pipeline declares (the same plugin, config, key and caps a run would use) and prints
// the model that answered, the latency and the tokens. The whole pipeline is validated and its
// instances created first, so a recording instance can reach the backend it wraps.
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "llm_ping.hpp"
#include "port_job.hpp"

#include <r2r/core/pipeline_config.hpp>

#include <chrono>
#include <cstdio>
#include <ostream>

namespace r2r::cli {
namespace {

int usage_error(const cli_context& ctx, const std::string& message) {
  return report_error(ctx, core::error{core::phase::usage, message}, exit_usage);
}

std::string usd(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "$%.6f", value);
  return text;
}

}  // namespace

int run_llm_ping(const cli_context& ctx) {
  if (!ctx.words.empty()) return usage_error(ctx, "usage: repo2rocm llm ping --pipeline FILE [--instance NAME]");
  if (ctx.pipeline.empty())
    return usage_error(ctx, "llm ping needs --pipeline FILE (the pipeline whose llm instance to try)");

  auto parsed = core::parse_pipeline_file(ctx.pipeline);
  if (!parsed.config) return report_error(ctx, pipeline_error(parsed, ctx.pipeline), exit_usage);
  const auto& config = *parsed.config;
  auto session =
      run::open_port_session(ctx.search_path(config.search_paths, config.file.parent_path().string()), config);
  if (!session) {
    return report_failure(ctx, session.error());
  }
  auto name = run::choose_llm_instance(config, *session->registry, ctx.option("instance"));
  if (!name) return report_error(ctx, name.error(), exit_usage);
  core::plugin_instance* instance = session->session->resolve(*name);
  const std::string plugin_id = config.instances.at(*name).use;

  const auto start = std::chrono::steady_clock::now();
  auto response = instance->call("complete", run::ping_request());
  const auto round_trip =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  if (!response) return report_error(ctx, response.error(), exit_error);

  const nlohmann::json& r = *response;
  const nlohmann::json& u = r.at("usage");
  std::string reply;
  for (const auto& block : r.at("content"))
    if (block.value("type", std::string()) == "text") reply += block.value("text", std::string());
  if (ctx.json) {
    *ctx.out << nlohmann::json{{"ok", true},
                               {"instance", *name},
                               {"plugin_id", plugin_id},
                               {"provider", r.at("provider")},
                               {"model", r.at("model")},
                               {"latency_ms", r.at("latency_ms")},
                               {"round_trip_ms", round_trip},
                               {"attempts", r.value("attempts", 1)},
                               {"usage", u},
                               {"cost_usd", r.at("cost_usd")},
                               {"stop_reason", r.at("stop_reason")},
                               {"reply", reply}}
                    .dump(2)
             << "\n";
    return exit_ok;
  }
  auto& out = *ctx.out;
  out << "instance: " << *name << " (" << plugin_id << ")\n"
      << "model:    " << r.at("model").get<std::string>() << "\n"
      << "latency:  " << r.at("latency_ms").get<long long>() << " ms (" << r.value("attempts", 1)
      << " attempt(s); round trip through repo2rocm " << round_trip << " ms)\n"
      << "tokens:   input " << u.at("input_tokens").get<long long>() << ", output "
      << u.at("output_tokens").get<long long>() << ", cache read " << u.at("cache_read_tokens").get<long long>()
      << ", cache write " << u.at("cache_write_tokens").get<long long>() << "\n"
      << "cost:     " << usd(r.at("cost_usd").get<double>()) << "\n"
      << "reply:    " << reply << "\n";
  return exit_ok;
}

}  // namespace r2r::cli
