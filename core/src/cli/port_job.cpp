// SPDX-License-Identifier: MIT
#include "port_job.hpp"

#include "tree_copy.hpp"

#include <r2r/executor/trajectory.hpp>

#include <chrono>

namespace r2r::cli {

core::result<port_session> open_port_session(const cli_context& ctx, const core::pipeline_config& config) {
  const std::string pipeline_dir = config.file.has_parent_path() ? config.file.parent_path().string() : std::string();
  auto registry = core::plugin_registry::load(ctx.search_path(config.search_paths, pipeline_dir));
  if (!registry) return tl::unexpected(registry.error());
  port_session out;
  out.registry = std::make_unique<core::plugin_registry>(std::move(*registry));
  auto session = core::pipeline_session::create(config, *out.registry);
  if (!session) return tl::unexpected(session.error());
  out.session = std::move(*session);
  return out;
}

core::result<nlohmann::json> port_tree(core::pipeline_session& session, const port_job& job) {
  const auto start = std::chrono::steady_clock::now();
  auto copied = copy_tree(job.source, job.tree);
  if (!copied) return tl::unexpected(copied.error());

  nlohmann::json tree_report = copied->to_json();  // before the file list moves into the inputs
  port_inputs inputs;
  inputs.source = job.source;
  inputs.tree = job.tree;
  inputs.files = std::move(copied->files);
  inputs.arch = job.arch;
  inputs.rocm = job.rocm;
  auto outcome = run_port_chain(session, inputs);
  if (!outcome) return tl::unexpected(outcome.error());

  nlohmann::json report = std::move(outcome->report);
  report["source"] = job.source.string();
  report["out"] = (job.out_dir.empty() ? job.tree.parent_path() : job.out_dir).string();
  report["pipeline"] = job.pipeline_file;
  report["symlinks_not_converted"] = copied->symlinks;
  report["tree"] = std::move(tree_report);
  report["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Each file replaced in one step (temporary sibling, fsync, rename): never a torn one.
  if (auto w = executor::write_file_atomic(job.patch_file, outcome->patch); !w) return tl::unexpected(w.error());
  const std::string text = report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (auto w = executor::write_file_atomic(job.report_file, text); !w) return tl::unexpected(w.error());
  return report;
}

}  // namespace r2r::cli
