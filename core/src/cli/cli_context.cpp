// SPDX-License-Identifier: MIT
#include "cli_context.hpp"

#include "exit_codes.hpp"

#include <r2r/core/dynamic_library.hpp>

#include <cstdlib>
#include <ostream>

#ifndef R2R_INSTALL_PREFIX
#error "R2R_INSTALL_PREFIX must be defined by the build"
#endif

namespace r2r::cli {

std::vector<core::search_location> cli_context::search_path(const std::vector<std::string>& pipeline_paths,
                                                            const std::string& pipeline_dir) const {
  core::search_inputs in;
  in.cli_paths = plugin_paths;
  if (const char* env = std::getenv("R2R_PLUGIN_PATH")) in.env_value = env;
  in.pipeline_paths = pipeline_paths;
  in.pipeline_dir = pipeline_dir;
  in.executable_dir = core::program_directory();
  in.install_prefix = R2R_INSTALL_PREFIX;
  return core::plugin_search_path(in);
}

int report_error(const cli_context& ctx, const core::error& e, int code) {
  if (ctx.json) {
    nlohmann::json j{{"ok", false},
                     {"error",
                      {{"phase", std::string(core::to_string(e.where))},
                       {"message", e.message},
                       {"plugin_id", e.plugin_id},
                       {"path", e.path}}}};
    *ctx.out << j.dump(2) << "\n";
  } else {
    *ctx.err << "repo2rocm: " << e.to_string() << "\n";
  }
  return code;
}

core::error pipeline_error(const core::parsed_pipeline& parsed, const std::string& file) {
  std::string message = "invalid pipeline:";
  for (const auto& p : parsed.problems) message += "\n  " + p.to_string();
  return core::error{core::phase::config, message, {}, file};
}

int report_failure(const cli_context& ctx, const core::error& e) {
  const bool operator_fix = e.where == core::phase::usage || e.where == core::phase::config;
  return report_error(ctx, e, operator_fix ? exit_usage : exit_error);
}

}  // namespace r2r::cli
