// SPDX-License-Identifier: MIT
// Errors a plugin throws inside its own code. The SDK barrier turns them into an r2r_status and a
// last_error() message; nothing is ever thrown across the C ABI.
#pragma once

#include <r2r/plugin_api.h>

#include <stdexcept>
#include <string>

namespace r2r::sdk {

/// An error with the status the host will see. Throw it (or a subclass) from plugin code.
class error : public std::runtime_error {
 public:
  error(r2r_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  r2r_status status() const noexcept { return status_; }

 private:
  r2r_status status_;
};

/// The request or config is malformed: say what was expected, what was found and what to do.
struct invalid_argument : error {
  explicit invalid_argument(const std::string& m) : error(R2R_ERR_INVALID_ARGUMENT, m) {}
};

/// The operation ran and failed.
struct failed : error {
  explicit failed(const std::string& m) : error(R2R_ERR_FAILED, m) {}
};

/// A tool, device or service this plugin needs is not there.
struct unavailable : error {
  explicit unavailable(const std::string& m) : error(R2R_ERR_UNAVAILABLE, m) {}
};

/// The host cancelled the call.
struct cancelled : error {
  explicit cancelled(const std::string& m = "cancelled by the host") : error(R2R_ERR_CANCELLED, m) {}
};

}  // namespace r2r::sdk
