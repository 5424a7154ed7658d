// SPDX-License-Identifier: MIT
// The plugin's logic: a plain class, unit-testable without loading the library
// (r2r::sdk::testing::fake_host gives it a host).
#pragma once

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/guard.hpp>

#include <cstddef>

namespace acme {

class max_command_length {
 public:
  struct config {
    std::size_t max_chars = 20000;
  };
  max_command_length(const config& c, const r2r::sdk::host& host);

  r2r::sdk::guard::decision check_action(const r2r::sdk::guard::check_request& request);
  r2r::sdk::guard::observe_response observe(const r2r::sdk::guard::observe_request& request);

  static r2r::sdk::method_table<max_command_length> methods() { return r2r::sdk::guard::methods<max_command_length>(); }

 private:
  std::size_t max_chars_;
  r2r::sdk::host host_;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(max_command_length::config, max_chars)

}  // namespace acme
