// SPDX-License-Identifier: MIT
#include "port_job.hpp"

#include "tree_copy.hpp"

#include <chrono>
#include <fstream>

namespace r2r::cli {
namespace {

core::result<void> write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) return core::fail(core::phase::io, "cannot write " + path.string());
  return {};
}

}  // namespace

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
  report["out"] = job.tree.parent_path().string();
  report["pipeline"] = job.pipeline_file;
  report["symlinks_not_converted"] = copied->symlinks;
  report["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (auto w = write_file(job.patch_file, outcome->patch); !w) return tl::unexpected(w.error());
  if (auto w = write_file(job.report_file, report.dump(2) + "\n"); !w) return tl::unexpected(w.error());
  return report;
}

}  // namespace r2r::cli
