// SPDX-License-Identifier: MIT
// Runs the Slurm client commands (sbatch, squeue, scontrol, scancel, sinfo) and parses what they
// print. SLURM_CONF from the plugin config is passed in their environment only.
// THREADING: functions only; each call runs one child process and waits for it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::scheduler {

struct command_result {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

/// Runs argv (no shell) with extra environment variables; output capped at 4 MiB.
command_result run_command(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env);

/// Slurm's job states (squeue --json `job_state`, `scontrol -o show job` JobState=) per job id,
/// from `squeue --json` output; Slurm 21.08-23.02 print a string, 23.11+ an array of strings.
std::map<std::string, std::string> parse_squeue_json(const std::string& text);

/// JobState= of `scontrol -o show job ID` output; nullopt when absent.
std::optional<std::string> parse_scontrol_state(const std::string& text);

/// The job id `sbatch --parsable` printed ("123" or "123;cluster"); "" when none.
std::string parse_sbatch_id(const std::string& text);

/// Sum of gpu gres counts over `sinfo -h -N -o "%N %G"` lines (each node once).
int parse_sinfo_gpus(const std::string& text);

}  // namespace r2r::plugins::scheduler
