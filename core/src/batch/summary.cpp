// SPDX-License-Identifier: MIT
#include "summary.hpp"

#include "durable_file.hpp"

#include <r2r/report/html.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace r2r::batch {
namespace fs = std::filesystem;
using report::html_escape;

namespace {
std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string detail_of(const run_outcome& run) {
  if (!run.failed_checks.empty()) {
    std::string d;
    for (const auto& c : run.failed_checks) d += (d.empty() ? "" : "; ") + c;
    return d;
  }
  if (run.outcome == "error" && !run.failed_stage.empty()) return "stage " + run.failed_stage + ": " + run.message;
  return run.message.substr(0, run.message.find('\n'));
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string jtext(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_float()) return fixed(it->get<double>(), 2);
  return it->dump();
}
}  // namespace

summary_row row_from(const job_record& job, const run_outcome& run) {
  summary_row r;
  r.key = job.entry.key;
  r.repo = job.entry.repo;
  r.commit = job.entry.commit;
  r.mode = run.mode.empty() ? job.entry.mode : run.mode;
  r.attempts = job.attempt;
  r.gpu = job.gpu;
  r.node = job.node;
  r.exit_code = job.exit_code;
  r.runs_started = run.runs_started;
  if (job.state == "not_started") {
    r.result = "not_started";
    r.detail = job.reason;
    return r;
  }
  if (job.result == "cancelled" || !run.has_verdict) {
    r.result = job.result.empty() ? "error" : job.result;
    r.detail = job.reason;
  } else {
    r.result = run.outcome;
    r.detail = detail_of(run);
  }
  r.pfs = run.pfs;
  r.turns = run.turns;
  r.tokens = run.input_tokens + run.output_tokens;
  r.usd = run.usd;
  r.wall_seconds =
      job.finished_at > job.started_at && job.started_at > 0 ? job.finished_at - job.started_at : run.wall_seconds;
  return r;
}

summary_row row_from_run_dir(const fs::path& run_dir) {
  const run_outcome run = read_run_outcome(run_dir);
  summary_row r;
  r.key = run_dir.filename().string();
  r.repo = run.source;
  r.commit = run.commit;
  r.mode = run.mode;
  r.runs_started = run.runs_started;
  if (run.has_verdict) {
    r.result = run.outcome;
    r.detail = detail_of(run);
    r.exit_code = run.exit_code;
  } else {
    r.result = "error";
    r.detail = run.runs_started > 0 ? "the run has no verdict (it stopped or is still running)" : "not a run directory";
  }
  r.pfs = run.pfs;
  r.turns = run.turns;
  r.tokens = run.input_tokens + run.output_tokens;
  r.usd = run.usd;
  r.wall_seconds = run.wall_seconds;
  return r;
}

nlohmann::json build_summary(const std::vector<summary_row>& rows, const std::string& stopped, const spend& spent) {
  nlohmann::json jrows = nlohmann::json::array();
  int m0_total = 0, m0_ok = 0, m1_total = 0, m1_ok = 0, pfs_n = 0;
  double pfs_sum = 0, usd = 0, wall = 0;
  long long tokens = 0;
  std::map<std::string, int> by_result;
  for (const auto& r : rows) {
    ++by_result[r.result];
    if (r.mode == "0") {
      ++m0_total;
      if (r.result == "baseline_ran" || r.result == "verified") ++m0_ok;
    } else {
      ++m1_total;
      if (r.result == "verified") ++m1_ok;
    }
    if (r.pfs) {
      ++pfs_n;
      pfs_sum += *r.pfs;
    }
    usd += r.usd;
    tokens += r.tokens;
    wall += r.wall_seconds;
    nlohmann::json j{{"key", r.key},           {"repo", r.repo},
                     {"commit", r.commit},     {"mode", r.mode},
                     {"result", r.result},     {"detail", r.detail},
                     {"turns", r.turns},       {"tokens", r.tokens},
                     {"usd", r.usd},           {"wall_seconds", r.wall_seconds},
                     {"gpu", r.gpu},           {"node", r.node},
                     {"attempts", r.attempts}, {"runs_started", r.runs_started}};
    j["exit_code"] = r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json(nullptr);
    j["pfs"] = r.pfs ? nlohmann::json(*r.pfs) : nlohmann::json(nullptr);
    j["mode0"] = r.mode == "0" ? nlohmann::json(r.result) : nlohmann::json(nullptr);
    jrows.push_back(std::move(j));
  }
  std::string headline;
  if (m0_total > 0) headline += "Mode 0 " + std::to_string(m0_ok) + "/" + std::to_string(m0_total);
  if (m1_total > 0)
    headline +=
        std::string(headline.empty() ? "" : " · ") + "Mode 1 " + std::to_string(m1_ok) + "/" + std::to_string(m1_total);
  headline +=
      std::string(headline.empty() ? "" : " · ") + "PFS mean " + (pfs_n > 0 ? fixed(pfs_sum / pfs_n, 1) : "n/a");
  nlohmann::json totals{{"repositories", rows.size()},
                        {"mode0", {{"ran", m0_ok}, {"of", m0_total}}},
                        {"mode1", {{"verified", m1_ok}, {"of", m1_total}}},
                        {"pfs_mean", pfs_n > 0 ? nlohmann::json(pfs_sum / pfs_n) : nlohmann::json(nullptr)},
                        {"pfs_runs", pfs_n},
                        {"by_result", by_result},
                        {"tokens", tokens},
                        {"usd", usd},
                        {"wall_seconds", wall},
                        {"spent", {{"tokens", spent.tokens}, {"usd", spent.usd}, {"gpu_hours", spent.gpu_hours}}}};
  return {{"schema_version", 1}, {"headline", headline}, {"stopped", stopped}, {"totals", totals}, {"rows", jrows}};
}

std::string summary_csv(const nlohmann::json& summary) {
  static const char* cols[] = {"key", "repo",  "commit", "mode", "result",       "detail", "exit_code", "mode0",
                               "pfs", "turns", "tokens", "usd",  "wall_seconds", "gpu",    "node",      "attempts"};
  std::ostringstream out;
  for (std::size_t i = 0; i < std::size(cols); ++i) out << (i ? "," : "") << cols[i];
  out << "\n";
  for (const auto& r : summary["rows"]) {
    for (std::size_t i = 0; i < std::size(cols); ++i) out << (i ? "," : "") << csv_field(jtext(r, cols[i]));
    out << "\n";
  }
  return out.str();
}

namespace {
std::string svg_plot(const nlohmann::json& rows) {
  // Two bars per repository: wall time (minutes) and tokens (thousands), each scaled to its maximum.
  const std::size_t n = rows.size();
  double max_wall = 0, max_tokens = 0;
  for (const auto& r : rows) {
    max_wall = std::max(max_wall, r.value("wall_seconds", 0.0));
    max_tokens = std::max(max_tokens, static_cast<double>(r.value("tokens", 0LL)));
  }
  const int bar = n > 200 ? 2 : (n > 60 ? 4 : 9), gap = n > 200 ? 1 : 3, h = 160, left = 40, top = 20;
  const int width = left + static_cast<int>(n) * (2 * bar + gap) + 20;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << (h + top + 40)
    << "\" role=\"img\" aria-label=\"wall time and tokens per repository\">"
    << "<text x=\"" << left << "\" y=\"14\" font-size=\"12\">wall time (blue, max " << fixed(max_wall / 60, 1)
    << " min) and tokens (orange, max " << fixed(max_tokens / 1000, 1) << "k) per repository</text>"
    << "<line x1=\"" << left << "\" y1=\"" << (top + h) << "\" x2=\"" << width - 10 << "\" y2=\"" << (top + h)
    << "\" stroke=\"#444\"/>";
  std::size_t i = 0;
  for (const auto& r : rows) {
    const double w = max_wall > 0 ? r.value("wall_seconds", 0.0) / max_wall : 0;
    const double t = max_tokens > 0 ? static_cast<double>(r.value("tokens", 0LL)) / max_tokens : 0;
    const int x = left + static_cast<int>(i) * (2 * bar + gap);
    const int hw = static_cast<int>(std::lround(w * h)), ht = static_cast<int>(std::lround(t * h));
    const std::string key = html_escape(r.value("key", ""));
    s << "<rect x=\"" << x << "\" y=\"" << (top + h - hw) << "\" width=\"" << bar << "\" height=\"" << hw
      << "\" fill=\"#3b6fb6\"><title>" << key << ": " << fixed(r.value("wall_seconds", 0.0), 1) << " s</title></rect>"
      << "<rect x=\"" << x + bar << "\" y=\"" << (top + h - ht) << "\" width=\"" << bar << "\" height=\"" << ht
      << "\" fill=\"#e08a2c\"><title>" << key << ": " << r.value("tokens", 0LL) << " tokens</title></rect>";
    ++i;
  }
  s << "</svg>";
  return s.str();
}
}  // namespace

std::string summary_html(const nlohmann::json& summary) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>repo2rocm batch summary</title>"
    << "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:13px}"
    << "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}"
    << ".verified,.baseline_ran{background:#e3f4e3}.not_verified,.baseline_failed{background:#fbe9e9}"
    << ".error,.cancelled{background:#f6e7cf}.not_started,.no_device{background:#eee}</style></head><body>\n"
    << "<h1>repo2rocm batch</h1>\n<p class=\"headline\"><strong>" << html_escape(summary.value("headline", ""))
    << "</strong></p>\n";
  const auto& t = summary["totals"];
  h << "<p>" << t.value("repositories", 0) << " repositories · " << t.value("tokens", 0LL) << " tokens · $"
    << fixed(t.value("usd", 0.0), 2) << " · " << fixed(t.value("wall_seconds", 0.0) / 3600, 2)
    << " GPU hours of runs</p>\n";
  if (!summary.value("stopped", "").empty())
    h << "<p class=\"stopped\"><strong>Stopped:</strong> " << html_escape(summary.value("stopped", "")) << "</p>\n";
  h << svg_plot(summary["rows"]) << "\n<table><tr>";
  for (const char* c : {"repository", "commit", "mode", "result", "detail", "PFS", "turns", "tokens", "USD", "wall s",
                        "GPU", "attempts"})
    h << "<th>" << c << "</th>";
  h << "</tr>\n";
  for (const auto& r : summary["rows"]) {
    const std::string result = r.value("result", "");
    h << "<tr class=\"" << html_escape(result) << "\"><td>" << html_escape(r.value("repo", "")) << "</td><td>"
      << html_escape(r.value("commit", "").substr(0, 12)) << "</td><td>" << html_escape(r.value("mode", ""))
      << "</td><td>" << html_escape(result) << "</td><td>" << html_escape(r.value("detail", "")) << "</td><td>"
      << html_escape(jtext(r, "pfs")) << "</td><td>" << r.value("turns", 0LL) << "</td><td>" << r.value("tokens", 0LL)
      << "</td><td>" << fixed(r.value("usd", 0.0), 4) << "</td><td>" << fixed(r.value("wall_seconds", 0.0), 1)
      << "</td><td>" << html_escape(r.value("gpu", "") + (r.value("node", "").empty() ? "" : "@" + r.value("node", "")))
      << "</td><td>" << r.value("attempts", 0) << "</td></tr>\n";
  }
  h << "</table>\n</body></html>\n";
  return h.str();
}

void write_summary(const fs::path& dir, const nlohmann::json& summary) {
  write_atomic(dir / "summary.json", summary.dump(1) + "\n");
  write_atomic(dir / "summary.csv", summary_csv(summary));
  write_atomic(dir / "summary.html", summary_html(summary));
}

}  // namespace r2r::batch
