// SPDX-License-Identifier: MIT
// r2r.scheduler.slurm: one Slurm job per submitted job. The wrapper (job_dir.hpp) is the batch
// script, submitted with `sbatch --gres=gpu:1`; the GPU Slurm gave the job ($SLURM_JOB_GPUS, else
// ROCR/CUDA_VISIBLE_DEVICES) replaces {gpu}. State directories must lie under the config's
// `shared_dir`, a path every node sees. Status: `squeue --json` for live jobs, `scontrol -o show
// job` for ended ones still known to the controller, and the state directory's files (the exit
// status the wrapper wrote) once Slurm has forgotten the job; with the controller down, a job whose
// files do not settle it is `unreachable` (ask again later), never lost. Cancel: `scancel`.
// Ids are "slurm:<job id>:<state_dir>". THREADING: the host serialises calls.
#pragma once

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/scheduler.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace r2r::plugins::scheduler {

class slurm_scheduler {
 public:
  struct config {
    std::string shared_dir;  // required: state and run directories live under it
    std::string slurm_conf;  // SLURM_CONF for the client commands; empty: inherited
    std::string partition;   // empty: the cluster's default
    std::string gres = "gpu:1";
    std::string time_limit;  // sbatch --time; empty: the partition's
    std::vector<std::string> sbatch_args;
    std::string bin_dir;     // where sbatch & co. are; empty: PATH
    std::int64_t slots = 0;  // 0: the GPUs sinfo reports
    std::int64_t max_queue = 100000;
  };

  slurm_scheduler(const config& cfg, const sdk::host& host);

  sdk::scheduler::capabilities_response capabilities(const sdk::scheduler::capabilities_request&);
  sdk::scheduler::submit_response submit(const sdk::scheduler::job& job);
  sdk::scheduler::status_response status(const sdk::scheduler::status_request& request);
  sdk::scheduler::cancel_response cancel(const sdk::scheduler::cancel_request& request);

  static sdk::method_table<slurm_scheduler> methods() { return sdk::scheduler::methods<slurm_scheduler>(); }

 private:
  std::string tool(const std::string& name) const;
  std::map<std::string, std::string> env() const;
  void require_cluster();  // throws sdk::unavailable until sinfo answers once

  bool cluster_seen_ = false;

  config cfg_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, slurm_scheduler::config& c);

/// Splits "slurm:<job id>:<state_dir>"; false when `id` is not of that form.
bool parse_slurm_id(const std::string& id, std::string& job_id, std::string& state_dir);

}  // namespace r2r::plugins::scheduler
