// SPDX-License-Identifier: MIT
// The turn loop shared by run() and resume(): see docs/executor.md.
#include "checkpoint_store.hpp"
#include "guard_chain.hpp"
#include "run_record.hpp"
#include "sandbox_driver.hpp"

#include <r2r/executor/action.hpp>
#include <r2r/executor/executor.hpp>
#include <r2r/executor/trajectory.hpp>
#include <r2r/support/safe_fs.hpp>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>

namespace r2r::executor {
namespace fs = std::filesystem;

std::string_view to_string(outcome_kind k) noexcept {
  switch (k) {
    case outcome_kind::claimed:
      return "claimed";
    case outcome_kind::gave_up:
      return "gave_up";
    case outcome_kind::cap_reached:
      return "cap_reached";
    case outcome_kind::stuck:
      return "stuck";
    case outcome_kind::error:
      return "error";
  }
  return "error";
}

namespace {

using clock = std::chrono::steady_clock;

std::optional<outcome_kind> outcome_from(const std::string& s) {
  for (auto k : {outcome_kind::claimed, outcome_kind::gave_up, outcome_kind::cap_reached, outcome_kind::stuck,
                 outcome_kind::error}) {
    if (to_string(k) == s) return k;
  }
  return std::nullopt;
}

struct stage_pair {
  core::plugin_instance* policy = nullptr;
  core::plugin_instance* sandbox = nullptr;
  std::string policy_name;
  nlohmann::json package_index = nlohmann::json::object();  // the sandbox stage's config "package_index"
};

/// `url` without the credentials of its userinfo ("https://u:p@host/x" -> "https://***@host/x").
std::string without_credentials(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const auto host_end = url.find('/', scheme + 3);
  const auto at = url.rfind('@', host_end == std::string::npos ? url.size() : host_end);
  if (at == std::string::npos || at < scheme + 3) return url;
  return url.substr(0, scheme + 3) + "***" + url.substr(at);
}

/// The index an install exec of this sandbox uses, as the trajectory records it: index_url and
/// extra_index_urls of the sandbox stage's package_index, credentials removed (proxies are not
/// part of what was installed and are not recorded).
nlohmann::json recorded_index(const nlohmann::json& package_index) {
  nlohmann::json out = nlohmann::json::object();
  if (!package_index.is_object()) return out;
  if (const auto u = package_index.find("index_url"); u != package_index.end() && u->is_string() && !u->empty())
    out["index_url"] = without_credentials(u->get<std::string>());
  if (const auto e = package_index.find("extra_index_urls"); e != package_index.end() && e->is_array()) {
    for (const auto& url : *e)
      if (url.is_string() && !url.empty())
        out["extra_index_urls"].push_back(without_credentials(url.get<std::string>()));
  }
  return out;
}

core::result<stage_pair> find_stages(core::pipeline_session& session, const std::string& sandbox_stage) {
  stage_pair out;
  int policies = 0;
  int sandboxes = 0;
  for (const auto& m : session.stages()) {
    if (m.stage->stage == "policy") ++policies, out.policy = m.instance, out.policy_name = m.stage->name;
    if (m.stage->stage != "sandbox") continue;
    if (sandbox_stage.empty()) ++sandboxes, out.sandbox = m.instance;
    if (!sandbox_stage.empty() && m.stage->name == sandbox_stage) ++sandboxes, out.sandbox = m.instance;
    if (out.sandbox == m.instance)
      out.package_index = m.stage->plugin.config.value("package_index", nlohmann::json::object());
  }
  if (!sandbox_stage.empty() && sandboxes == 0) {
    return core::fail(core::phase::config,
                      "the executor was told to use the sandbox stage '" + sandbox_stage +
                          "', which the pipeline does not have; name one of its `sandbox` stages",
                      {}, session.config().file.string());
  }
  if (policies != 1 || sandboxes != 1) {
    return core::fail(core::phase::config,
                      "the executor needs exactly one `policy` and one `sandbox` stage in the pipeline; found " +
                          std::to_string(policies) + " policy and " + std::to_string(sandboxes) +
                          " sandbox stages. Add them to \"pipeline\" (see docs/executor.md).",
                      {}, session.config().file.string());
  }
  return out;
}

void redact_strings(nlohmann::json& j, const redactor& r) {
  if (j.is_string()) {
    j = r.redact(j.get_ref<const std::string&>());
  } else if (j.is_object() || j.is_array()) {
    for (auto& v : j) redact_strings(v, r);
  }
}

std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out;
}

class turn_loop {
 public:
  turn_loop(core::pipeline_session& session, stage_pair stages, run_options options, fs::path run_dir)
      : stages_(stages),
        options_(std::move(options)),
        run_dir_(std::move(run_dir)),
        guards_(session),
        redactor_(redactor::from_process_environment()),
        driver_(
            *stages.sandbox, run_dir_ / "workspace", options_.command_timeout_s,
            [this](const std::string& c, const raw_observation& o) { log_command(c, o); }, options_.sandbox_create),
        store_(driver_, run_dir_),
        stuck_(options_.stuck) {}

  core::result<void> open_logs() {
    auto t = append_file::open(run_dir_ / "trajectory.jsonl");
    if (!t) return tl::unexpected(t.error());
    trajectory_.emplace(std::move(*t));
    auto c = append_file::open(run_dir_ / "commands.log");
    if (!c) return tl::unexpected(c.error());
    commands_.emplace(std::move(*c));
    return {};
  }

  // Fresh run: workspace prepared by the caller; creates the sandbox and the first checkpoint.
  core::result<nlohmann::json> start(const std::string& image) {
    if (auto c = driver_.create(image); !c) return tl::unexpected(c.error());
    auto first = store_.take("start", -1);
    if (!first) return tl::unexpected(first.error());
    snapshot_ = first->archive;
    return first->to_json();
  }

  // Resume: rebuilds every piece of state from the recorded lines, restores the workspace and
  // re-creates the sandbox. Returns the outcome when the recorded lines already end the run.
  core::result<std::optional<run_outcome>> restore(const nlohmann::json& first_checkpoint,
                                                   const std::vector<nlohmann::json>& lines,
                                                   const std::function<void(const std::string&)>& report) {
    store_.remember(checkpoint_record::from_json(first_checkpoint));
    snapshot_ = first_checkpoint.at("archive").get<std::string>();
    std::string image = options_.image;
    std::optional<run_outcome> ended;
    for (const auto& line : lines) {
      const auto record = line.get<turn_record>();
      if (auto c = line.find("checkpoint"); c != line.end()) {
        for (const auto& cp : *c) store_.remember(checkpoint_record::from_json(cp));
      }
      image = line.value("image", image);
      snapshot_ = line.value("workspace_snapshot", snapshot_);
      policy_state_ = line.value("state", nlohmann::json());
      tokens_ += line.value("usage", nlohmann::json::object()).value("input_tokens", std::int64_t{0}) +
                 line.value("usage", nlohmann::json::object()).value("output_tokens", std::int64_t{0});
      usd_ += line.value("usage", nlohmann::json::object()).value("cost_usd", 0.0);
      elapsed_base_ = line.value("elapsed_s", elapsed_base_);
      if (record.observed) {
        (void)guards_.observe(line.at("action"), guard_observation(line.at("observation")),
                              context(record.turn, image));
      }
      pending_hints_.clear();
      ended = after_record(record, line);
      history_.push_back(record);
      next_turn_ = record.turn + 1;
    }
    report("restoring the workspace from " + snapshot_);
    // The workspace is restored on the host before the sandbox exists, so nothing runs in it.
    if (auto r = store_.restore(snapshot_); !r) return tl::unexpected(r.error());
    if (auto c = driver_.create(image); !c) return tl::unexpected(c.error());
    store_.prune_snapshots(snapshot_);
    if (!lines.empty() && options_.hints_provider && !ended) add_provider_hints(history_.back());
    return ended;
  }

  core::result<run_outcome> loop() {
    start_ = clock::now();
    while (true) {
      if (auto cap = cap_reached()) return finish(outcome_kind::cap_reached, *cap);
      auto step = turn();
      if (!step) return tl::unexpected(step.error());
      if (*step) return finish((*step)->kind, (*step)->reason);
    }
  }

  core::result<run_outcome> finish(outcome_kind kind, const std::string& reason) {
    run_outcome out{kind, redactor_.redact(reason), next_turn_, run_dir_};
    const nlohmann::json j{
        {"outcome", to_string(kind)}, {"reason", out.reason}, {"turns", out.turns}, {"timestamp", utc_timestamp()}};
    if (auto w = write_file_atomic(run_dir_ / "outcome.json", j.dump(2) + "\n"); !w) return tl::unexpected(w.error());
    return out;
  }

 private:
  double elapsed() const { return elapsed_base_ + std::chrono::duration<double>(clock::now() - start_).count(); }

  std::optional<std::string> cap_reached() const {
    const auto& c = options_.caps;
    auto over = [](auto used, auto cap) { return " (over by " + std::to_string(used - cap) + ")"; };
    if (c.max_turns >= 0 && next_turn_ >= c.max_turns) {
      return "max_turns: " + std::to_string(next_turn_) + " turns used of " + std::to_string(c.max_turns) +
             over(next_turn_, c.max_turns);
    }
    if (c.max_seconds >= 0 && elapsed() >= c.max_seconds) {
      return "max_seconds: " + std::to_string(elapsed()) + " s used of " + std::to_string(c.max_seconds) +
             over(elapsed(), c.max_seconds);
    }
    if (c.max_tokens >= 0 && tokens_ >= c.max_tokens) {
      return "max_tokens: " + std::to_string(tokens_) + " tokens used of " + std::to_string(c.max_tokens) +
             over(tokens_, c.max_tokens);
    }
    if (c.max_usd >= 0 && usd_ >= c.max_usd) {
      return "max_usd: $" + std::to_string(usd_) + " used of $" + std::to_string(c.max_usd) + over(usd_, c.max_usd);
    }
    return std::nullopt;
  }

  nlohmann::json context(std::int64_t turn, const std::string& image) const {
    return {{"mode", options_.mode},    {"arch", options_.arch}, {"turn", turn},  {"verifier_ran", false},
            {"verifier_passed", false}, {"plan", options_.plan}, {"image", image}};
  }

  static nlohmann::json guard_observation(const nlohmann::json& o) {
    return {{"exit_code", o.value("exit_code", 0)},
            {"stdout", o.value("stdout", std::string())},
            {"stderr", o.value("stderr", std::string())}};
  }

  nlohmann::json budget() const {
    const auto& c = options_.caps;
    return {{"turns_left", c.max_turns >= 0 ? c.max_turns - next_turn_ : -1},
            {"seconds_left", c.max_seconds >= 0 ? c.max_seconds - elapsed() : -1.0},
            {"tokens_left", c.max_tokens >= 0 ? c.max_tokens - tokens_ : -1},
            {"usd_left", c.max_usd >= 0 ? c.max_usd - usd_ : -1.0}};
  }

  nlohmann::json propose_request() const {
    nlohmann::json history = nlohmann::json::array();
    const std::size_t keep =
        options_.history_turns > 0 ? static_cast<std::size_t>(options_.history_turns) : history_.size();
    for (std::size_t i = history_.size() > keep ? history_.size() - keep : 0; i < history_.size(); ++i) {
      history.push_back(history_[i]);
    }
    return {{"turn", next_turn_},
            {"plan", options_.plan.is_object() ? options_.plan : nlohmann::json::object()},
            {"history", std::move(history)},
            {"hints", pending_hints_},
            {"budget", budget()},
            {"context",
             {{"mode", options_.mode},
              {"arch", options_.arch},
              {"image", driver_.image()},
              {"workspace", driver_.sandbox_workspace()}}},
            {"state", policy_state_}};
  }

  void log_command(const std::string& command, const raw_observation& o) {
    if (!commands_) return;
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.3f", o.seconds);
    const std::string line = utc_timestamp() + " turn " + std::to_string(next_turn_) + " exit " +
                             std::to_string(o.exit_code) + (o.timed_out ? " timed-out" : "") + " " + secs + "s $ " +
                             one_line(redactor_.redact(command)) + "\n";
    (void)commands_->append(line, false);
  }

  // Creates the workspace directory `dir` inside the sandbox (mkdir -p) and resolves it there with
  // `pwd -P`, so a link inside the workspace (src -> lib/src) keeps working. Returns the exec and,
  // when the directory resolves outside the workspace, why the write is refused; on success the
  // observation's stdout is the physical directory relative to the workspace ("" for the workspace
  // itself), or `dir` itself where the sandbox printed it as binary (copy_in then refuses links).
  std::pair<raw_observation, std::string> resolve_directory(const std::string& dir) {
    const std::string ws = driver_.sandbox_workspace();
    auto o =
        driver_.exec("mkdir -p -- " + shell_quote(dir) + " && cd -- " + shell_quote(dir) + " && w=" + shell_quote(ws) +
                     " && p=$(pwd -P) && case \"$p\" in \"$w\") echo;; \"$w\"/*) printf '%s\\n' \"${p#\"$w\"/}\";; "
                     "*) printf '%s\\n' \"$p\"; exit 3;; esac");
    std::string out = o.stdout_text;
    if (!out.empty() && out.back() == '\n') out.pop_back();
    if (o.exit_code == 3 && !o.timed_out) {
      return {o, "the directory " + dir + " resolves to " + out + " inside the sandbox, outside the workspace " + ws +
                     " (a symbolic link on the way leads out of it); write_file only writes inside the workspace"};
    }
    if (o.failed()) return {o, ""};
    o.stdout_text = out.rfind("[binary output", 0) == 0 ? dir : out;
    return {o, ""};
  }

  // Runs an allowed action; fills line["checkpoint"] / line["rollback"] for the store's work.
  raw_observation perform(const nlohmann::json& a, nlohmann::json& line) {
    const std::string type = a.at("type").get<std::string>();
    const std::int64_t turn = next_turn_;
    auto message = [](int code, std::string text) {
      raw_observation o;
      o.exit_code = code;
      (code == 0 ? o.stdout_text : o.stderr_text) = std::move(text);
      return o;
    };
    // A package install (an install action, or a run/build_kernel whose command is one) is recorded
    // as line["install"]: the command as run and the index it used, for the bundle's Dockerfile.
    auto install = [&](const std::string& command) {
      line["install"] = {{"command", command}, {"index", recorded_index(stages_.package_index)}};
      return driver_.exec(command, true);
    };
    if (type == "run" || type == "build_kernel") {
      const auto command = a.at("command").get<std::string>();
      return is_package_install(command) ? install(command) : driver_.exec(command);
    }
    if (type == "run_workload") return driver_.exec(a.at("command").get<std::string>());
    if (type == "install") return install(install_command(a));
    if (type == "read_file") return driver_.exec("cat -- " + shell_quote(a.at("path").get<std::string>()));
    if (type == "write_file" || type == "apply_patch") {
      const bool write = type == "write_file";
      const fs::path rel = write ? fs::path(a.at("path").get<std::string>()).lexically_normal() : fs::path();
      // The patch file's name carries this process's pid: after a SIGKILL, a command of the killed
      // attempt that is still dying (its `patch …; rm -f FILE`) cannot delete the resumed attempt's
      // copy of the same turn's patch.
      const std::string name = write
                                   ? rel.filename().string()
                                   : ".r2r-patch-" + std::to_string(turn) + "-" + std::to_string(::getpid()) + ".diff";
      const std::string body = a.at(write ? "content" : "patch").get<std::string>();
      // Staged in the executor's own RUN_DIR/tmp, then copied by the sandbox's copy_in, which never
      // follows a link in the workspace (see docs/executor.md, "Containment").
      const fs::path staging = run_dir_ / "tmp" / ("turn-" + std::to_string(turn));
      std::error_code ec;
      fs::remove_all(staging, ec);
      fs::create_directories(staging, ec);
      try {
        safe_fs::write_file(safe_fs::root::open(staging, "staging directory"), name, body);
      } catch (const safe_fs::error& e) {
        return message(1, "the executor could not stage the file in " + staging.string() + ": " + e.what());
      }
      std::string dir = write ? rel.parent_path().string() : std::string();
      if (!dir.empty()) {
        auto resolved = resolve_directory(dir);
        if (!resolved.second.empty()) return message(1, "write_file " + rel.string() + ": " + resolved.second);
        if (resolved.first.failed()) return resolved.first;
        dir = resolved.first.stdout_text;
      }
      auto copied = driver_.copy_in(staging / name, dir);
      fs::remove_all(staging, ec);
      if (!copied) return message(1, "copy into the sandbox failed: " + copied.error().message);
      if (write) return message(0, "wrote " + std::to_string(body.size()) + " bytes to " + rel.string());
      const std::string level = body.rfind("--- a/", 0) == 0 || body.find("\n--- a/") != std::string::npos ? "1" : "0";
      const std::string f = shell_quote(name);
      return driver_.exec("patch -p" + level + " --batch --forward --dry-run -i " + f + " >/dev/null && patch -p" +
                          level + " --batch --forward --no-backup-if-mismatch -i " + f + "; rc=$?; rm -f " + f +
                          "; exit $rc");
    }
    if (type == "switch_image") {
      const std::string old_image = driver_.image();
      const std::string image = a.at("image").get<std::string>();
      if (auto c = driver_.create(image); !c) {
        auto back = driver_.create(old_image);
        return message(1, "cannot create a sandbox on " + image + ": " + c.error().message +
                              (back ? "; the sandbox runs " + old_image + " again"
                                    : "; re-creating on " + old_image + " failed too: " + back.error().message));
      }
      return message(0, "the sandbox runs " + image + " now; the workspace was kept");
    }
    if (type == "checkpoint") {
      auto cp = store_.take(a.at("label").get<std::string>(), turn);
      if (!cp) return message(1, "checkpoint failed: " + cp.error().message);
      line["checkpoint"].push_back(cp->to_json());
      return message(0, "checkpoint '" + cp->label + "' taken");
    }
    if (type == "rollback") {
      auto cp = store_.rollback(a.at("to").get<std::string>());
      if (!cp) return message(1, "rollback failed: " + cp.error().message);
      line["rollback"] = {{"to", cp->label}, {"name", cp->name}, {"reason", "rollback action"}};
      return message(0, "workspace rolled back to checkpoint '" + cp->label + "'");
    }
    return message(1, "the executor cannot run actions of type " + type);
  }

  nlohmann::json observation_json(const raw_observation& o) const {
    bool cut_out = false;
    bool cut_err = false;
    nlohmann::json j{{"exit_code", o.exit_code},
                     {"stdout", compact(redactor_.redact(o.stdout_text), options_.compaction, &cut_out)},
                     {"stderr", compact(redactor_.redact(o.stderr_text), options_.compaction, &cut_err)},
                     {"truncated", o.truncated || cut_out || cut_err},
                     {"timed_out", o.timed_out},
                     {"seconds", o.seconds}};
    if (o.failed()) j["error_signature"] = error_signature(o.stdout_text, o.stderr_text);
    return j;
  }

  // Stuck detector and terminal decisions of a recorded line (live and on resume alike).
  std::optional<run_outcome> after_record(const turn_record& record, const nlohmann::json& line) {
    std::optional<run_outcome> ended;
    const std::string type = record.action_type();
    if (record.decision == "allow" && (type == "claim_success" || type == "give_up")) {
      ended = run_outcome{type == "claim_success" ? outcome_kind::claimed : outcome_kind::gave_up,
                          record.action.value("reason", std::string()), record.turn + 1, run_dir_};
    }
    const auto verdict = stuck_.observe(record);
    if (!ended && verdict.what == stuck_verdict::kind::stop) {
      ended = run_outcome{outcome_kind::stuck, "stuck: " + verdict.text, record.turn + 1, run_dir_};
    } else if (verdict.what == stuck_verdict::kind::hint) {
      pending_hints_.push_back(hint{"stuck_detector", verdict.text, nlohmann::json(), "executor"});
    }
    (void)line;
    return ended;
  }

  void add_provider_hints(const turn_record& last) {
    for (auto& h : options_.hints_provider(last)) pending_hints_.push_back(std::move(h));
  }

  core::result<std::optional<run_outcome>> turn() {
    const auto t0 = clock::now();
    const std::int64_t turn = next_turn_;
    auto response = stages_.policy->call("propose", propose_request());
    if (!response) {
      return std::optional<run_outcome>(run_outcome{outcome_kind::error,
                                                    "policy stage " + stages_.policy_name + " failed on turn " +
                                                        std::to_string(turn) + ": " + response.error().message,
                                                    next_turn_, run_dir_});
    }
    const nlohmann::json proposed = response->at("action");
    const nlohmann::json usage = response->value("usage", nlohmann::json::object());
    tokens_ += usage.value("input_tokens", std::int64_t{0}) + usage.value("output_tokens", std::int64_t{0});
    usd_ += usage.value("cost_usd", 0.0);
    const auto v = validate_action(proposed);
    const nlohmann::json action = v.valid ? v.action : proposed;
    nlohmann::json line{{"turn", turn},
                        {"timestamp", utc_timestamp()},
                        {"action", action},
                        {"rationale", response->value("rationale", std::string())},
                        {"state", response->value("state", nlohmann::json())},
                        {"usage", usage},
                        {"hints", pending_hints_}};
    pending_hints_.clear();
    guard_verdict verdict;
    const std::string type = v.valid ? action.at("type").get<std::string>() : std::string();
    auto ctx = context(turn, driver_.image());
    if (!v.valid) {
      verdict.allowed = false;
      verdict.guard = "executor";
      verdict.reason = "invalid action: " + v.error;
      verdict.unlock = "propose an action that matches plugin_api/schemas/action.schema.json";
    } else {
      if (type == "claim_success" && options_.verify) {
        const auto [ran, passed] = options_.verify();
        ctx["verifier_ran"] = ran;
        ctx["verifier_passed"] = passed;
      }
      verdict = guards_.check(action, ctx);
    }
    line["decision"] = verdict.to_json();
    const bool executes = verdict.allowed && type != "claim_success" && type != "give_up";
    std::optional<raw_observation> failed_risky;
    if (executes) {
      if (risky(action) && options_.checkpoints.before_risky) {
        auto cp = store_.take("before-" + type, turn);
        if (!cp) {
          return std::optional<run_outcome>(run_outcome{
              outcome_kind::error, "checkpoint before a risky action failed: " + cp.error().message, turn, run_dir_});
        }
        line["checkpoint"].push_back(cp->to_json());
      }
      const raw_observation raw = perform(action, line);
      nlohmann::json obs = observation_json(raw);
      line["observation"] = obs;
      line["evidence"] = guards_.observe(action, guard_observation(obs), ctx);
      const auto& milestones = options_.checkpoints.milestones;
      if (!raw.failed() && std::find(milestones.begin(), milestones.end(), type) != milestones.end()) {
        if (auto cp = store_.take(type, turn); cp) line["checkpoint"].push_back(cp->to_json());
      }
      if (raw.failed() && risky(action) && options_.checkpoints.rollback_failed_risky && store_.last() != nullptr) {
        const std::string to = store_.last()->label;
        auto rb = store_.rollback(to);
        line["rollback"] = {{"to", to},
                            {"name", store_.last()->name},
                            {"reason", "the risky " + type + " failed"},
                            {"ok", rb.has_value()}};
        if (!rb) line["rollback"]["error"] = rb.error().message;
      }
      if (may_change_workspace(type)) {
        auto snap = store_.snapshot(turn);
        if (!snap) return tl::unexpected(snap.error());
        snapshot_ = *snap;
      }
    }
    line["image"] = driver_.image();
    line["workspace_snapshot"] = snapshot_;
    line["elapsed_s"] = elapsed();
    line["seconds"] = std::chrono::duration<double>(clock::now() - t0).count();
    redact_strings(line, redactor_);
    if (auto w = trajectory_->append_json(line); !w) return tl::unexpected(w.error());
    store_.prune_snapshots(snapshot_);

    const auto record = line.get<turn_record>();
    policy_state_ = line.at("state");
    const auto ended = after_record(record, line);
    if (options_.on_outcome && !history_.empty() && history_.back().failed() &&
        !history_.back().error_signature.empty()) {
      options_.on_outcome({history_.back().error_signature, record.action, !record.failed(), record.turn});
    }
    history_.push_back(record);
    next_turn_ = turn + 1;
    if (!ended && options_.hints_provider) add_provider_hints(record);
    return ended;
  }

  stage_pair stages_;
  run_options options_;
  fs::path run_dir_;
  guard_chain guards_;
  redactor redactor_;
  sandbox_driver driver_;
  checkpoint_store store_;
  stuck_detector stuck_;
  std::optional<append_file> trajectory_;
  std::optional<append_file> commands_;
  std::vector<turn_record> history_;
  std::vector<hint> pending_hints_;
  nlohmann::json policy_state_;
  std::int64_t next_turn_ = 0;
  std::int64_t tokens_ = 0;
  double usd_ = 0;
  double elapsed_base_ = 0;
  clock::time_point start_ = clock::now();
  std::string snapshot_;
};

core::result<nlohmann::json> read_json(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return core::fail(core::phase::io, "cannot read " + file.filename().string(), {}, file.string());
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) return core::fail(core::phase::io, "not valid JSON", {}, file.string());
  return j;
}

}  // namespace

core::result<run_outcome> run(core::pipeline_session& session, const run_options& given) {
  auto stages = find_stages(session, given.sandbox_stage);
  if (!stages) return tl::unexpected(stages.error());
  run_options options = given;
  if (options.image.empty() && options.plan.is_object()) {
    options.image = options.plan.value("/base_image/ref"_json_pointer, std::string());
  }
  if (options.arch.empty() && options.plan.is_object()) options.arch = options.plan.value("arch", std::string());
  const fs::path dir = fs::absolute(options.run_dir);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    return core::fail(core::phase::usage, "run directory " + dir.string() +
                                              " is not empty; give a new directory, or continue that run with "
                                              "`repo2rocm resume " +
                                              dir.string() + "`");
  }
  fs::create_directories(dir / "workspace", ec);
  fs::create_directories(dir / "state", ec);
  if (ec) return core::fail(core::phase::io, "cannot create the run directory: " + ec.message(), {}, dir.string());
  if (!options.workspace_source.empty()) {
    // The source is a repository (untrusted): its links are copied as links, never followed.
    try {
      const auto source = safe_fs::root::open(options.workspace_source, "workspace source");
      const auto report = safe_fs::copy_tree(source, "", safe_fs::root::open(dir / "workspace", "workspace"), "");
      for (const auto& s : report.skipped) spdlog::warn("workspace source: {} skipped ({})", s.path, s.reason);
    } catch (const safe_fs::error& e) {
      return core::fail(core::phase::io, std::string("cannot copy the workspace source: ") + e.what(), {},
                        options.workspace_source.string());
    }
  }
  std::string hash;
  if (!options.pipeline_file.empty()) {
    auto h = file_hash(options.pipeline_file);
    if (!h) return tl::unexpected(h.error());
    hash = *h;
  }
  turn_loop loop(session, *stages, options, dir);
  auto first = loop.start(options.image);
  if (!first) return tl::unexpected(first.error());
  const nlohmann::json record{
      {"version", 1},
      {"pipeline",
       {{"path", options.pipeline_file.empty() ? std::string() : fs::absolute(options.pipeline_file).string()},
        {"hash", hash}}},
      {"options", options_to_json(options)},
      {"first_checkpoint", *first},
      {"started", utc_timestamp()}};
  if (auto w = write_file_atomic(dir / "run.json", record.dump(2) + "\n"); !w) return tl::unexpected(w.error());
  if (auto o = loop.open_logs(); !o) return tl::unexpected(o.error());
  return loop.loop();
}

core::result<fs::path> recorded_pipeline(const fs::path& run_dir) {
  auto record = read_json(run_dir / "run.json");
  if (!record) {
    return core::fail(core::phase::usage, run_dir.string() +
                                              " has no readable run.json: the run never started (or this is not a "
                                              "run directory); start it with `repo2rocm execute`");
  }
  return fs::path(record->at("pipeline").value("path", std::string()));
}

core::result<run_outcome> resume(core::pipeline_session& session, const fs::path& run_dir_given,
                                 const resume_hooks& hooks, const std::function<void(const std::string&)>& report_fn) {
  const auto report = [&](const std::string& s) {
    if (report_fn) report_fn(s);
  };
  const fs::path dir = fs::absolute(run_dir_given);
  auto record = read_json(dir / "run.json");
  if (!record) return tl::unexpected(record.error());
  if (auto done = read_json(dir / "outcome.json"); done) {
    report("the run already ended; nothing to resume");
    auto kind = outcome_from(done->value("outcome", std::string()));
    return run_outcome{kind.value_or(outcome_kind::error), done->value("reason", std::string()),
                       done->value("turns", std::int64_t{0}), dir};
  }
  const auto& pipeline = record->at("pipeline");
  const std::string recorded_hash = pipeline.value("hash", std::string());
  if (!recorded_hash.empty()) {
    auto h = file_hash(pipeline.value("path", std::string()));
    if (!h) return tl::unexpected(h.error());
    if (*h != recorded_hash) {
      return core::fail(core::phase::config,
                        "the pipeline file changed since the run started (expected " + recorded_hash + ", found " + *h +
                            "); resume needs the same guards and plugins. Restore the file, or start a new run.",
                        {}, pipeline.value("path", std::string()));
    }
  }
  auto options = options_from_json(record->at("options"));
  if (!options) return tl::unexpected(options.error());
  auto stages = find_stages(session, options->sandbox_stage);
  if (!stages) return tl::unexpected(stages.error());
  options->hints_provider = hooks.hints_provider;
  options->on_outcome = hooks.on_outcome;
  options->verify = hooks.verify;

  const fs::path trajectory = dir / "trajectory.jsonl";
  auto contents = read_trajectory(trajectory);
  if (!contents) return tl::unexpected(contents.error());
  if (contents->torn_bytes > 0) {
    report("discarded a torn last line of " + std::to_string(contents->torn_bytes) +
           " bytes (a write cut by the crash); its turn runs again");
    if (auto t = truncate_file(trajectory, contents->valid_bytes); !t) return tl::unexpected(t.error());
  }
  report("resuming after " + std::to_string(contents->lines.size()) + " recorded turns");
  turn_loop loop(session, *stages, *options, dir);
  auto ended = loop.restore(record->at("first_checkpoint"), contents->lines, report);
  if (!ended) return tl::unexpected(ended.error());
  if (*ended) return loop.finish((*ended)->kind, (*ended)->reason);
  if (auto o = loop.open_logs(); !o) return tl::unexpected(o.error());
  {
    auto log = append_file::open(dir / "commands.log");
    if (log)
      (void)log->append(utc_timestamp() + " resumed after turn " + std::to_string(contents->lines.size()) + "\n");
  }
  return loop.loop();
}

}  // namespace r2r::executor
