// SPDX-License-Identifier: MIT
// Contents: repo.tar is a real archive the patch applies to; a run that executed left a trajectory.
#include "bundle_checks.hpp"
#include "patch_check.hpp"

namespace r2r::report::detail {
namespace {

/// commands.log's sandbox side (after "# sandbox:") holds a command.
bool sandbox_commands(const std::string& log) {
  const std::string marker = "# sandbox:";
  const auto at = log.find(marker);
  if (at == std::string::npos) return false;
  const auto nl = log.find('\n', at);
  if (nl == std::string::npos) return false;
  std::size_t pos = nl + 1;
  while (pos < log.size()) {
    std::size_t end = log.find('\n', pos);
    if (end == std::string::npos) end = log.size();
    const std::string line = log.substr(pos, end - pos);
    if (!line.empty() && line[0] != '#' && line.find_first_not_of(" \t\r") != std::string::npos) return true;
    pos = end + 1;
  }
  return false;
}

}  // namespace

core::result<void> check_contents(const bundle_files& b, std::vector<std::string>& notes) {
  if (auto r = check_patch_applies(b.patch_diff, b.dir / "repo.tar"); !r)
    return core::fail(core::phase::io, r.error().message, "", (b.dir / r.error().path).string());
  notes.push_back(b.patch_diff.empty() ? "repo.tar: a complete archive; patch.diff is empty"
                                       : "repo.tar: a complete archive that patch.diff applies to");
  const auto& executed = b.report["workload"]["executed"];
  const bool ran = executed.is_object() || b.report["verdict"] == "pass" || sandbox_commands(b.commands_log);
  if (ran && b.trajectory.empty())
    return bundle_error(b.dir, "trajectory.jsonl",
                        "is empty, but the run executed (a verifier ran the workload, the verdict is pass or the "
                        "sandbox ran commands): the executor's record is missing");
  notes.push_back("trajectory: " + std::to_string(b.trajectory.size()) + " records");
  return {};
}

}  // namespace r2r::report::detail
