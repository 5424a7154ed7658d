// SPDX-License-Identifier: MIT
#include "pipeline_choice.hpp"

#include "builtin_pipelines.hpp"
#include "plan_core.hpp"

#include <r2r/paper/fetch.hpp>

#include <optional>

namespace r2r::run {

chosen_pipeline choose_run_pipeline(const std::filesystem::path& file, int mode) {
  if (!file.empty()) return {core::parse_pipeline_file(file), file.string(), false};
  if (mode != 2)
    return {core::parse_pipeline_text(generated::run_pipeline, "(built-in) configs/pipelines/run.json"),
            "(built-in) run", true};
  const auto parent = [](const std::filesystem::path& f) -> std::optional<std::string> {
    if (f.filename() == "run.json") return std::string(generated::run_pipeline);
    return std::nullopt;
  };
  return {core::parse_pipeline_text(generated::mode2_pipeline, "(built-in) configs/pipelines/mode2.json", parent),
          "(built-in) mode2", true};
}

chosen_pipeline choose_port_pipeline(const std::filesystem::path& file) {
  if (!file.empty()) return {core::parse_pipeline_file(file), file.string(), false};
  return {core::parse_pipeline_text(generated::port_pipeline, "(built-in) configs/pipelines/port.json"),
          "(built-in) port", true};
}

core::pipeline_config plan_stages_of(core::pipeline_config run_pipeline) {
  std::erase_if(run_pipeline.stages, [](const core::pipeline_stage& s) { return s.stage != "rank"; });
  std::erase_if(run_pipeline.instances, [](const auto& entry) { return entry.first != paper_rank_instance; });
  return run_pipeline;
}

core::result<std::string> paper_argument(const std::string& given) {
  if (given.empty()) return std::string();
  if (!paper::looks_like_url(given)) return std::filesystem::absolute(given).lexically_normal().string();
  if (auto refused = paper::refused_scheme(given); !refused.empty()) return core::fail(core::phase::usage, refused);
  return given;
}

}  // namespace r2r::run
