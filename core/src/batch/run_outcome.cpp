// SPDX-License-Identifier: MIT
#include "run_outcome.hpp"

#include "durable_file.hpp"

#include <fstream>
#include <sstream>

namespace r2r::batch {
namespace fs = std::filesystem;

namespace {
nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return nullptr;
  std::ostringstream s;
  s << in.rdbuf();
  auto j = nlohmann::json::parse(s.str(), nullptr, false);
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

double num(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string text(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  return it->is_string() ? it->get<std::string>() : it->dump();
}
}  // namespace

run_outcome read_run_outcome(const fs::path& run_dir) {
  run_outcome o;
  double first_t = 0, last_t = 0;
  for (const auto& e : read_jsonl(run_dir / "events.jsonl")) {
    const double t = num(e, "t");
    if (first_t == 0 || (t > 0 && t < first_t)) first_t = t;
    if (t > last_t) last_t = t;
    const std::string kind = text(e, "event");
    if (kind == "run_started") {
      ++o.runs_started;
      if (o.mode.empty()) o.mode = text(e, "mode");
      if (o.gpu.empty()) o.gpu = text(e, "gpu");
    } else if (kind == "stage_finished" && text(e, "status") == "failed") {
      o.failed_stage = text(e, "stage");
    } else if (kind == "verdict") {
      o.has_verdict = true;
      o.outcome = text(e, "outcome");
      o.exit_code = e.value("exit_code", -1);
      o.message = text(e, "message");
      o.failed_checks.clear();
      if (const auto d = e.find("details"); d != e.end() && d->is_object()) {
        for (const auto& c : d->value("failed_checks", nlohmann::json::array()))
          if (c.is_string()) o.failed_checks.push_back(c.get<std::string>());
      }
    }
  }
  o.wall_seconds = last_t > first_t ? last_t - first_t : 0;
  const auto run = read_json(run_dir / "run.json");
  if (run.is_object()) {
    if (run.contains("mode")) o.mode = text(run, "mode");
    o.source = text(run, "source");
    o.commit = text(run, "commit");
  }
  const auto report = read_json(run_dir / "bundle" / "report.json");
  if (report.is_object() && report.contains("costs")) {
    const auto& c = report["costs"];
    o.input_tokens = static_cast<long long>(num(c, "input_tokens"));
    o.output_tokens = static_cast<long long>(num(c, "output_tokens"));
    o.usd = num(c, "usd");
    o.turns = static_cast<long long>(num(c, "turns"));
    if (report.contains("pfs") && report["pfs"].is_object() && report["pfs"].contains("score"))
      o.pfs = num(report["pfs"], "score");
  } else {
    // No bundle (mode 0, or a run that stopped early): the executor's trajectory has the usage.
    for (const auto& rec : read_jsonl(run_dir / "execute" / "trajectory.jsonl")) {
      ++o.turns;
      const auto u = rec.find("usage");
      if (u == rec.end() || !u->is_object()) continue;
      o.input_tokens += static_cast<long long>(num(*u, "input_tokens"));
      o.output_tokens += static_cast<long long>(num(*u, "output_tokens"));
      o.usd += num(*u, "cost_usd");
    }
  }
  return o;
}

nlohmann::json to_json(const run_outcome& o) {
  nlohmann::json j{{"has_verdict", o.has_verdict},
                   {"outcome", o.outcome},
                   {"exit_code", o.exit_code},
                   {"message", o.message},
                   {"failed_checks", o.failed_checks},
                   {"failed_stage", o.failed_stage},
                   {"mode", o.mode},
                   {"gpu", o.gpu},
                   {"turns", o.turns},
                   {"input_tokens", o.input_tokens},
                   {"output_tokens", o.output_tokens},
                   {"usd", o.usd},
                   {"wall_seconds", o.wall_seconds},
                   {"runs_started", o.runs_started}};
  j["pfs"] = o.pfs ? nlohmann::json(*o.pfs) : nlohmann::json(nullptr);
  return j;
}

}  // namespace r2r::batch
