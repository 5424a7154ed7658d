// SPDX-License-Identifier: MIT
// The fidelity ledger: every substitution or degradation of a run, one entry each, from three
// sources: the guards' decisions in trajectory.jsonl ("guard:<guard id>"), the verifiers' own
// ledgers ("verifier:<plugin id>") and the comparison of the plan with what was executed
// ("plan_check:<check>"). Levels (docs/bundle.md): D0 none, D1 equivalent ROCm backend, D2 slower
// path with the same semantics, D3 custom kernel replaced by a framework op, D4 acceleration
// disabled, D5 experiment semantics changed (model, data, scale).
#pragma once

#include <r2r/core/error.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::report {

struct ledger_entry {
  std::string component;    // what was substituted ("flash-attn", "workload", "base_image")
  int level = 0;            // 0..5 for D0..D5
  std::string source;       // "guard:<id>", "verifier:<id>" or "plan_check:<check>"
  std::string note;         // what happened, in words
  std::optional<int> turn;  // the executor turn, for guard entries
};

bool operator==(const ledger_entry& a, const ledger_entry& b);

/// "D3" -> 3; nullopt for anything else.
std::optional<int> parse_level(std::string_view text);
/// 3 -> "D3".
std::string level_name(int level);

/// "guard", "verifier" or "plan_check": the part of `source` before ':'.
std::string_view source_kind(const ledger_entry& e);

/// Component names compared case-insensitively with '-', '_' and '.' equal ("Flash_Attn" ==
/// "flash-attn"), the way PEP 503 compares package names.
std::string normalize_component(std::string_view name);

nlohmann::json to_json(const ledger_entry& e);
/// Strict: component non-empty, level "D0".."D5", source non-empty; errors name `where`.
core::result<ledger_entry> ledger_entry_from_json(const nlohmann::json& j, const std::string& where);

/// The ledger entries of the guards' decisions, in trajectory order: each record's
/// decision.ledger[] with the record's turn and "guard:<decision.guard>" as source. Entries with a
/// malformed level fail naming the turn.
core::result<std::vector<ledger_entry>> guard_ledger(const std::vector<nlohmann::json>& trajectory);

/// The ledger of one verifier response (its "ledger" array), sourced "verifier:<plugin_id>".
core::result<std::vector<ledger_entry>> verifier_ledger(const nlohmann::json& response, const std::string& plugin_id);

}  // namespace r2r::report
