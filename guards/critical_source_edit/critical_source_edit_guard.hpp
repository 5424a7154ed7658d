// SPDX-License-Identifier: MIT
// r2r.guard.critical-source-edit: edits of kernel sources, extension build files and attention
// code (critical_rules.hpp says which files and how an edit is graded) through write_file,
// apply_patch, or commands (sed -i, perl -pi, rm, mv, truncate, redirections, tee, python -c).
// A graded edit is allowed only when the action carries a non-empty `reason` and the guard
// policy (configs/guards/critical_source_edit.json) records that grade in the run's mode; then
// the decision carries a ledger entry for the file at the policy's level (port D1, attention
// fallback D2, kernel replaced D3, acceleration disabled D4). Overwrites whose new content the
// command hides (`cat > k.cu <<EOF`, tee, cp onto, python -c open(..,'w')) are denied whatever
// the policy says: write_file or apply_patch show the change. write_file is compared with the
// file's content when the guard saw it (read_file output, an earlier write_file), else the new
// content is judged alone.
// THREADING: the host serialises calls; the known file contents are the only state.
#pragma once

#include "critical_rules.hpp"

#include <r2r/guards/command_view.hpp>
#include <r2r/guards/guard_policy.hpp>
#include <r2r/guards/known_files.hpp>
#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/guard.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::guard {

class critical_source_edit_guard {
 public:
  struct config {
    nlohmann::json policy;  // null: built-in policy; object: inline; string: policy file path
    std::size_t max_scan_bytes = 1 << 20;
  };

  /// Throws sdk::invalid_argument when the policy cannot be read or is invalid.
  critical_source_edit_guard(const config& cfg, const sdk::host& host);

  sdk::guard::decision check_action(const sdk::guard::check_request& request);
  /// Remembers file contents shown by read_file and written by write_file; forgets patched files.
  sdk::guard::observe_response observe(const sdk::guard::observe_request& request);

  static sdk::method_table<critical_source_edit_guard> methods() {
    return sdk::guard::methods<critical_source_edit_guard>();
  }

 private:
  struct graded {
    std::string path;
    critical::grade grade;
  };
  /// Grades of a command's edits; sets `hidden` to a description of an opaque overwrite of a critical file.
  std::vector<graded> command_grades(const std::string& command, const critical::plan_facts& facts,
                                     std::optional<std::string>& hidden) const;
  std::string kind_of(const std::string& path, const critical::plan_facts& facts) const;

  policy::guard_policy policy_;
  known_files files_;
  std::size_t max_scan_bytes_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, critical_source_edit_guard::config& c);

}  // namespace r2r::plugins::guard
