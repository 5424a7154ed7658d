// SPDX-License-Identifier: MIT
#include "local_scheduler.hpp"

#include "gpu_nodes.hpp"
#include "job_dir.hpp"

#include <r2r/sdk/error.hpp>

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>

extern char** environ;

namespace r2r::plugins::scheduler {
namespace fs = std::filesystem;
namespace sch = sdk::scheduler;

namespace {
constexpr const char* id_prefix = "local:";

std::string state_dir_of(const std::string& id) {
  if (id.rfind(id_prefix, 0) != 0) return {};
  return id.substr(std::char_traits<char>::length(id_prefix));
}
}  // namespace

void from_json(const nlohmann::json& j, local_scheduler::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object");
  for (const auto& g : j.value("gpus", nlohmann::json::array())) {
    c.gpus.push_back(g.is_string() ? g.get<std::string>() : std::to_string(g.get<std::int64_t>()));
  }
  c.max_queue = j.value("max_queue", c.max_queue);
  c.sysroot = j.value("sysroot", c.sysroot);
}

local_scheduler::local_scheduler(const config& cfg, const sdk::host& host) : cfg_(cfg), host_(host) {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) host_name_ = name;
  std::string root = cfg_.sysroot;
  if (root.empty()) {
    const char* env = std::getenv("R2R_SYSROOT");
    root = env != nullptr && *env != '\0' ? env : "/";
  }
  const auto found = list_gpu_nodes(root);
  std::vector<std::string> gpus = cfg_.gpus;
  if (gpus.empty()) {
    for (const auto& g : found) gpus.push_back(std::to_string(g.index));
  }
  if (gpus.empty()) {
    throw sdk::unavailable("no AMD GPU in the KFD topology under " + root +
                           " and none configured: give the pool's GPUs (config \"gpus\", or `repo2rocm batch --gpus "
                           "0,1`)");
  }
  for (const auto& g : gpus) {
    if (std::count(gpus.begin(), gpus.end(), g) > 1)
      throw sdk::invalid_argument("GPU " + g + " is listed twice in \"gpus\"; each GPU is one slot");
    slot s;
    s.gpu = g;
    for (const auto& n : found) {
      if (std::to_string(n.index) == g) s.render_node = n.render_node;
    }
    slots_.push_back(s);
  }
}

local_scheduler::~local_scheduler() {
  // Jobs run in their own sessions and outlive this instance on purpose (a resumed batch adopts
  // them); reap the children that already ended so none is left a zombie of a long-lived host.
  for (auto& s : slots_) {
    if (s.pid > 0) ::waitpid(s.pid, nullptr, WNOHANG);
  }
}

sch::capabilities_response local_scheduler::capabilities(const sch::capabilities_request&) {
  sch::capabilities_response c;
  c.scheduler = "local";
  c.slots = static_cast<std::int64_t>(slots_.size());
  c.max_queue = cfg_.max_queue;
  c.shared_filesystem = false;
  c.cancel = true;
  for (const auto& s : slots_) c.gpus.push_back(s.gpu);
  c.poll_interval_s = 0.05;  // status reads a few small files per job
  c.status_wait = true;      // and, with wait_s, answers as soon as one of its children ends
  c.notes = "one job per GPU on this host";
  return c;
}

local_scheduler::slot* local_scheduler::slot_of(const std::string& state_dir) {
  for (auto& s : slots_) {
    if (s.state_dir == state_dir) return &s;
  }
  return nullptr;
}

local_scheduler::slot* local_scheduler::slot_for_gpu(const std::string& gpu) {
  for (auto& s : slots_) {
    if (s.gpu == gpu) return &s;
  }
  return nullptr;
}

void local_scheduler::start(slot& s, const sch::job& job) {
  const fs::path dir = job.state_dir;
  fs::create_directories(dir);
  wrapper_spec spec;
  spec.argv = job.argv;
  spec.state_dir = dir;
  spec.workdir = job.workdir;
  spec.env = job.env;
  if (!s.render_node.empty()) spec.env["R2R_BATCH_RENDER_NODE"] = s.render_node;
  spec.gpu_assignment = "R2R_GPU=" + shell_quote(s.gpu);
  spec.lock_inherited = true;
  spec.started_at = static_cast<long long>(::time(nullptr));
  const fs::path script = write_wrapper(spec);
  write_file_atomic(dir, "gpu", s.gpu + "\n");
  write_file_atomic(dir, "node", host_name_ + "\n");
  // The lock is taken here and handed to the wrapper as fd 9, so there is no moment at which the
  // job runs unlocked (a resumed batch probing the lock always sees a live job as running).
  const int lock = try_lock(dir);
  if (lock < 0) throw sdk::failed("the job in " + dir.string() + " is already running (its lock is held)");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, lock, 9);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  std::string sh = "/bin/sh", path = script.string();
  char* argv[] = {sh.data(), path.data(), nullptr};
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(lock);
  if (rc != 0) throw sdk::failed("cannot start /bin/sh " + path + ": " + std::strerror(rc));
  s.state_dir = job.state_dir;
  s.pid = pid;
}

void local_scheduler::refresh() {
  for (auto& s : slots_) {
    if (s.state_dir.empty()) continue;
    if (s.pid > 0) {
      int status = 0;
      const pid_t r = ::waitpid(s.pid, &status, WNOHANG);
      if (r == 0) continue;  // our child still runs
      s.pid = -1;
    }
    if (probe(s.state_dir).lock_held) continue;  // an adopted job (or its command) still runs
    s.state_dir.clear();
  }
  for (auto& s : slots_) {
    if (queue_.empty()) break;
    if (!s.state_dir.empty()) continue;
    const sch::job next = queue_.front();
    queue_.pop_front();
    start(s, next);
  }
}

sch::submit_response local_scheduler::submit(const sch::job& job) {
  if (job.argv.empty()) throw sdk::invalid_argument("argv must name a command");
  if (!fs::path(job.state_dir).is_absolute())
    throw sdk::invalid_argument("state_dir must be an absolute path, found '" + job.state_dir + "'");
  refresh();
  sch::submit_response r;
  r.id = id_prefix + job.state_dir;
  const auto files = probe(job.state_dir);
  const bool queued =
      std::any_of(queue_.begin(), queue_.end(), [&](const sch::job& q) { return q.state_dir == job.state_dir; });
  if (files.exit_status || files.lock_held || queued || slot_of(job.state_dir) != nullptr) {
    // Already finished, running (perhaps started by a batch process that died) or waiting here.
    r.accepted = true;
    r.adopted = true;
    if (files.lock_held && slot_of(job.state_dir) == nullptr) {
      if (slot* s = slot_for_gpu(files.gpu); s != nullptr && s->state_dir.empty()) s->state_dir = job.state_dir;
    }
    return r;
  }
  if (static_cast<std::int64_t>(queue_.size()) >= cfg_.max_queue) {
    r.accepted = false;
    r.id.clear();
    r.reason = "queue full (" + std::to_string(cfg_.max_queue) + " waiting); submit again when a job ends";
    return r;
  }
  queue_.push_back(job);
  refresh();
  r.accepted = true;
  host_.debug("submitted " + job.name + " (" + job.state_dir + ")");
  return r;
}

void local_scheduler::wait_for_an_end(double wait_s) {
  // Our children are waited on through pidfds (an unreaped child's pid cannot be reused, so the
  // pidfd is the right process); a job adopted from an earlier instance is not our child, so with
  // one of those the wait is cut to the polling interval and its lock is probed again after.
  std::vector<pollfd> fds;
  bool adopted = false;
  for (const auto& s : slots_) {
    if (s.state_dir.empty()) continue;
    const int fd = s.pid > 0 ? static_cast<int>(::syscall(SYS_pidfd_open, s.pid, 0)) : -1;
    if (fd >= 0) {
      fds.push_back({fd, POLLIN, 0});
    } else {
      adopted = true;
    }
  }
  double limit = std::min(wait_s, 60.0);
  if (adopted || fds.empty()) limit = std::min(limit, 0.05);
  ::poll(fds.data(), fds.size(), static_cast<int>(limit * 1000));
  for (const auto& p : fds) ::close(p.fd);
}

sch::status_response local_scheduler::status(const sch::status_request& request) {
  sch::status_response out = status_now(request);
  if (request.wait_s <= 0) return out;
  const bool all_live = std::all_of(out.jobs.begin(), out.jobs.end(), [](const sch::job_status& j) {
    return j.state == "running" || j.state == "queued";
  });
  if (!all_live) return out;
  wait_for_an_end(request.wait_s);
  return status_now(request);
}

sch::status_response local_scheduler::status_now(const sch::status_request& request) {
  // Running jobs of an earlier instance occupy their GPUs before anything queued may start.
  for (const auto& id : request.ids) {
    const std::string dir = state_dir_of(id);
    if (dir.empty() || slot_of(dir) != nullptr) continue;
    const auto f = probe(dir);
    if (!f.lock_held) continue;
    if (slot* s = slot_for_gpu(f.gpu); s != nullptr && s->state_dir.empty()) s->state_dir = dir;
  }
  refresh();
  sch::status_response out;
  for (const auto& id : request.ids) {
    sch::job_status st;
    st.id = id;
    const std::string dir = state_dir_of(id);
    if (dir.empty()) {
      st.state = "unknown";
      st.reason = "not an id of r2r.scheduler.local (they start with \"local:\")";
      out.jobs.push_back(st);
      continue;
    }
    const auto f = probe(dir);
    st.gpu = f.gpu;
    if (slot* s = slot_for_gpu(f.gpu)) st.render_node = s->render_node;
    st.started_at = f.started_at;
    st.finished_at = f.finished_at;
    const bool queued =
        std::any_of(queue_.begin(), queue_.end(), [&](const sch::job& q) { return q.state_dir == dir; });
    if (f.cancelled && !f.lock_held) {
      st.state = "cancelled";
      if (f.exit_status) st.exit_code = *f.exit_status;
    } else if (f.exit_status && !f.lock_held) {
      st.exit_code = *f.exit_status;
      if (*f.exit_status > 128 && *f.exit_status < 160) st.signal = *f.exit_status - 128;
      st.state = *f.exit_status == 0 ? "succeeded" : "failed";
    } else if (f.lock_held || slot_of(dir) != nullptr) {
      st.state = "running";
    } else if (queued) {
      st.state = "queued";
    } else if (f.started) {
      st.state = "lost";
      st.reason = "the job started and ended without an exit status (killed with its wrapper)";
    } else {
      st.state = "unknown";
      st.reason = "no job was started in " + dir;
    }
    out.jobs.push_back(st);
  }
  return out;
}

sch::cancel_response local_scheduler::cancel(const sch::cancel_request& request) {
  sch::cancel_response r;
  const std::string dir = state_dir_of(request.id);
  if (dir.empty()) {
    r.reason = "not an id of r2r.scheduler.local";
    return r;
  }
  const auto before = queue_.size();
  queue_.erase(std::remove_if(queue_.begin(), queue_.end(), [&](const sch::job& q) { return q.state_dir == dir; }),
               queue_.end());
  std::error_code ec;
  if (queue_.size() != before) {
    fs::create_directories(dir, ec);
    write_file_atomic(dir, "cancelled", "queued\n");
    r.cancelled = true;
    r.state = "cancelled";
    return r;
  }
  const auto f = probe(dir);
  if (!f.lock_held) {
    r.state = f.exit_status ? "finished" : "not running";
    r.reason = "nothing to cancel: the job is " + r.state;
    return r;
  }
  write_file_atomic(dir, "cancelled", "running\n");
  // The wrapper leads its own session: signal the whole group (wrapper and command).
  const std::string started = read_small(fs::path(dir) / "started");
  const pid_t leader = static_cast<pid_t>(std::atol(started.c_str()));
  if (leader > 1) ::kill(-leader, SIGTERM);
  r.cancelled = true;
  r.state = "cancelled";
  return r;
}

}  // namespace r2r::plugins::scheduler
