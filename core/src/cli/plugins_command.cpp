// SPDX-License-Identifier: MIT
// `repo2rocm plugins list | describe ID | call ID METHOD`.
#include "cli_context.hpp"
#include "exit_codes.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_kind.hpp>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace r2r::cli {
namespace {

std::string abi_text(const core::plugin_info& info) {
  return std::to_string(info.abi_major) + "." + std::to_string(info.abi_minor);
}

nlohmann::json plugin_json(const core::plugin_info& info, bool with_schema) {
  nlohmann::json j{{"id", info.id},
                   {"kind", std::string(core::kind_name(info.kind))},
                   {"version", info.version},
                   {"abi", abi_text(info)},
                   {"description", info.description},
                   {"library", info.library.string()},
                   {"manifest", info.has_manifest}};
  if (with_schema) {
    j["config_schema"] = info.config_schema;
    j["example_config"] = info.example_config;
  }
  return j;
}

nlohmann::json disabled_json(const core::disabled_plugin& d) {
  return {{"library", d.library.string()},
          {"id", d.id},
          {"phase", std::string(core::to_string(d.reason.where))},
          {"reason", d.reason.message}};
}

// Loads the registry for this invocation, including a pipeline's search paths when --pipeline is given.
core::result<core::plugin_registry> load_registry(const cli_context& ctx) {
  std::vector<std::string> pipeline_paths;
  std::string pipeline_dir;
  if (!ctx.pipeline.empty()) {
    auto parsed = core::parse_pipeline_file(ctx.pipeline);
    if (!parsed.config) {
      return core::fail(core::phase::config, parsed.problems.front().to_string(), {}, ctx.pipeline);
    }
    pipeline_paths = parsed.config->search_paths;
    pipeline_dir = parsed.config->file.parent_path().string();
  }
  return core::plugin_registry::load(ctx.search_path(pipeline_paths, pipeline_dir));
}

// Reads a JSON argument given inline, as @file, or as "-" for standard input.
core::result<nlohmann::json> read_json_argument(const std::string& text, const char* what) {
  std::string body = text;
  if (text == "-") {
    std::stringstream s;
    s << std::cin.rdbuf();
    body = s.str();
  } else if (!text.empty() && text[0] == '@') {
    std::ifstream in(text.substr(1), std::ios::binary);
    if (!in) return core::fail(core::phase::usage, std::string("cannot read ") + what + " file " + text.substr(1));
    std::stringstream s;
    s << in.rdbuf();
    body = s.str();
  }
  if (body.empty()) return nlohmann::json::object();
  try {
    return nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    return core::fail(core::phase::usage, std::string(what) + " is not valid JSON: " + e.what() +
                                              " (give JSON text, @FILE, or - for standard input)");
  }
}

}  // namespace

int run_plugins_list(const cli_context& ctx) {
  std::optional<r2r_kind> kind;
  if (!ctx.option("kind").empty()) {
    kind = core::kind_from_name(ctx.option("kind"));
    if (!kind) {
      return report_error(ctx,
                          core::error{core::phase::usage, "unknown kind '" + ctx.option("kind") +
                                                              "'; kinds are llm, ranker, converter, sandbox, "
                                                              "policy, guard, verifier, scheduler"},
                          exit_usage);
    }
  }
  auto registry = load_registry(ctx);
  if (!registry) return report_error(ctx, registry.error(), exit_error);
  const auto plugins = registry->list(kind);
  if (ctx.json) {
    nlohmann::json j{{"plugins", nlohmann::json::array()}, {"disabled", nlohmann::json::array()}};
    for (const auto* p : plugins) j["plugins"].push_back(plugin_json(p->info, false));
    for (const auto& d : registry->disabled()) j["disabled"].push_back(disabled_json(d));
    *ctx.out << j.dump(2) << "\n";
    return exit_ok;
  }
  std::size_t id_width = 2;
  for (const auto* p : plugins) id_width = std::max(id_width, p->info.id.size());
  auto& out = *ctx.out;
  out << std::left << std::setw(10) << "KIND" << std::setw(static_cast<int>(id_width) + 2) << "ID" << std::setw(9)
      << "VERSION" << std::setw(5) << "ABI"
      << "DESCRIPTION\n";
  for (const auto* p : plugins) {
    out << std::setw(10) << core::kind_name(p->info.kind) << std::setw(static_cast<int>(id_width) + 2) << p->info.id
        << std::setw(9) << p->info.version << std::setw(5) << abi_text(p->info) << p->info.description << "\n";
  }
  if (plugins.empty()) out << "(no plugins found; add a directory with --plugin-path or R2R_PLUGIN_PATH)\n";
  if (!registry->disabled().empty()) {
    out << "\ndisabled (" << registry->disabled().size() << "):\n";
    for (const auto& d : registry->disabled()) out << "  " << d.reason.to_string() << "\n";
  }
  return exit_ok;
}

int run_plugins_describe(const cli_context& ctx) {
  if (ctx.words.size() != 1) {
    return report_error(ctx, core::error{core::phase::usage, "usage: repo2rocm plugins describe ID"}, exit_usage);
  }
  auto registry = load_registry(ctx);
  if (!registry) return report_error(ctx, registry.error(), exit_error);
  const std::string& id = ctx.words[0];
  const auto* plugin = registry->find(id);
  if (plugin == nullptr) {
    if (const auto* d = registry->find_disabled(id)) return report_error(ctx, d->reason, exit_error);
    return report_error(
        ctx, core::error{core::phase::registry, "no such plugin; `repo2rocm plugins list` shows what is installed", id},
        exit_error);
  }
  if (ctx.json) {
    *ctx.out << plugin_json(plugin->info, true).dump(2) << "\n";
    return exit_ok;
  }
  const auto& info = plugin->info;
  auto& out = *ctx.out;
  out << "id:          " << info.id << "\n"
      << "kind:        " << core::kind_name(info.kind) << "\n"
      << "version:     " << info.version << "\n"
      << "abi:         " << abi_text(info) << " (host " << R2R_ABI_MAJOR << "." << R2R_ABI_MINOR << ")\n"
      << "library:     " << info.library.string() << "\n"
      << "manifest:    " << (info.has_manifest ? core::manifest_path_for(info.library).string() : "none") << "\n"
      << "description: " << info.description << "\n"
      << "config schema:\n"
      << info.config_schema.dump(2) << "\n"
      << "example config:\n"
      << info.example_config.dump(2) << "\n";
  return exit_ok;
}

int run_plugins_call(const cli_context& ctx) {
  if (ctx.words.size() < 2 || ctx.words.size() > 3) {
    return report_error(ctx,
                        core::error{core::phase::usage,
                                    "usage: repo2rocm plugins call ID METHOD [REQUEST] [--config JSON]; "
                                    "REQUEST and --config take JSON text, @FILE or -"},
                        exit_usage);
  }
  auto request = read_json_argument(ctx.words.size() == 3 ? ctx.words[2] : ctx.option("request"), "request");
  if (!request) return report_error(ctx, request.error(), exit_usage);
  auto registry = load_registry(ctx);
  if (!registry) return report_error(ctx, registry.error(), exit_error);
  const auto* plugin = registry->find(ctx.words[0]);
  if (plugin == nullptr) {
    if (const auto* d = registry->find_disabled(ctx.words[0])) return report_error(ctx, d->reason, exit_error);
    return report_error(ctx, core::error{core::phase::registry, "no such plugin", ctx.words[0]}, exit_error);
  }
  auto config = ctx.option("config").empty() ? core::result<nlohmann::json>(plugin->info.example_config)
                                             : read_json_argument(ctx.option("config"), "config");
  if (!config) return report_error(ctx, config.error(), exit_usage);
  auto instance = core::plugin_instance::create(*plugin, *config);
  if (!instance) {
    return report_failure(ctx, instance.error());
  }
  auto response = (*instance)->call(ctx.words[1], *request);
  if (!response) return report_error(ctx, response.error(), exit_error);
  *ctx.out << response->dump(2) << "\n";
  return exit_ok;
}

}  // namespace r2r::cli
