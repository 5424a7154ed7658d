// SPDX-License-Identifier: MIT
#include "slurm_scheduler.hpp"

#include "job_dir.hpp"
#include "slurm_cli.hpp"

#include <r2r/sdk/error.hpp>

#include <algorithm>
#include <filesystem>

namespace r2r::plugins::scheduler {
namespace fs = std::filesystem;
namespace sch = sdk::scheduler;

void from_json(const nlohmann::json& j, slurm_scheduler::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object");
  c.shared_dir = j.value("shared_dir", c.shared_dir);
  c.slurm_conf = j.value("slurm_conf", c.slurm_conf);
  c.partition = j.value("partition", c.partition);
  c.gres = j.value("gres", c.gres);
  c.time_limit = j.value("time_limit", c.time_limit);
  c.sbatch_args = j.value("sbatch_args", c.sbatch_args);
  c.bin_dir = j.value("bin_dir", c.bin_dir);
  c.slots = j.value("slots", c.slots);
  c.max_queue = j.value("max_queue", c.max_queue);
}

bool parse_slurm_id(const std::string& id, std::string& job_id, std::string& state_dir) {
  if (id.rfind("slurm:", 0) != 0) return false;
  const auto colon = id.find(':', 6);
  if (colon == std::string::npos) return false;
  job_id = id.substr(6, colon - 6);
  state_dir = id.substr(colon + 1);
  return !job_id.empty() && !state_dir.empty() &&
         std::all_of(job_id.begin(), job_id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

slurm_scheduler::slurm_scheduler(const config& cfg, const sdk::host& host) : cfg_(cfg), host_(host) {
  if (cfg_.shared_dir.empty() || !fs::path(cfg_.shared_dir).is_absolute())
    throw sdk::invalid_argument(
        "\"shared_dir\" must be an absolute path every Slurm node sees (the batch's --out "
        "must lie under it); found '" +
        cfg_.shared_dir + "'");
}

void slurm_scheduler::require_cluster() {
  if (cluster_seen_) return;
  // A cluster answers sinfo; without one every method is unavailable (not an error of the request).
  const auto r = run_command({tool("sinfo"), "-h", "-o", "%P"}, env());
  if (r.exit_code != 0)
    throw sdk::unavailable("no Slurm cluster answers here (sinfo: " + r.output.substr(0, 300) +
                           "); install slurm-client, set slurm_conf or SLURM_CONF, start slurmctld");
  cluster_seen_ = true;
}

std::string slurm_scheduler::tool(const std::string& name) const {
  return cfg_.bin_dir.empty() ? name : (fs::path(cfg_.bin_dir) / name).string();
}

std::map<std::string, std::string> slurm_scheduler::env() const {
  if (cfg_.slurm_conf.empty()) return {};
  return {{"SLURM_CONF", cfg_.slurm_conf}};
}

sch::capabilities_response slurm_scheduler::capabilities(const sch::capabilities_request&) {
  require_cluster();
  sch::capabilities_response c;
  c.scheduler = "slurm";
  c.slots = cfg_.slots;
  if (c.slots <= 0) {
    const auto r = run_command({tool("sinfo"), "-h", "-N", "-o", "%N %G"}, env());
    c.slots = r.exit_code == 0 ? parse_sinfo_gpus(r.output) : 0;
    if (c.slots <= 0) c.slots = 1;
  }
  c.max_queue = cfg_.max_queue;
  c.shared_filesystem = true;
  c.cancel = true;
  c.gpus = {cfg_.gres};
  c.poll_interval_s = 2;  // squeue and scontrol load the controller
  c.notes = "one Slurm job per repository, --gres=" + cfg_.gres + "; shared_dir " + cfg_.shared_dir;
  return c;
}

sch::submit_response slurm_scheduler::submit(const sch::job& job) {
  if (job.argv.empty()) throw sdk::invalid_argument("argv must name a command");
  require_cluster();
  const fs::path dir = fs::path(job.state_dir).lexically_normal();
  const fs::path shared = fs::path(cfg_.shared_dir).lexically_normal();
  const auto rel = dir.lexically_relative(shared);
  if (!dir.is_absolute() || rel.empty() || *rel.begin() == "..")
    throw sdk::invalid_argument("state_dir " + dir.string() + " is not under shared_dir " + shared.string() +
                                ": Slurm nodes would not see it; put the batch's --out under shared_dir");
  fs::create_directories(dir);
  sch::submit_response r;
  // Idempotent: a job this directory already holds (queued, running or finished) is adopted.
  const std::string known = read_small(dir / "slurm_job_id");
  if (!known.empty()) {
    const auto f = probe(dir);
    bool live = f.lock_held || f.exit_status.has_value();
    if (!live) {
      const auto q = run_command({tool("scontrol"), "-o", "show", "job", known}, env());
      const auto st = parse_scontrol_state(q.output);
      live = st && (*st == "PENDING" || *st == "RUNNING" || *st == "CONFIGURING" || *st == "COMPLETING" ||
                    *st == "REQUEUED" || *st == "RESIZING" || *st == "SUSPENDED");
    }
    if (live) {
      r.accepted = true;
      r.adopted = true;
      r.id = "slurm:" + known + ":" + dir.string();
      return r;
    }
  }
  wrapper_spec spec;
  spec.argv = job.argv;
  spec.state_dir = dir;
  spec.workdir = job.workdir;
  spec.env = job.env;
  spec.gpu_assignment =
      "R2R_GPU=${SLURM_JOB_GPUS:-${GPU_DEVICE_ORDINAL:-${ROCR_VISIBLE_DEVICES:-${CUDA_VISIBLE_DEVICES:-0}}}}\n"
      "R2R_GPU=${R2R_GPU%%,*}";
  const fs::path script = write_wrapper(spec);
  std::vector<std::string> argv{tool("sbatch"),
                                "--parsable",
                                "--job-name=" + job.name,
                                "--output=" + (dir / "slurm.out").string(),
                                "--chdir=" + dir.string(),
                                "--ntasks=1"};
  if (job.gpus > 0) argv.push_back("--gres=" + cfg_.gres);
  if (!cfg_.partition.empty()) argv.push_back("--partition=" + cfg_.partition);
  if (!cfg_.time_limit.empty()) argv.push_back("--time=" + cfg_.time_limit);
  argv.insert(argv.end(), cfg_.sbatch_args.begin(), cfg_.sbatch_args.end());
  argv.push_back(script.string());
  const auto out = run_command(argv, env());
  const std::string id = parse_sbatch_id(out.output);
  if (out.exit_code != 0 || id.empty()) {
    // The controller may be restarting: the batch retries a refused submission later.
    r.accepted = false;
    r.reason = "sbatch failed (exit " + std::to_string(out.exit_code) + "): " + out.output;
    return r;
  }
  write_file_atomic(dir, "slurm_job_id", id + "\n");
  r.accepted = true;
  r.id = "slurm:" + id + ":" + dir.string();
  host_.debug("sbatch " + job.name + " -> " + id);
  return r;
}

sch::status_response slurm_scheduler::status(const sch::status_request& request) {
  require_cluster();
  sch::status_response out;
  std::vector<std::string> job_ids;
  for (const auto& id : request.ids) {
    std::string jid, dir;
    if (parse_slurm_id(id, jid, dir)) job_ids.push_back(jid);
  }
  std::map<std::string, std::string> states;
  bool reachable = true;
  if (!job_ids.empty()) {
    std::string list;
    for (const auto& j : job_ids) list += (list.empty() ? "" : ",") + j;
    const auto q = run_command({tool("squeue"), "--json", "--jobs=" + list}, env());
    if (q.exit_code == 0) {
      states = parse_squeue_json(q.output);
    } else if (q.output.find("Invalid job id") == std::string::npos) {
      reachable = false;
    }
  }
  for (const auto& id : request.ids) {
    sch::job_status st;
    st.id = id;
    std::string jid, dir;
    if (!parse_slurm_id(id, jid, dir)) {
      st.state = "unknown";
      st.reason = "not an id of r2r.scheduler.slurm (they look like slurm:<job id>:<state dir>)";
      out.jobs.push_back(st);
      continue;
    }
    const auto f = probe(dir);
    st.gpu = f.gpu;
    st.node = f.node;
    st.started_at = f.started_at;
    st.finished_at = f.finished_at;
    std::optional<std::string> state;
    if (auto it = states.find(jid); it != states.end()) state = it->second;
    if (!state && reachable) {
      const auto q = run_command({tool("scontrol"), "-o", "show", "job", jid}, env());
      if (q.exit_code == 0) {
        state = parse_scontrol_state(q.output);
      } else if (q.output.find("Invalid job id") == std::string::npos) {
        reachable = false;
      }
    }
    const std::string s = state.value_or("");
    if (s == "CANCELLED" || (f.cancelled && !f.lock_held && (!state || s != "RUNNING"))) {
      st.state = "cancelled";
      st.reason = "cancelled (scancel)";
      if (f.exit_status) st.exit_code = *f.exit_status;
    } else if (f.exit_status && !f.lock_held) {
      st.exit_code = *f.exit_status;
      if (*f.exit_status > 128 && *f.exit_status < 160) st.signal = *f.exit_status - 128;
      st.state = *f.exit_status == 0 ? "succeeded" : "failed";
    } else if (s == "PENDING" || s == "CONFIGURING" || s == "REQUEUED" || s == "SUSPENDED") {
      st.state = "queued";
      st.reason = "Slurm: " + s;
    } else if (s == "RUNNING" || s == "COMPLETING" || f.lock_held) {
      st.state = "running";
    } else if (!s.empty()) {
      st.state = "lost";  // ended in Slurm without the wrapper writing an exit status
      st.reason = "Slurm says " + s + " and the job wrote no exit status (node failure, OOM, time limit)";
    } else if (!reachable) {
      st.state = "unreachable";
      st.reason = "the Slurm controller does not answer; ask again later";
    } else if (f.started) {
      st.state = "lost";
      st.reason = "Slurm no longer knows job " + jid + " and it wrote no exit status";
    } else {
      st.state = "unknown";
      st.reason = "Slurm no longer knows job " + jid + " and it never started";
    }
    out.jobs.push_back(st);
  }
  return out;
}

sch::cancel_response slurm_scheduler::cancel(const sch::cancel_request& request) {
  require_cluster();
  sch::cancel_response r;
  std::string jid, dir;
  if (!parse_slurm_id(request.id, jid, dir)) {
    r.reason = "not an id of r2r.scheduler.slurm";
    return r;
  }
  std::error_code ec;
  if (fs::is_directory(dir, ec)) write_file_atomic(dir, "cancelled", "scancel\n");
  const auto out = run_command({tool("scancel"), jid}, env());
  r.cancelled = out.exit_code == 0;
  r.state = r.cancelled ? "cancelled" : "";
  if (!r.cancelled) r.reason = "scancel " + jid + " failed: " + out.output;
  return r;
}

}  // namespace r2r::plugins::scheduler
