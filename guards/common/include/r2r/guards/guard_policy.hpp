// SPDX-License-Identifier: MIT
// Guard policies (configs/guards/*.json, schema configs/schema/guard_policy.schema.json): for each
// component a guard can degrade, the ledger level an allowed degradation is recorded at, whether
// each run mode denies it or records it, and whether the action must carry a `reason`.
// A guard's config key `policy` selects it: absent -> the guard's built-in policy (the shipped
// configs/guards/<guard>.json, compiled in); an object -> that policy inline; a string -> a policy
// file, absolute or relative to the working directory of the process.
// THREADING: a guard_policy is immutable after parsing; share it freely.
#pragma once

#include <r2r/sdk/kinds/guard.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::guard::policy {

enum class outcome { deny, record };

struct rule {
  std::string level;  // "D0".."D5": the ledger level of an allowed degradation
  std::string note;   // why the operator accepts it; copied to the ledger entry
  bool require_reason = true;
  outcome fallback = outcome::deny;  // "default"
  std::map<int, outcome> modes;      // "mode0".."mode2" overrides
  outcome in_mode(int mode) const;
};

/// A setting that turns an accelerator component off (policy key `switches`): an environment
/// variable (`kind` "environment", `name` is the exact variable) or a config-file key (`kind`
/// "config", `name` is an ECMAScript regex matched against the whole key, case-insensitively),
/// whose value matches `off` (regex, whole value, case-insensitive).
struct switch_rule {
  std::string kind;
  std::string name;
  std::string off;
  std::string component;  // the policy component of the finding
};

/// A variable that is denied in any form (policy key `forbidden_environment`), e.g.
/// HSA_OVERRIDE_GFX_VERSION, which makes the runtime load kernels built for another GPU.
struct forbidden_variable {
  std::string name;
  std::string why;
};

struct guard_policy {
  std::string guard;                       // the guard id the policy is written for
  std::string origin;                      // "built-in", "inline" or the file path; for messages
  std::map<std::string, rule> components;  // "*" applies to components not listed
  std::vector<switch_rule> switches;
  std::vector<forbidden_variable> forbidden_environment;

  /// The rule for `component`: its own, else "*", else nullptr (denied).
  const rule* find(const std::string& component) const;
};

/// Validates `doc` as a policy for `guard_id`. Throws sdk::invalid_argument naming the JSON pointer,
/// what was expected there and what was found, e.g.
///   "config /policy/components/epochs/mode2: expected \"deny\" or \"record\"; found \"maybe\"" (inline),
///   "policy file p.json /components/epochs/mode2: ..." (file). `origin` is "inline", "built-in" or the path.
guard_policy parse(const nlohmann::json& doc, std::string_view guard_id, std::string origin);

/// The policy a guard config selects (see the file comment). `config_value` is the config's
/// `policy` value or null; `builtin` is the text of the guard's shipped policy.
/// Throws sdk::invalid_argument when the file is missing or unreadable, or the policy is invalid.
guard_policy select(const nlohmann::json& config_value, std::string_view builtin, std::string_view guard_id);

/// One degradation an action would introduce.
struct finding {
  std::string component;  // the policy component, e.g. "epochs", "attention_fallback"
  std::string subject;    // what is degraded, for the ledger entry: a file, a flag, a package
  std::string what;       // what the action does, for reason and ledger note
};

/// Applies `p` to `f` for an action in `mode` carrying `reason` (empty when none): allow with one
/// ledger entry {subject or component, level, note}, or deny with a reason and an unlock naming
/// what the action or the policy would have to say.
sdk::guard::decision decide(const guard_policy& p, const finding& f, int mode, const std::string& reason);

}  // namespace r2r::plugins::guard::policy
