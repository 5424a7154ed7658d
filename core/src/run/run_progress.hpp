// SPDX-License-Identifier: MIT
// What `repo2rocm run` tells the operator while it works. Two styles:
//   - events: one JSON object per line on `out` (stdout): run_started, stage_started,
//     stage_progress, stage_finished, verdict (docs/run.md "Events");
//   - live: a terminal display on `err` (stderr), one line per stage with a spinner, the elapsed
//     time and the latest update, redrawn in place with plain ANSI escapes.
// Every event also goes to RUN_DIR/events.jsonl once attach() named it; events emitted before
// (intake runs before the run directory exists) are buffered and written first, in order.
// THREADING: the public methods are called from one thread; in the live style a ticker thread
// redraws the current stage line, serialised with them by a mutex.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

namespace r2r::run {

class run_progress {
 public:
  enum class style { events, live };
  run_progress(style s, std::ostream& out, std::ostream& err);
  ~run_progress();
  run_progress(const run_progress&) = delete;
  run_progress& operator=(const run_progress&) = delete;

  /// Appends every event so far, and all later ones, to `events_file` (opened in append mode, so a
  /// resumed run adds to the same log). Errors: false when the file cannot be opened.
  bool attach(const std::filesystem::path& events_file);

  void run_started(const nlohmann::json& fields);
  void stage_started(const std::string& stage);
  /// A short update for the current stage ("step 2/3: pip install -r requirements.txt").
  void stage_progress(const std::string& stage, const std::string& text);
  /// status: ok, failed, unavailable, skipped, resumed.
  void stage_finished(const std::string& stage, const std::string& status, const std::string& message,
                      const nlohmann::json& results, double seconds);
  /// The end of the run: outcome (verified, not_verified, no_device, baseline_ran, baseline_failed,
  /// error), exit code, one-line message and details.
  void verdict(const std::string& outcome, int exit_code, const std::string& message, const nlohmann::json& details);

  style display() const noexcept { return style_; }

 private:
  void emit(nlohmann::json event);
  void draw_current_locked();
  void ticker();

  style style_;
  std::ostream& out_;
  std::ostream& err_;
  std::ofstream file_;
  bool attached_ = false;
  std::vector<std::string> pending_;  // serialised events awaiting attach()

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread ticker_;
  std::string current_;  // stage being shown live; empty: none
  std::string current_text_;
  std::chrono::steady_clock::time_point current_start_;
  unsigned spin_ = 0;
};

}  // namespace r2r::run
