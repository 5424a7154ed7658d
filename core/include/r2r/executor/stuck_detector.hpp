// SPDX-License-Identifier: MIT
// Notices a run going in circles: the same normalised action failing again and again, or the same
// error signature coming back. After `hint_after` repeats it asks for a hint; after `stop_after`
// further repeats it asks to stop. State is rebuilt by feeding the recorded turns again.
// THREADING: not thread-safe; one per run.
#pragma once

#include <r2r/sdk/kinds/policy.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace r2r::executor {

struct stuck_options {
  int hint_after = 3;  // repeats (of one failing action or one signature) before the hint
  int stop_after = 2;  // further repeats after the hint before the run stops as `stuck`
};

struct stuck_verdict {
  enum class kind { none, hint, stop } what = kind::none;
  std::string text;  // the hint or the stop reason, quoting the signature or action
};

class stuck_detector {
 public:
  explicit stuck_detector(stuck_options options = {}) : options_(options) {}
  /// Feeds one recorded turn; successful turns reset nothing but the counts of their own action.
  stuck_verdict observe(const sdk::policy::turn_record& turn);

 private:
  stuck_verdict bump(std::map<std::string, int>& counts, const std::string& key, const std::string& what);
  stuck_options options_;
  std::map<std::string, int> action_failures_;
  std::map<std::string, int> signatures_;
};

/// The action's identity for repeat detection: its JSON with whitespace runs collapsed in strings.
std::string normalised_action(const nlohmann::json& action);

}  // namespace r2r::executor
