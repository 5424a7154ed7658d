// SPDX-License-Identifier: MIT
// Stored evidence re-judged: every verifier's capture goes back through its plugin's `judge`, and
// that response, not the recorded one, is what the report is rebuilt from.
#include "bundle_checks.hpp"

#include <fstream>
#include <set>
#include <sstream>

namespace r2r::report::detail {
namespace {

using nlohmann::json;

bool passes_mode1(const json& response) {
  for (const char* name : mode1_checks) {
    bool passed = false;
    for (const auto& c : response.value("checks", json::array()))
      passed = passed || (c.value("name", "") == name && c.value("status", "") == "pass");
    if (!passed) return false;
  }
  return true;
}

/// Every file under evidence/ is evidence/<id>/capture.json of a verifier report.json lists.
core::result<void> check_layout(const bundle_files& b, const std::set<std::string>& ids) {
  const auto root = b.dir / "evidence";
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(root))) return {};
  for (std::filesystem::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    // symlink_status only: a link (even a loop) is judged as a link, never followed.
    if (std::error_code type_ec; it->symlink_status(type_ec).type() == std::filesystem::file_type::directory) continue;
    const auto rel = it->path().lexically_relative(b.dir).generic_string();
    const auto id = it->path().parent_path().filename().string();
    if (it->path().filename() != "capture.json" || it->path().parent_path().parent_path() != root || !ids.count(id))
      return bundle_error(b.dir, rel,
                          "is not the stored capture of a verifier report.json lists (evidence/<verifier id>/"
                          "capture.json)");
  }
  if (ec) return bundle_error(b.dir, "evidence", "cannot be listed: " + ec.message());
  return {};
}

}  // namespace

std::string evidence_file(const std::string& verifier_id) {
  return "evidence/" + verifier_id + "/capture.json";
}

bool valid_evidence_id(const std::string& id) {
  if (id.empty() || id == "." || id == "..") return false;
  for (char c : id)
    if (c == '/' || c == '\\' || c == '\n' || c == '\r' || c == '\0') return false;
  return true;
}

core::result<std::vector<verifier_result>> judged_responses(const bundle_files& b, const verify_options& options,
                                                            std::vector<std::string>& notes) {
  auto responses = recorded_responses(b.report);
  std::set<std::string> ids;
  for (const auto& r : responses) ids.insert(r.plugin_id);
  if (auto r = check_layout(b, ids); !r) return tl::unexpected(r.error());
  std::size_t judged = 0;
  bool mode1_backed = false;
  for (auto& r : responses) {
    if (!valid_evidence_id(r.plugin_id)) continue;
    const std::string file = evidence_file(r.plugin_id);
    if (!std::filesystem::is_regular_file(b.dir / file)) continue;
    std::ifstream in(b.dir / file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const json capture = json::parse(text.str(), nullptr, false);
    if (!capture.is_object()) return bundle_error(b.dir, file, "is not a JSON object; the stored capture is damaged");
    if (!options.judge)
      return bundle_error(b.dir, file,
                          "cannot be re-judged here (no verifier plugins loaded); a stored verdict is never trusted");
    auto response =
        options.judge(r.plugin_id, json{{"plan", b.plan}, {"mode", b.report["mode"]}, {"capture", capture}});
    if (!response)
      return bundle_error(b.dir, file, "cannot be re-judged by " + r.plugin_id + ": " + response.error().message);
    if (!response->is_object() || response->value("verdict", "") != r.response["verdict"])
      return bundle_error(b.dir, file,
                          "re-judges to another verdict than report.json records for " + r.plugin_id +
                              ": the verdict was changed, or the evidence comes from another run");
    response->erase("capture");
    mode1_backed = mode1_backed || passes_mode1(*response);
    r.response = std::move(*response);
    r.capture = capture;
    ++judged;
  }
  if (b.report["verdict"] == "pass" && b.report["mode"].get<int>() >= 1 && !mode1_backed)
    return bundle_error(b.dir, "report.json",
                        "verdict is a Mode " + std::to_string(b.report["mode"].get<int>()) +
                            " pass, but no stored evidence (evidence/<verifier id>/capture.json) re-judges to Mode 1's "
                            "five passed checks; a stored verdict is never trusted");
  notes.push_back(judged == 0 ? std::string("evidence: none stored")
                              : "evidence: " + std::to_string(judged) +
                                    " verifier capture(s) re-judged by their plugins; their verdicts match");
  return responses;
}

}  // namespace r2r::report::detail
