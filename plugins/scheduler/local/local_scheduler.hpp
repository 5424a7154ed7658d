// SPDX-License-Identifier: MIT
// r2r.scheduler.local: a GPU pool on this host. One job per GPU at a time, pinned by index (the
// index `repo2rocm run --gpu` takes, whose render node the KFD topology names); jobs past the free
// GPUs wait in a bounded FIFO queue (submit answers accepted=false when it is full). Each job runs
// `/bin/sh job.sh` (job_dir.hpp) in its own session, so it survives the batch process; ids are
// "local:<state_dir>", so a new instance (a resumed batch) understands the ids an old one gave.
// The queue lives in memory only: a job still queued when the batch process dies was never started
// and is reported `unknown` (safe to submit again).
// status(wait_s) blocks the calling thread up to wait_s, until one of its children ends.
// THREADING: the host serialises calls; children are reaped in status().
#pragma once

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/scheduler.hpp>

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace r2r::plugins::scheduler {

class local_scheduler {
 public:
  struct config {
    std::vector<std::string> gpus;  // GPU indices; empty: every AMD GPU of the KFD topology
    std::int64_t max_queue = 4096;
    std::string sysroot;  // root of /sys and /dev for GPU discovery; empty: $R2R_SYSROOT or "/"
  };

  local_scheduler(const config& cfg, const sdk::host& host);
  ~local_scheduler();
  local_scheduler(const local_scheduler&) = delete;
  local_scheduler& operator=(const local_scheduler&) = delete;

  sdk::scheduler::capabilities_response capabilities(const sdk::scheduler::capabilities_request&);
  sdk::scheduler::submit_response submit(const sdk::scheduler::job& job);
  sdk::scheduler::status_response status(const sdk::scheduler::status_request& request);
  sdk::scheduler::cancel_response cancel(const sdk::scheduler::cancel_request& request);

  static sdk::method_table<local_scheduler> methods() { return sdk::scheduler::methods<local_scheduler>(); }

 private:
  struct slot {
    std::string gpu;
    std::string render_node;
    std::string state_dir;  // occupant; empty when free
    pid_t pid = -1;         // our child, or -1 for an adopted job
  };
  void refresh();  // reap children, free slots whose job ended, start queued jobs
  sdk::scheduler::status_response status_now(const sdk::scheduler::status_request& request);
  void wait_for_an_end(double wait_s);  // returns when a child ends, or after wait_s (0.05 s with adopted jobs)
  void start(slot& s, const sdk::scheduler::job& job);
  slot* slot_of(const std::string& state_dir);
  slot* slot_for_gpu(const std::string& gpu);

  config cfg_;
  sdk::host host_;
  std::vector<slot> slots_;
  std::deque<sdk::scheduler::job> queue_;
  std::string host_name_;  // written to each job's `node` file (the wrapper runs no hostname)
};

void from_json(const nlohmann::json& j, local_scheduler::config& c);

}  // namespace r2r::plugins::scheduler
