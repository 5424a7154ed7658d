// SPDX-License-Identifier: MIT
#include "engine.hpp"

#include "durable_file.hpp"
#include "run_outcome.hpp"
#include "summary.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>

namespace r2r::batch {
namespace fs = std::filesystem;

namespace {

core::error usage(const std::string& message) {
  return core::error{core::phase::config, message, "", ""};
}

std::string money(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

bool is_final(const std::string& s) {
  return s == "succeeded" || s == "failed" || s == "cancelled" || s == "lost";
}

/// OUT/.lock held for the engine's lifetime: two batch processes never drive one batch directory.
class dir_lock {
 public:
  explicit dir_lock(const fs::path& dir) {
    fd_ = ::open((dir / ".lock").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~dir_lock() {
    if (fd_ >= 0) ::close(fd_);
  }
  dir_lock(const dir_lock&) = delete;
  dir_lock& operator=(const dir_lock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

class engine {
 public:
  engine(const engine_options& o, const scheduler_call& call, batch_state st, const fs::path& out)
      : o_(o), call_(call), st_(std::move(st)), out_(out), log_(out / "events.jsonl") {}

  void emit(nlohmann::json e) {
    e["t"] = now_seconds();
    log_.append(e);
    if (o_.on_event) o_.on_event(e);
  }
  /// Rewrites batch.json (events synced first). Not needed for crash safety between rounds: the
  /// write-ahead record of a submission is its attempt's state directory (see submit()), and a
  /// resumed batch reconciles batch.json with jobs/<key>/a<N> (reconcile_attempts).
  void save() {
    log_.sync();
    save_state(out_, st_);
    last_save_ = now_seconds();
    dirty_ = false;
  }
  /// save() when something changed and the last save is older than save_interval_s: batch.json
  /// is a checkpoint, rewritten at most about once per interval however many jobs end.
  void save_soon(bool changed) {
    dirty_ |= changed;
    if (dirty_ && now_seconds() - last_save_ >= o_.save_interval_s) save();
  }
  batch_state& state() { return st_; }

  core::result<engine_result> run(bool resumed, const std::vector<std::string>& reconciled) {
    if (resumed) {
      emit({{"event", "batch_resumed"},
            {"jobs", st_.jobs.size()},
            {"scheduler", st_.scheduler},
            {"attempts_found", reconciled}});
    } else {
      emit({{"event", "batch_started"},
            {"manifest", st_.manifest},
            {"jobs", st_.jobs.size()},
            {"scheduler", st_.scheduler},
            {"caps", to_json(st_)["caps"]}});
    }
    auto caps = call_("capabilities", nlohmann::json::object());
    if (!caps) return tl::unexpected(caps.error());
    const int slots = caps->value("slots", 1);
    limit_ = o_.jobs > 0 ? o_.jobs : std::max(1, slots);
    // The scheduler says how often it may be asked (a local pool: often; Slurm: every few seconds).
    poll_max_ = std::min(o_.poll_max_s, caps->value("poll_interval_s", o_.poll_max_s));
    // A scheduler that can wait for a job's end is asked to (status with wait_s) instead of polled.
    status_wait_ = caps->value("status_wait", false);
    emit({{"event", "scheduler_ready"}, {"capabilities", *caps}, {"in_flight_limit", limit_}});

    double wait = 0.005;
    double status_wait = 0;  // wait_s of the next status call
    for (;;) {
      bool changed = poll(status_wait);
      if (check_caps()) {
        changed = true;
        save();  // the cap and the jobs it held back are recorded at once
      }
      changed |= submit();
      save_soon(changed);
      if (!work_left()) break;
      if (status_wait_) {
        // Nothing to learn before a job ends or a back-off ends: let status wait for the former,
        // bounded by the latter (and by poll_max_s, so a cap or a signal is noticed in time).
        // After a change 2 ms at most (status still answers at once when a job ends), so a round
        // that keeps failing, e.g. a refused submit, never spins.
        status_wait = changed ? 0.002 : std::min(o_.poll_max_s, until_next_retry());
        if (status_wait > 0 && in_flight() == 0)
          std::this_thread::sleep_for(std::chrono::duration<double>(status_wait));
        continue;
      }
      if (changed) {
        wait = 0.005;
      } else {
        wait = std::min(poll_max_, wait * 2);
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(changed ? 0.002 : wait));
    }
    st_.finished = true;
    save();
    std::vector<summary_row> rows;
    for (const auto& j : st_.jobs) rows.push_back(row_from(j, read_run_outcome(j.run_dir)));
    engine_result r;
    r.summary = build_summary(rows, st_.stopped, st_.spent);
    write_summary(out_, r.summary);
    emit({{"event", "batch_finished"},
          {"headline", r.summary["headline"]},
          {"stopped", st_.stopped},
          {"spent", to_json(st_)["spent"]}});
    r.exit_code = st_.stopped.empty() ? 0 : 3;
    return r;
  }

 private:
  bool work_left() const {
    return std::any_of(st_.jobs.begin(), st_.jobs.end(), [](const job_record& j) {
      return j.state == "pending" || j.state == "submitting" || j.state == "submitted";
    });
  }

  int in_flight() const {
    return static_cast<int>(
        std::count_if(st_.jobs.begin(), st_.jobs.end(), [](const job_record& j) { return j.state == "submitted"; }));
  }

  /// Seconds until the earliest back-off of a pending job ends (poll_max_s when none waits).
  double until_next_retry() const {
    double next = o_.poll_max_s;
    const double now = now_seconds();
    for (const auto& j : st_.jobs)
      if (j.state == "pending" && j.retry_at > now) next = std::min(next, j.retry_at - now);
    return std::max(next, 0.001);
  }

  bool poll(double wait_s = 0) {
    std::vector<std::string> ids;
    for (const auto& j : st_.jobs)
      if (j.state == "submitted") ids.push_back(j.scheduler_id);
    if (ids.empty()) return false;
    nlohmann::json request{{"ids", ids}};
    if (wait_s > 0) request["wait_s"] = wait_s;
    auto r = call_("status", request);
    if (!r) {
      emit({{"event", "scheduler_error"}, {"method", "status"}, {"message", r.error().message}});
      return false;
    }
    bool changed = false;
    std::map<std::string, nlohmann::json> by_id;
    for (const auto& s : r->value("jobs", nlohmann::json::array())) by_id[s.value("id", "")] = s;
    for (auto& j : st_.jobs) {
      if (j.state != "submitted") continue;
      const auto it = by_id.find(j.scheduler_id);
      if (it == by_id.end()) continue;
      const auto& s = it->second;
      const std::string state = s.value("state", "unknown");
      if (state != j.scheduler_state) changed = true;
      j.scheduler_state = state;
      if (!s.value("gpu", "").empty()) j.gpu = s.value("gpu", "");
      if (!s.value("node", "").empty()) j.node = s.value("node", "");
      if (state == "running" && j.started_at == 0) {
        j.started_at = s.value("started_at", now_seconds());
        emit({{"event", "job_running"},
              {"key", j.entry.key},
              {"attempt", j.attempt},
              {"gpu", j.gpu},
              {"node", j.node},
              {"started_at", j.started_at}});
      } else if (state == "unknown") {
        // The scheduler never started it (e.g. it was queued in a batch process that died): submit
        // the same attempt again; the state directory shows nothing ran.
        j.state = "submitting";
        emit({{"event", "job_requeued"},
              {"key", j.entry.key},
              {"attempt", j.attempt},
              {"reason", s.value("reason", "")}});
      } else if (is_final(state)) {
        finish(j, s);
      }
    }
    return changed;
  }

  void finish(job_record& j, const nlohmann::json& s) {
    const std::string state = s.value("state", "");
    const run_outcome run = read_run_outcome(j.run_dir);
    j.exit_code = s.contains("exit_code") ? std::optional<int>(s["exit_code"].get<int>()) : std::nullopt;
    j.started_at = s.value("started_at", j.started_at > 0 ? j.started_at : now_seconds());
    j.finished_at = s.value("finished_at", now_seconds());
    if (j.finished_at > j.started_at) st_.spent.gpu_hours += (j.finished_at - j.started_at) / 3600.0;
    nlohmann::json ev{{"event", "job_finished"},
                      {"key", j.entry.key},
                      {"attempt", j.attempt},
                      {"gpu", j.gpu},
                      {"node", j.node},
                      {"started_at", j.started_at},
                      {"finished_at", j.finished_at},
                      {"scheduler_state", state}};
    ev["exit_code"] = j.exit_code ? nlohmann::json(*j.exit_code) : nlohmann::json(nullptr);
    if (state == "cancelled") {
      j.state = "done";
      j.result = "cancelled";
      j.reason = "cancelled: " + s.value("reason", std::string("the scheduler cancelled the job"));
      ev["result"] = j.result;
      emit(ev);
      return;
    }
    std::string why;
    if (infrastructure_failure(state, j.exit_code, run, why)) {
      if (j.attempt < o_.max_attempts) {
        j.state = "pending";
        j.retry_at = now_seconds() + o_.retry_backoff_s * std::pow(2.0, j.attempt - 1);
        j.reason = why;
        emit({{"event", "job_retry"},
              {"key", j.entry.key},
              {"attempt", j.attempt},
              {"reason", why},
              {"retry_at", j.retry_at},
              {"gpu", j.gpu},
              {"started_at", j.started_at},
              {"finished_at", j.finished_at}});
        return;
      }
      j.state = "done";
      j.result = "error";
      j.reason = "infrastructure failure, " + std::to_string(j.attempt) + " attempts: " + why;
    } else {
      j.state = "done";
      j.result = run.outcome;
      j.reason = run.failed_checks.empty() ? run.message.substr(0, run.message.find('\n')) : run.failed_checks.front();
    }
    j.tokens = run.input_tokens + run.output_tokens;
    j.usd = run.usd;
    st_.spent.tokens += j.tokens;
    st_.spent.usd += j.usd;
    ev["result"] = j.result;
    ev["tokens"] = j.tokens;
    ev["usd"] = j.usd;
    emit(ev);
  }

  /// Stops the batch at a cap. Once stopped, nothing pending is submitted: a job not yet started
  /// is `not started: spend cap`, and a job waiting to retry an infrastructure failure ends as
  /// that error (its retry is new spend too). Returns true when it changed anything.
  bool check_caps() {
    const bool newly = st_.stopped.empty();
    if (newly) {
      const std::string why = cap_reached(st_.limits, st_.spent);
      if (why.empty()) return false;
      st_.stopped = why;
    }
    int held = 0;
    for (auto& j : st_.jobs) {
      if (j.state != "pending") continue;
      if (j.attempt == 0) {
        j.state = "not_started";
        j.result = "not_started";
        j.reason = "not started: spend cap";
      } else {
        j.state = "done";
        j.result = "error";
        j.reason = "infrastructure failure, " + std::to_string(j.attempt) + " attempt(s): " + j.reason +
                   "; not retried: spend cap";
        emit({{"event", "job_finished"},
              {"key", j.entry.key},
              {"attempt", j.attempt},
              {"result", j.result},
              {"reason", j.reason}});
      }
      ++held;
    }
    if (newly)
      emit(
          {{"event", "cap_reached"}, {"reason", st_.stopped}, {"not_started", held}, {"spent", to_json(st_)["spent"]}});
    return newly || held > 0;
  }

  bool submit() {
    int in_flight = 0;
    for (const auto& j : st_.jobs) in_flight += j.state == "submitted" ? 1 : 0;
    const double now = now_seconds();
    std::vector<job_record*> batch;
    // Write-ahead: pick the jobs and record them as submitting (and their attempt's state
    // directory) before the scheduler hears of any of them.
    for (auto& j : st_.jobs) {
      if (in_flight + static_cast<int>(batch.size()) >= limit_) break;
      if (j.state == "submitting") batch.push_back(&j);
    }
    for (auto& j : st_.jobs) {
      if (in_flight + static_cast<int>(batch.size()) >= limit_ || !st_.stopped.empty()) break;
      if (j.state != "pending" || j.retry_at > now) continue;
      ++j.attempt;
      j.state = "submitting";
      j.state_dir = (out_ / "jobs" / j.entry.key / ("a" + std::to_string(j.attempt))).string();
      j.started_at = j.finished_at = 0;
      j.scheduler_state.clear();
      batch.push_back(&j);
    }
    if (batch.empty()) return false;
    // The write-ahead record: each attempt's state directory exists before the scheduler hears of
    // it. A batch killed before its next save is resumed with the attempt found there (a directory
    // newer than batch.json's attempt means "submitting"); submit is idempotent per directory.
    for (job_record* j : batch) fs::create_directories(j->state_dir);
    for (job_record* j : batch) {
      nlohmann::json job{{"name", "r2r-" + j->entry.key},
                         {"argv", job_argv(o_, *j)},
                         {"state_dir", j->state_dir},
                         {"workdir", out_.string()},
                         {"gpus", 1}};
      auto r = call_("submit", job);
      if (!r) {
        emit({{"event", "scheduler_error"},
              {"method", "submit"},
              {"key", j->entry.key},
              {"message", r.error().message}});
        break;  // stays submitting: asked again next round
      }
      if (!r->value("accepted", false)) {
        if (!queue_full_noted_)
          emit({{"event", "submit_deferred"}, {"key", j->entry.key}, {"reason", r->value("reason", "")}});
        queue_full_noted_ = true;
        break;
      }
      queue_full_noted_ = false;
      j->state = "submitted";
      j->scheduler_id = r->value("id", "");
      j->submitted_at = now_seconds();
      emit({{"event", "job_submitted"},
            {"key", j->entry.key},
            {"attempt", j->attempt},
            {"id", j->scheduler_id},
            {"adopted", r->value("adopted", false)}});
    }
    return true;
  }

  const engine_options& o_;
  const scheduler_call& call_;
  batch_state st_;
  fs::path out_;
  event_log log_;
  int limit_ = 1;
  double poll_max_ = 0.5;
  bool queue_full_noted_ = false;
  double last_save_ = 0;
  bool dirty_ = false;
  bool status_wait_ = false;
};

}  // namespace

std::string cap_reached(const caps& limits, const spend& spent) {
  if (limits.max_usd && spent.usd >= *limits.max_usd)
    return "spend cap: max_usd " + money(*limits.max_usd) + " reached (" + money(spent.usd) + " spent)";
  if (limits.max_tokens && spent.tokens >= *limits.max_tokens)
    return "spend cap: max_tokens " + std::to_string(*limits.max_tokens) + " reached (" + std::to_string(spent.tokens) +
           " spent)";
  if (limits.max_gpu_hours && spent.gpu_hours >= *limits.max_gpu_hours)
    return "spend cap: max_gpu_hours " + money(*limits.max_gpu_hours) + " reached (" + money(spent.gpu_hours) +
           " used)";
  return {};
}

bool infrastructure_failure(const std::string& scheduler_state, const std::optional<int>& exit_code,
                            const run_outcome& run, std::string& why) {
  if (scheduler_state == "lost") {
    why = "the job ended without an exit status (its node or wrapper died)";
    return true;
  }
  if (exit_code && *exit_code > 128 && *exit_code < 160) {
    why =
        "killed by signal " + std::to_string(*exit_code - 128) + (*exit_code == 137 ? " (OOM killer or kill -9)" : "");
    return true;
  }
  if (exit_code && *exit_code == 75) {
    why = "another process held the job's lock";
    return true;
  }
  if (!run.has_verdict) {
    why = "the run ended (exit " + (exit_code ? std::to_string(*exit_code) : std::string("?")) + ") without a verdict";
    return true;
  }
  if (run.outcome == "error" && run.failed_stage == "environment" &&
      (run.message.find("no sandbox answered") != std::string::npos ||
       run.message.find("does not answer") != std::string::npos)) {
    why = "the container engine was down: " + run.message.substr(0, run.message.find('\n'));
    return true;
  }
  return false;
}

std::vector<std::string> job_argv(const engine_options& o, const job_record& job) {
  std::vector<std::string> argv = o.runner;
  argv.insert(argv.end(), {"run", job.entry.repo, "--run-dir", job.run_dir, "--json", "--gpu", "{gpu}", "--mode",
                           job.entry.mode.empty() ? o.mode : job.entry.mode});
  if (!job.entry.commit.empty()) argv.insert(argv.end(), {"--commit", job.entry.commit});
  const std::string arch = job.entry.arch.empty() ? o.arch : job.entry.arch;
  if (!arch.empty()) argv.insert(argv.end(), {"--arch", arch});
  if (!o.pipeline.empty()) argv.insert(argv.end(), {"--pipeline", o.pipeline});
  if (const auto b = job.entry.extra.find("base_image"); b != job.entry.extra.end() && b->is_string())
    argv.insert(argv.end(), {"--base-image", b->get<std::string>()});
  return argv;
}

core::result<engine_result> run_batch(const engine_options& o, const scheduler_call& scheduler) {
  std::error_code ec;
  const fs::path out = fs::absolute(o.out_dir).lexically_normal();
  fs::create_directories(out / "runs", ec);
  fs::create_directories(out / "jobs", ec);
  if (ec) return tl::unexpected(usage("cannot create the batch directory " + out.string() + ": " + ec.message()));
  dir_lock lock(out);
  if (!lock.held())
    return tl::unexpected(usage("another repo2rocm batch is working in " + out.string() +
                                " (its .lock is held); wait for it or use another --out"));
  std::optional<batch_state> existing;
  try {
    existing = load_state(out);
  } catch (const std::exception& e) {
    return tl::unexpected(usage(e.what()));
  }
  if (existing && !o.resume)
    return tl::unexpected(usage(out.string() + " already holds a batch (batch.json): pass --resume to finish it, "
                                               "or choose another --out"));
  if (!existing && o.resume)
    return tl::unexpected(
        usage("--resume: " + out.string() + " holds no batch.json; start the batch without --resume"));
  batch_state st;
  if (existing) {
    st = std::move(*existing);
    if (o.limits.max_usd) st.limits.max_usd = o.limits.max_usd;
    if (o.limits.max_tokens) st.limits.max_tokens = o.limits.max_tokens;
    if (o.limits.max_gpu_hours) st.limits.max_gpu_hours = o.limits.max_gpu_hours;
    if (st.scheduler != o.scheduler_id)
      return tl::unexpected(usage("the batch in " + out.string() + " runs on " + st.scheduler + ", not " +
                                  o.scheduler_id + ": resume it with --scheduler " + st.scheduler));
  } else {
    auto entries = load_manifest(o.manifest);
    if (!entries) return tl::unexpected(entries.error());
    st.manifest = fs::absolute(o.manifest).string();
    st.scheduler = o.scheduler_id;
    st.limits = o.limits;
    st.created_at = now_seconds();
    st.options = {{"mode", o.mode}, {"pipeline", o.pipeline}, {"arch", o.arch}, {"jobs", o.jobs}};
    for (auto& e : *entries) {
      job_record j;
      j.entry = std::move(e);
      j.run_dir = (out / "runs" / j.entry.key).string();
      st.jobs.push_back(std::move(j));
    }
    save_state(out, st);
  }
  std::vector<std::string> reconciled;
  if (existing) reconciled = reconcile_attempts(out, st);
  engine_options effective = o;
  if (existing) {
    effective.mode = st.options.value("mode", o.mode);
    effective.pipeline = st.options.value("pipeline", o.pipeline);
    effective.arch = st.options.value("arch", o.arch);
  }
  try {
    engine e(effective, scheduler, std::move(st), out);
    return e.run(existing.has_value(), reconciled);
  } catch (const std::exception& ex) {
    return tl::unexpected(core::error{core::phase::run, std::string("batch: ") + ex.what(), "", out.string()});
  }
}

}  // namespace r2r::batch
