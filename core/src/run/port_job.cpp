// SPDX-License-Identifier: MIT
#include "port_job.hpp"

#include "tree_copy.hpp"

#include "../report/atomic_dir.hpp"

#include <r2r/executor/trajectory.hpp>

#include <chrono>

namespace r2r::run {

core::result<port_session> open_port_session(const std::vector<core::search_location>& search_path,
                                             const core::pipeline_config& config) {
  auto registry = core::plugin_registry::load(search_path);
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

namespace {

/// Checks that OUT may be replaced: absent or empty, or an earlier port's output. Nothing is
/// removed here: the new output is staged beside OUT and replaces it in one rename (publish).
core::result<void> check_out(const std::filesystem::path& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec))
      return core::fail(core::phase::usage, "--out " + out.string() + " exists and is not a directory");
    if (!fs::is_empty(out, ec) && !fs::exists(out / "convert.json", ec)) {
      return core::fail(core::phase::usage, "--out " + out.string() +
                                                " is not empty and holds no earlier port (no convert.json); choose "
                                                "another directory or empty it");
    }
  }
  fs::create_directories(out.parent_path(), ec);
  if (ec) return core::fail(core::phase::io, "cannot create " + out.parent_path().string() + ": " + ec.message());
  return {};
}

}  // namespace

core::result<nlohmann::json> port_to_out(core::pipeline_session& session, port_job job) {
  if (auto ready = check_out(job.out_dir); !ready) return tl::unexpected(ready.error());
  // Written into OUT.tmp-XXXXXX and renamed over OUT when complete: a port killed at any point
  // leaves the earlier output (or none), never a torn one.
  auto staged = report::detail::staged_dir::create(job.out_dir);
  if (!staged) return tl::unexpected(staged.error());
  job.tree = staged->path() / "tree";
  job.patch_file = staged->path() / "patch.diff";
  job.report_file = staged->path() / "convert.json";
  auto ported = port_tree(session, job);
  if (!ported) return ported;
  if (auto published = staged->publish(); !published) return tl::unexpected(published.error());
  return ported;
}

}  // namespace r2r::run
