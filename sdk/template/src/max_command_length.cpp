// SPDX-License-Identifier: MIT
#include "max_command_length.hpp"

#include <string>

namespace acme {

max_command_length::max_command_length(const config& c, const r2r::sdk::host& host)
    : max_chars_(c.max_chars), host_(host) {}

r2r::sdk::guard::decision max_command_length::check_action(const r2r::sdk::guard::check_request& request) {
  const std::string command = request.action.text("command");
  if (command.size() <= max_chars_) return r2r::sdk::guard::decision::allow();
  R2R_LOG(host_, info, "deny: command of " << command.size() << " chars");
  return r2r::sdk::guard::decision::deny(
      "command is " + std::to_string(command.size()) + " characters; the limit is " + std::to_string(max_chars_),
      "split the command into steps, or write a script with write_file and run it");
}

r2r::sdk::guard::observe_response max_command_length::observe(const r2r::sdk::guard::observe_request&) {
  return {};
}

}  // namespace acme
