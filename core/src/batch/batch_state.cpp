// SPDX-License-Identifier: MIT
#include "batch_state.hpp"

#include "durable_file.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace r2r::batch {
namespace fs = std::filesystem;

namespace {
template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
template <class T>
std::optional<T> get_opt(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}
manifest_entry entry_from_json(const nlohmann::json& j) {
  manifest_entry e;
  e.key = j.value("key", "");
  e.repo = j.value("repo", "");
  e.commit = j.value("commit", "");
  e.paper = j.value("paper", "");
  e.mode = j.value("mode", "");
  e.arch = j.value("arch", "");
  e.tags = j.value("tags", std::vector<std::string>{});
  e.extra = j.value("extra", nlohmann::json::object());
  return e;
}
}  // namespace

nlohmann::json to_json(const job_record& j) {
  return {{"entry", to_json(j.entry)},
          {"run_dir", j.run_dir},
          {"state", j.state},
          {"attempt", j.attempt},
          {"state_dir", j.state_dir},
          {"scheduler_id", j.scheduler_id},
          {"scheduler_state", j.scheduler_state},
          {"result", j.result},
          {"reason", j.reason},
          {"exit_code", opt(j.exit_code)},
          {"gpu", j.gpu},
          {"node", j.node},
          {"submitted_at", j.submitted_at},
          {"started_at", j.started_at},
          {"finished_at", j.finished_at},
          {"retry_at", j.retry_at},
          {"tokens", j.tokens},
          {"usd", j.usd}};
}

job_record job_from_json(const nlohmann::json& j) {
  job_record r;
  r.entry = entry_from_json(j.at("entry"));
  r.run_dir = j.value("run_dir", "");
  r.state = j.value("state", "pending");
  r.attempt = j.value("attempt", 0);
  r.state_dir = j.value("state_dir", "");
  r.scheduler_id = j.value("scheduler_id", "");
  r.scheduler_state = j.value("scheduler_state", "");
  r.result = j.value("result", "");
  r.reason = j.value("reason", "");
  r.exit_code = get_opt<int>(j, "exit_code");
  r.gpu = j.value("gpu", "");
  r.node = j.value("node", "");
  r.submitted_at = j.value("submitted_at", 0.0);
  r.started_at = j.value("started_at", 0.0);
  r.finished_at = j.value("finished_at", 0.0);
  r.retry_at = j.value("retry_at", 0.0);
  r.tokens = j.value("tokens", 0LL);
  r.usd = j.value("usd", 0.0);
  return r;
}

nlohmann::json to_json(const batch_state& s) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& j : s.jobs) jobs.push_back(to_json(j));
  return {{"schema_version", s.schema_version},
          {"manifest", s.manifest},
          {"scheduler", s.scheduler},
          {"options", s.options},
          {"caps",
           {{"max_tokens", opt(s.limits.max_tokens)},
            {"max_usd", opt(s.limits.max_usd)},
            {"max_gpu_hours", opt(s.limits.max_gpu_hours)}}},
          {"spent", {{"tokens", s.spent.tokens}, {"usd", s.spent.usd}, {"gpu_hours", s.spent.gpu_hours}}},
          {"stopped", s.stopped},
          {"finished", s.finished},
          {"created_at", s.created_at},
          {"updated_at", s.updated_at},
          {"jobs", jobs}};
}

batch_state state_from_json(const nlohmann::json& j) {
  batch_state s;
  s.schema_version = j.value("schema_version", 1);
  if (s.schema_version != 1)
    throw std::runtime_error("batch.json schema_version " + std::to_string(s.schema_version) +
                             " is not 1: it was written by another repo2rocm; finish it with that version");
  s.manifest = j.value("manifest", "");
  s.scheduler = j.value("scheduler", "");
  s.options = j.value("options", nlohmann::json::object());
  if (const auto c = j.find("caps"); c != j.end() && c->is_object()) {
    s.limits.max_tokens = get_opt<long long>(*c, "max_tokens");
    s.limits.max_usd = get_opt<double>(*c, "max_usd");
    s.limits.max_gpu_hours = get_opt<double>(*c, "max_gpu_hours");
  }
  if (const auto p = j.find("spent"); p != j.end() && p->is_object()) {
    s.spent.tokens = p->value("tokens", 0LL);
    s.spent.usd = p->value("usd", 0.0);
    s.spent.gpu_hours = p->value("gpu_hours", 0.0);
  }
  s.stopped = j.value("stopped", "");
  s.finished = j.value("finished", false);
  s.created_at = j.value("created_at", 0.0);
  s.updated_at = j.value("updated_at", 0.0);
  for (const auto& job : j.value("jobs", nlohmann::json::array())) s.jobs.push_back(job_from_json(job));
  return s;
}

std::optional<batch_state> load_state(const fs::path& out_dir) {
  const fs::path p = out_dir / "batch.json";
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  const auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw std::runtime_error(p.string() +
                             " is not valid JSON (it is only ever replaced atomically, so it was "
                             "edited or damaged); restore it or start a new batch with another --out");
  return state_from_json(j);
}

void save_state(const fs::path& out_dir, batch_state& s) {
  s.updated_at = now_seconds();
  write_atomic(out_dir / "batch.json", to_json(s).dump() + "\n");
}

std::vector<std::string> reconcile_attempts(const fs::path& out_dir, batch_state& s) {
  std::vector<std::string> changed;
  for (auto& j : s.jobs) {
    if (j.state != "pending" && j.state != "submitting" && j.state != "submitted") continue;
    std::error_code ec;
    int newest = j.attempt;
    for (const auto& d : fs::directory_iterator(out_dir / "jobs" / j.entry.key, ec)) {
      const std::string name = d.path().filename().string();
      if (name.size() < 2 || name[0] != 'a' || name.find_first_not_of("0123456789", 1) != std::string::npos ||
          name.size() > 6)
        continue;
      newest = std::max(newest, std::stoi(name.substr(1)));
    }
    if (newest <= j.attempt) continue;
    j.attempt = newest;
    j.state = "submitting";
    j.state_dir = (out_dir / "jobs" / j.entry.key / ("a" + std::to_string(newest))).string();
    j.scheduler_id.clear();
    j.scheduler_state.clear();
    j.started_at = j.finished_at = j.retry_at = 0;
    changed.push_back(j.entry.key);
  }
  return changed;
}

}  // namespace r2r::batch
