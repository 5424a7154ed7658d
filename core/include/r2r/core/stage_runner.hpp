// SPDX-License-Identifier: MIT
// The one stage runner of repo2rocm. Two ways to drive it, one handler table:
//   - run(): the stages of a pipeline session in file order; consecutive entries of the same stage
//     form one group (a converter chain, a guard chain) handed to that stage's handler together;
//   - run_sequence(): named stages in a given order (the stages of `repo2rocm run`: intake, plan,
//     port, environment, execute, verify, bundle); each gets the session's entries of the same
//     stage name as its group (often none), and resumable stages leave resume markers.
// A stage without a handler is an error (run) or "unavailable" (run_sequence), never skipped.
//
// Resume markers (run_sequence with a marker directory): after a resumable stage succeeds,
// DIR/<stage>.json records its outputs (path, kind, size) and results; it is written to a temporary
// file and renamed, so it is complete or absent. A later sequence skips a stage whose marker is
// present, whose outputs still exist with the recorded sizes and whose restorer succeeds
// ("resumed"). A stage that runs again removes the markers of every stage after it.
// THREADING: one run at a time per runner; handlers and observers run on the calling thread.
#pragma once

#include <r2r/core/pipeline_session.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace r2r::core {

struct stage_group {
  std::string stage;
  std::vector<pipeline_session::stage_member> members;
};

/// What a handler reports besides success or failure: a line for people, key results (the
/// progress event and the resume marker) and the files or directories it wrote, relative to the
/// marker root's run directory. `skipped`: the stage had nothing to do (not an error).
struct stage_output {
  bool skipped = false;
  std::string message;
  nlohmann::json results = nlohmann::json::object();
  std::vector<std::string> outputs;
};

/// What a handler sees: its group, the session (for services), the run state that stages read and
/// extend (plan, conversion results, ...) and its output.
struct stage_context {
  const stage_group& group;
  pipeline_session& session;
  nlohmann::json& state;
  stage_output& output;
};

struct stage_report {
  std::string stage;
  std::vector<std::string> members;  // stage entry names
  double seconds = 0;
  bool ok = false;
  std::string error;  // empty when ok
  /// ok, failed, unavailable (no handler), skipped, resumed.
  std::string status;
  stage_output output;
  bool usage = false;  // failed on the operator's input (error phase usage)
};

/// How run_sequence reports and where it keeps resume markers.
struct sequence_options {
  /// The run directory (asked after every stage: the first stage may create it); empty: no markers.
  std::function<std::filesystem::path()> run_dir;
  std::function<void(const std::string& stage)> started;
  std::function<void(const stage_report&)> finished;
};

class stage_runner {
 public:
  using handler = std::function<result<void>(stage_context&)>;
  /// Reloads the run state from a marker's results when a resumed sequence skips the stage.
  using restorer = std::function<result<void>(const nlohmann::json& results)>;

  /// Registers the handler of `stage` (replacing any previous one); a restorer makes it resumable.
  void on(const std::string& stage, handler h, restorer r = {});
  bool handles(const std::string& stage) const { return handlers_.count(stage) != 0; }

  /// The groups of `session` in run order.
  static std::vector<stage_group> groups_of(const pipeline_session& session);

  /// Runs every group; stops at the first failure or cancellation. The reports cover the stages
  /// that ran, the failed one included.
  result<std::vector<stage_report>> run(pipeline_session& session, nlohmann::json& state) const;

  /// Runs `order` (stage names) one after another and stops at the first that fails or is
  /// unavailable. The reports cover every stage started.
  std::vector<stage_report> run_sequence(pipeline_session& session, const std::vector<std::string>& order,
                                         nlohmann::json& state, const sequence_options& options) const;

  /// The marker file of `stage` under `run_dir`.
  static std::filesystem::path marker(const std::filesystem::path& run_dir, const std::string& stage);

 private:
  struct entry {
    handler run;
    restorer restore;
  };
  std::map<std::string, entry, std::less<>> handlers_;
};

}  // namespace r2r::core
