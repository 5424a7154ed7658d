// SPDX-License-Identifier: MIT
// report.html: sections in reading order (verdict and PFS, checks, evidence, timeline, ledger,
// costs and versions, the diff). No script and no URL is ever emitted: the page renders offline.
#include <r2r/report/html.hpp>

#include <sstream>

namespace r2r::report {
namespace {

using nlohmann::json;

constexpr std::string_view style = R"css(
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#1b1b1b;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.8em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3}.verdict{display:inline-block;padding:4px 12px;border-radius:4px;color:#fff;font-weight:bold}
.v-pass{background:#1a7f37}.v-fail{background:#cf222e}.v-no_device{background:#9a6700}.v-error{background:#6e7781}
.s-pass{color:#1a7f37}.s-fail{color:#cf222e}.s-not_verified,.s-skipped{color:#9a6700}
pre{background:#f6f8fa;padding:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.add{color:#1a7f37}.del{color:#cf222e}.hunk{color:#8250df}.muted{color:#6e7781}
)css";

std::string text_of(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_null()) return "";
  return j.dump();
}

std::string esc(const json& j) {
  return html_escape(text_of(j));
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

std::string clip(const std::string& s, std::size_t n) {
  return s.size() > n ? s.substr(0, n) + " [...]" : s;
}

void verdict_section(std::ostringstream& h, const json& r) {
  const std::string verdict = r.value("verdict", "error");
  const auto& repo = r["repository"];
  h << "<h1>repo2rocm report: " << esc(repo["url"]) << "</h1>\n";
  h << "<p class=\"muted\">commit " << esc(repo["commit"]) << ", mode " << r.value("mode", 0) << "</p>\n";
  h << "<p>Verdict: <span id=\"verdict\" class=\"verdict v-" << html_escape(verdict) << "\">" << html_escape(verdict)
    << "</span> " << esc(r["verdict_reason"]) << "</p>\n";
  h << "<p>Exit code " << r["exit_code"].value("code", 1) << ": " << esc(r["exit_code"]["meaning"]) << "</p>\n";
  const auto& p = r["pfs"];
  h << "<h2>Portability Fidelity Score</h2>\n<p>PFS <strong id=\"pfs-score\">" << fixed(p.value("score", 0.0), 1)
    << "</strong> = " << esc(p["formula"])
    << "</p>\n<table id=\"pfs\"><tr><th>term</th><th>value</th><th>why</th></tr>\n";
  for (const char* k : {"ran", "f_path", "a_work", "a_env", "d_proc"})
    h << "<tr><td>" << k << "</td><td>" << fixed(p[k].value("value", 0.0), 3) << "</td><td>" << esc(p[k]["why"])
      << "</td></tr>\n";
  h << "</table>\n";
  if (!p["components"].empty()) {
    h << "<p>F_path components:</p><table><tr><th>component</th><th>level</th><th>grade</th></tr>\n";
    for (const auto& c : p["components"])
      h << "<tr><td>" << esc(c["component"]) << "</td><td>" << esc(c["level"]) << "</td><td>"
        << fixed(c.value("grade", 0.0), 2) << "</td></tr>\n";
    h << "</table>\n";
  }
}

void checks_section(std::ostringstream& h, const json& r) {
  h << "<h2>Checks</h2>\n<table id=\"checks\"><tr><th>check</th><th>status</th><th>detail</th><th>verifier</th></tr>\n";
  for (const auto& c : r["checks"]) {
    const std::string status = c.value("status", "");
    h << "<tr><td class=\"check-name\">" << esc(c["name"]) << "</td><td class=\"s-" << html_escape(status) << "\">"
      << html_escape(status) << "</td><td>" << esc(c["detail"]) << "</td><td>" << esc(c["verifier"]) << "</td></tr>\n";
  }
  if (r["checks"].empty()) h << "<tr><td colspan=\"4\">no checks: no verifier ran</td></tr>\n";
  h << "</table>\n<h2>Evidence</h2>\n<table id=\"evidence\"><tr><th>kind</th><th>detail</th><th>source</th></tr>\n";
  for (const auto& e : r["evidence"])
    h << "<tr><td>" << esc(e["kind"]) << "</td><td>" << esc(e["detail"]) << "</td><td><code>" << esc(e["source"])
      << "</code></td></tr>\n";
  h << "</table>\n";
  const auto& w = r["workload"];
  h << "<p>Planned workload: <code>" << (w["planned_command"].is_null() ? "none" : esc(w["planned_command"]))
    << "</code>; executed by the verifier: <code>"
    << (w["executed"].is_null() ? "nothing" : esc(w["executed"]["command"])) << "</code></p>\n";
}

std::string number_text(const json& v) {
  if (!v.is_number()) return "not measured";
  std::ostringstream o;
  o << v.get<double>();
  return o.str();
}

// Mode 2: the paper's (or README's) value, the measured value, the tolerance and where the value
// was printed.
void target_section(std::ostringstream& h, const json& r) {
  if (!r.contains("target") || !r["target"].is_object()) return;
  const json& t = r["target"];
  const std::string unit = t.value("unit", std::string());
  std::string tolerance = "class default";
  if (t["tolerance"].is_object() && t["tolerance"]["value"].is_number()) {
    const double v = t["tolerance"]["value"].get<double>();
    tolerance = t["tolerance"].value("kind", std::string()) == "relative"
                    ? "&plusmn;" + number_text(v * 100) + " % relative"
                    : "&plusmn;" + number_text(v) + " points absolute";
  }
  std::string where = html_escape(t.value("file", std::string()));
  if (t.contains("page")) where += ", page " + std::to_string(t["page"].get<int>());
  if (t.contains("table")) where += ", " + html_escape(t["table"].get<std::string>());
  if (t.contains("row")) where += " row " + std::to_string(t["row"].get<int>());
  if (t.contains("model")) where += " (" + html_escape(t["model"].get<std::string>()) + ")";
  if (t.value("source", std::string()) != "paper" && t.contains("line"))
    where += ":" + std::to_string(t["line"].get<int>());
  h << "<h2>Mode 2 target</h2>\n<table id=\"target\"><tr><th>metric</th><th>" << esc(t["source"])
    << " value</th><th>measured value</th><th>tolerance</th><th>direction</th><th>where</th></tr>\n"
    << "<tr><td>" << esc(t["metric"]) << "</td><td id=\"target-planned\">" << html_escape(number_text(t["planned"]))
    << html_escape(unit) << "</td><td id=\"target-measured\">" << html_escape(number_text(t["measured"]))
    << (t["measured"].is_number() ? html_escape(unit) : "") << "</td><td>" << tolerance << "</td><td>"
    << esc(t["direction"]) << " is better</td><td id=\"target-where\">" << where << "</td></tr>\n</table>\n";
}

void timeline_section(std::ostringstream& h, const std::vector<json>& trajectory) {
  h << "<h2>Timeline</h2>\n<table id=\"timeline\"><tr><th>turn</th><th>time</th><th>action</th><th>decision</th>"
       "<th>result</th></tr>\n";
  for (const auto& rec : trajectory) {
    const json action = rec.value("action", json::object());
    const json decision = rec.value("decision", json::object());
    const json obs = rec.value("observation", json::object());
    std::string what = action.is_object() ? action.value("type", "") : text_of(action);
    if (action.is_object() && action.contains("command")) what += ": " + text_of(action["command"]);
    std::string dec = decision.is_object() ? decision.value("decision", "") : "";
    if (decision.is_object() && decision.contains("reason")) dec += " " + text_of(decision["reason"]);
    std::string res;
    if (obs.is_object() && obs.contains("exit_code")) res = "exit " + text_of(obs["exit_code"]);
    if (obs.is_object() && obs.value("timed_out", false)) res += " (timed out)";
    if (obs.is_object() && obs.contains("error_signature")) res += " " + text_of(obs["error_signature"]);
    h << "<tr><td>" << esc(rec.value("turn", json())) << "</td><td>" << esc(rec.value("timestamp", json()))
      << "</td><td><code>" << html_escape(clip(what, 400)) << "</code></td><td>" << html_escape(clip(dec, 300))
      << "</td><td>" << html_escape(res) << "</td></tr>\n";
  }
  if (trajectory.empty()) h << "<tr><td colspan=\"5\">the trajectory is empty</td></tr>\n";
  h << "</table>\n";
}

void ledger_section(std::ostringstream& h, const json& r) {
  h << "<h2>Fidelity ledger</h2>\n<table id=\"ledger\"><tr><th>component</th><th>level</th><th>source</th>"
       "<th>turn</th><th>note</th></tr>\n";
  for (const auto& e : r["ledger"])
    h << "<tr><td>" << esc(e["component"]) << "</td><td>" << esc(e["level"]) << "</td><td>" << esc(e["source"])
      << "</td><td>" << esc(e["turn"]) << "</td><td>" << esc(e["note"]) << "</td></tr>\n";
  if (r["ledger"].empty()) h << "<tr><td colspan=\"5\">no substitution recorded</td></tr>\n";
  h << "</table>\n";
  const auto& c = r["costs"];
  h << "<h2>Costs</h2>\n<table id=\"costs\"><tr><th>input tokens</th><th>output tokens</th><th>USD</th>"
       "<th>wall seconds</th><th>turns</th></tr>\n<tr><td>"
    << esc(c["input_tokens"]) << "</td><td>" << esc(c["output_tokens"]) << "</td><td>" << fixed(c.value("usd", 0.0), 4)
    << "</td><td>" << fixed(c.value("wall_seconds", 0.0), 1) << "</td><td>" << esc(c["turns"])
    << "</td></tr></table>\n";
  const auto& v = r["versions"];
  h << "<h2>Versions</h2>\n<table id=\"versions\"><tr><th>repo2rocm</th><td>" << esc(v["repo2rocm"])
    << "</td></tr><tr><th>image</th><td>" << esc(v["image"]) << "</td></tr><tr><th>ROCm</th><td>" << esc(v["rocm"])
    << "</td></tr><tr><th>torch</th><td>" << esc(v["torch"]) << "</td></tr>\n";
  for (const auto& p : v["plugins"])
    h << "<tr><th>" << esc(p["id"]) << "</th><td>" << esc(p["version"]) << "</td></tr>\n";
  h << "</table>\n";
}

void diff_section(std::ostringstream& h, std::string_view diff) {
  h << "<h2>Patch</h2>\n<pre id=\"diff\">";
  if (diff.empty()) h << "no changes to the repository";
  for (std::size_t pos = 0; pos < diff.size();) {
    std::size_t nl = diff.find('\n', pos);
    if (nl == std::string_view::npos) nl = diff.size();
    const std::string_view line = diff.substr(pos, nl - pos);
    pos = nl + 1;
    const char* cls = nullptr;
    if (line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0)
      cls = nullptr;
    else if (line.rfind("@@", 0) == 0)
      cls = "hunk";
    else if (!line.empty() && line[0] == '+')
      cls = "add";
    else if (!line.empty() && line[0] == '-')
      cls = "del";
    if (cls) h << "<span class=\"" << cls << "\">";
    h << html_escape(line);
    if (cls) h << "</span>";
    h << "\n";
  }
  h << "</pre>\n";
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string render_html(const json& report, const std::vector<json>& trajectory, std::string_view patch_diff) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
       "<title>repo2rocm report: "
    << html_escape(report.value("verdict", "")) << "</title>\n<style>" << style << "</style></head><body>\n";
  verdict_section(h, report);
  checks_section(h, report);
  target_section(h, report);
  timeline_section(h, trajectory);
  ledger_section(h, report);
  diff_section(h, patch_diff);
  h << "</body></html>\n";
  return h.str();
}

}  // namespace r2r::report
