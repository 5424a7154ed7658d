// SPDX-License-Identifier: MIT
#include <r2r/verify/scale_as_planned.hpp>

#include <r2r/sdk/kinds/sandbox.hpp>
#include <r2r/sdk/scale_values.hpp>

#include <algorithm>
#include <random>

namespace r2r::plugins::verifier {
namespace {

std::string where(const std::string& file, int line) {
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

/// A ledger entry records a change to `file` when its component or note names the file.
const sdk::verifier::ledger_entry* ledger_for(const std::vector<sdk::verifier::ledger_entry>& ledger,
                                              const std::string& file) {
  for (const auto& e : ledger)
    if (e.component.find(file) != std::string::npos || e.note.find(file) != std::string::npos) return &e;
  return nullptr;
}

}  // namespace

std::vector<planned_scale_file> scale_files_from_plan(const nlohmann::json& plan) {
  std::vector<planned_scale_file> out;
  const auto s = plan.find("scale");
  if (s == plan.end() || !s->is_object() || !s->contains("files") || !(*s)["files"].is_array()) return out;
  for (const auto& f : (*s)["files"]) {
    if (!f.is_object() || !f.contains("file") || !f["file"].is_string()) continue;
    planned_scale_file p;
    p.file = f["file"];
    for (const auto& v : f.value("values", nlohmann::json::array()))
      if (v.is_object())
        p.values.push_back({v.value("key", std::string()), v.value("value", std::string()), v.value("line", 0)});
    out.push_back(std::move(p));
  }
  return out;
}

const std::string& scale_read_script() {
  static const std::string s =
      "printf '%s\\n' \"$R2R_SCALE_FILES\" | while IFS= read -r f; do\n"
      "  [ -n \"$f\" ] || continue\n"
      "  if [ -f \"$f\" ] && [ -r \"$f\" ]; then\n"
      "    printf '\\n@@R2R-SCALE-%s %s\\n' \"$R2R_SCALE_NONCE\" \"$f\"; cat -- \"$f\"\n"
      "  else\n"
      "    printf '\\n@@R2R-SCALE-%s MISSING %s\\n' \"$R2R_SCALE_NONCE\" \"$f\"\n"
      "  fi\n"
      "done\n";
  return s;
}

std::map<std::string, std::optional<std::string>> parse_scale_output(std::string_view output, std::string_view nonce) {
  std::map<std::string, std::optional<std::string>> out;
  const std::string fence = "@@R2R-SCALE-" + std::string(nonce) + " ";
  std::string* cur = nullptr;
  std::size_t b = 0;
  while (b <= output.size()) {
    auto e = output.find('\n', b);
    if (e == std::string_view::npos) e = output.size();
    const std::string_view line = output.substr(b, e - b);
    if (line.starts_with(fence)) {
      std::string rest(line.substr(fence.size()));
      if (rest.starts_with("MISSING ")) {
        out[rest.substr(8)] = std::nullopt;
        cur = nullptr;
      } else {
        auto& slot = out[rest];
        slot = std::string();
        cur = &*slot;
      }
    } else if (cur != nullptr) {
      *cur += std::string(line) + "\n";
    }
    b = e + 1;
  }
  // The script prints a newline before each fence: drop the one that belongs to it.
  for (auto& [f, c] : out)
    if (c && c->size() >= 2 && c->ends_with("\n\n")) c->pop_back();
  return out;
}

sdk::verifier::check check_scale_as_planned(const std::string& command, const std::vector<planned_scale_file>& planned,
                                            const std::map<std::string, std::optional<std::string>>& final_files,
                                            bool files_read, const std::vector<sdk::verifier::ledger_entry>& ledger) {
  const std::string ran = "ran the plan's workload command verbatim: " + command;
  if (planned.empty()) return {"scale_as_planned", "pass", ran + "; the plan names no scale-bearing file"};
  if (!files_read)
    return {"scale_as_planned", "not_verified",
            ran +
                "; the scale-bearing files could not be read from the workspace, so a scaled-down config or "
                "default cannot be ruled out"};
  std::vector<std::string> changed, allowed;
  std::size_t compared = 0;
  for (const auto& pf : planned) {
    const auto it = final_files.find(pf.file);
    const auto* entry = ledger_for(ledger, pf.file);
    if (it == final_files.end() || !it->second) {
      (entry ? allowed : changed).push_back(pf.file + " is missing from the workspace");
      continue;
    }
    const auto now = sdk::scan_scale_values(pf.file, *it->second);
    for (const auto& want : pf.values) {
      ++compared;
      std::vector<const sdk::scale_value*> same_key;
      for (const auto& v : now)
        if (v.key == want.key) same_key.push_back(&v);
      std::string what;
      if (same_key.empty()) {
        what = where(pf.file, want.line) + ": " + want.key + " = " + want.value + " is no longer set";
      } else {
        for (const auto* v : same_key)
          if (v->value != want.value) {
            what = where(pf.file, v->line) + ": " + want.key + " = " + v->value + " (pinned commit: " + want.value +
                   (v->form == "override" ? ", overridden in code" : "") + ")";
            break;
          }
      }
      if (!what.empty()) (entry ? allowed : changed).push_back(what);
    }
    // A scale key the pinned file did not set at all (e.g. an added override) is a change too.
    for (const auto& v : now) {
      const bool known = std::any_of(pf.values.begin(), pf.values.end(), [&](const auto& w) { return w.key == v.key; });
      if (!known)
        (entry ? allowed : changed)
            .push_back(where(pf.file, v.line) + ": " + v.key + " = " + v.value +
                       " was added (not in the pinned commit)");
    }
  }
  std::string files;
  for (const auto& pf : planned) files += (files.empty() ? "" : ", ") + pf.file;
  if (!changed.empty()) {
    std::string d;
    for (std::size_t i = 0; i < changed.size() && i < 6; ++i) d += (i ? "; " : "") + changed[i];
    return {"scale_as_planned", "not_verified",
            "scale-bearing files differ from the pinned commit and the ledger records no such change: " + d};
  }
  std::string detail =
      ran + "; " + std::to_string(compared) + " scale value(s) in " + files + " match the pinned commit";
  if (!allowed.empty()) {
    detail += "; changes recorded in the ledger: ";
    for (std::size_t i = 0; i < allowed.size() && i < 6; ++i) detail += (i ? "; " : "") + allowed[i];
  }
  return {"scale_as_planned", "pass", detail};
}

std::map<std::string, std::optional<std::string>> read_scale_files(sdk::call_context& ctx, const std::string& service,
                                                                   const sdk::verifier::sandbox_ref& sandbox,
                                                                   const std::vector<planned_scale_file>& planned,
                                                                   bool& ok) {
  ok = false;
  std::random_device rd;
  const std::string nonce = std::to_string(rd()) + std::to_string(rd());
  std::string files;
  for (const auto& f : planned) files += f.file + "\n";
  sdk::sandbox::exec_request exec;
  exec.sandbox_id = sandbox.id;
  exec.workdir = sandbox.workdir;
  exec.command = scale_read_script();
  exec.env = {{"R2R_SCALE_FILES", files}, {"R2R_SCALE_NONCE", nonce}};
  exec.timeout_s = 60;
  exec.max_output_bytes = std::int64_t{8} << 20;
  try {
    const auto reply = ctx.call_service(service, "exec", nlohmann::json(exec)).get<sdk::sandbox::exec_response>();
    if (reply.exit_code != 0 || reply.timed_out || reply.truncated || reply.stdout_encoding != "utf-8") return {};
    ok = true;
    return parse_scale_output(reply.stdout_text, nonce);
  } catch (const std::exception&) {
    return {};
  }
}

void replace_check(sdk::verifier::verify_response& r, sdk::verifier::check c, const std::string& vendor_word) {
  bool replaced = false;
  for (auto& x : r.checks)
    if (x.name == c.name) x = c, replaced = true;
  if (!replaced) r.checks.push_back(std::move(c));
  if (r.verdict != "pass" && r.verdict != "fail") return;  // no_device / error stay as they are
  r.verdict = r.all_checks_passed() ? "pass" : "fail";
  std::string failed;
  for (const auto& x : r.checks)
    if (x.status != "pass") failed += (failed.empty() ? "" : ", ") + x.name;
  r.summary = r.verdict == "pass" ? "the workload ran on the " + vendor_word + " GPU and every check passed"
                                  : "not verified: " + failed;
}

}  // namespace r2r::plugins::verifier
