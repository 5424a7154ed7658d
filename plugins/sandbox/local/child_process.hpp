// SPDX-License-Identifier: MIT
// Runs one program as the leader of a new process group with rlimits, a wall-clock deadline and
// bounded output capture. On timeout or cancellation the whole group is killed with SIGKILL (and
// bubblewrap's --die-with-parent plus its PID namespace take the sandboxed tree with it).
// THREADING: run_process blocks the calling thread; it is safe to call from several threads.
#pragma once

#include "capped_output.hpp"

#include <sys/resource.h>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace r2r::plugins::sandbox::local {

struct process_limits {
  rlim_t address_space_bytes = RLIM_INFINITY;  // RLIMIT_AS
  rlim_t processes = RLIM_INFINITY;            // RLIMIT_NPROC (not enforced for root)
  rlim_t cpu_seconds = RLIM_INFINITY;          // RLIMIT_CPU
  rlim_t file_size_bytes = RLIM_INFINITY;      // RLIMIT_FSIZE
  rlim_t open_files = RLIM_INFINITY;           // RLIMIT_NOFILE
};

struct process_result {
  int exit_code = -1;  // 128+signal when killed by a signal
  bool timed_out = false;
  bool cancelled = false;
  plugins::sandbox::capped_output out{2};
  plugins::sandbox::capped_output err{2};
  std::chrono::milliseconds duration{0};
};

/// argv[0] is an absolute path; env is the complete environment. Throws std::system_error when
/// the process cannot be started.
process_result run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                           const process_limits& limits, std::chrono::milliseconds timeout, std::size_t max_output,
                           const std::function<bool()>& cancelled);

}  // namespace r2r::plugins::sandbox::local
