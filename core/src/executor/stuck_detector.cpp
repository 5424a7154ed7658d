// SPDX-License-Identifier: MIT
#include <r2r/executor/stuck_detector.hpp>

#include <cctype>

namespace r2r::executor {
namespace {

void collapse(nlohmann::json& j) {
  if (j.is_string()) {
    std::string out;
    for (char c : j.get<std::string>()) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!out.empty() && out.back() != ' ') out += ' ';
      } else {
        out += c;
      }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    j = out;
  } else if (j.is_object() || j.is_array()) {
    for (auto& v : j) collapse(v);
  }
}

}  // namespace

std::string normalised_action(const nlohmann::json& action) {
  nlohmann::json copy = action;
  collapse(copy);
  return copy.dump();
}

stuck_verdict stuck_detector::bump(std::map<std::string, int>& counts, const std::string& key,
                                   const std::string& what) {
  const int n = ++counts[key];
  stuck_verdict v;
  if (n == options_.hint_after) {
    v.what = stuck_verdict::kind::hint;
    v.text = what + " has now failed " + std::to_string(n) +
             " times; repeating it will not help. Read the error, change the approach (another package version, "
             "a patch, a different command), or give up with a reason.";
  } else if (n >= options_.hint_after + options_.stop_after) {
    v.what = stuck_verdict::kind::stop;
    v.text = what + " repeated " + std::to_string(n) + " times (a hint was given after " +
             std::to_string(options_.hint_after) + ")";
  }
  return v;
}

stuck_verdict stuck_detector::observe(const sdk::policy::turn_record& turn) {
  const std::string key = normalised_action(turn.action);
  if (!turn.failed()) {
    action_failures_.erase(key);
    return {};
  }
  stuck_verdict by_signature;
  if (!turn.error_signature.empty()) {
    by_signature = bump(signatures_, turn.error_signature, "the error \"" + turn.error_signature + "\"");
  }
  std::string what = "the action " + (key.size() > 160 ? key.substr(0, 160) + "…" : key);
  if (turn.decision == "deny") what += " (denied: " + turn.reason.substr(0, 160) + ")";
  stuck_verdict by_action = bump(action_failures_, key, what);
  if (by_signature.what == stuck_verdict::kind::stop || by_action.what == stuck_verdict::kind::stop) {
    return by_signature.what == stuck_verdict::kind::stop ? by_signature : by_action;
  }
  if (by_signature.what == stuck_verdict::kind::hint) return by_signature;
  return by_action;
}

}  // namespace r2r::executor
