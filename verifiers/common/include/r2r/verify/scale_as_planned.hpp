// SPDX-License-Identifier: MIT
// The `scale_as_planned` check of Mode 1. The verifier runs the plan's command verbatim, so the
// command cannot be scaled down; what can is a file the command reads. The plan names those files
// (plan.scale.files: the workload script and the configuration files it names) with their
// scale-bearing values at the pinned commit (r2r/sdk/scale_values.hpp rules). Before the workload
// runs, the verifier reads the same files from the final workspace through the sandbox exec (a
// separate exec that only runs `cat`, fenced with a fresh nonce) and compares the values: any
// value changed, removed or overridden that the ledger does not record makes the check
// not_verified, naming the file, key and line. Pure functions besides the script text.
#pragma once

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/verifier.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier {

struct planned_scale_value {
  std::string key, value;
  int line = 0;
};
struct planned_scale_file {
  std::string file;  // relative to the workspace
  std::vector<planned_scale_value> values;
};
/// plan.scale.files; empty when the plan has none.
std::vector<planned_scale_file> scale_files_from_plan(const nlohmann::json& plan);

/// The sh script that prints each file named (one per line) in $R2R_SCALE_FILES, fenced by
/// "@@R2R-SCALE-$R2R_SCALE_NONCE <file>" ("... MISSING <file>" when it cannot be read).
const std::string& scale_read_script();

/// File -> its content in the final workspace (nullopt: missing or unreadable). Lines without the
/// nonce's fence belong to the file before them.
std::map<std::string, std::optional<std::string>> parse_scale_output(std::string_view output, std::string_view nonce);

/// `command_ran` is the base detail (the plan's command ran verbatim). `files_read` is false when
/// the read itself failed (no sandbox reply): not_verified.
sdk::verifier::check check_scale_as_planned(const std::string& command, const std::vector<planned_scale_file>& planned,
                                            const std::map<std::string, std::optional<std::string>>& final_files,
                                            bool files_read, const std::vector<sdk::verifier::ledger_entry>& ledger);

/// Reads the planned files from the sandbox's workspace with scale_read_script() (a fresh nonce,
/// nothing else runs). Sets `ok` false when the exec failed, timed out or was truncated.
std::map<std::string, std::optional<std::string>> read_scale_files(sdk::call_context& ctx, const std::string& service,
                                                                   const sdk::verifier::sandbox_ref& sandbox,
                                                                   const std::vector<planned_scale_file>& planned,
                                                                   bool& ok);

/// Replaces the response's check of the same name and recomputes its verdict and summary the way
/// evaluate_mode1 words them.
void replace_check(sdk::verifier::verify_response& r, sdk::verifier::check c, const std::string& vendor_word);

}  // namespace r2r::plugins::verifier
