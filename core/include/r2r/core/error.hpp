// SPDX-License-Identifier: MIT
// The one error type of core. Fallible functions return result<T>; exceptions from third-party
// code are converted at the edge of the module that called it; only main() maps errors to exit codes.
#pragma once

#include <tl/expected.hpp>

#include <string>
#include <string_view>

namespace r2r::core {

/// Where in a plugin's life (or a run) an error happened, in order.
enum class phase {
  discover,    // finding candidate files on the search path
  preflight,   // reading the ELF exports before any code is loaded
  dlopen,      // loading the library (undefined symbols fail here, with rtld_now)
  entry,       // calling r2r_plugin_entry_v1
  abi,         // descriptor size and ABI version checks
  capability,  // required operations present, id and kind well formed
  schema,      // the plugin's config schema is valid JSON Schema
  manifest,    // the sidecar manifest agrees with the binary
  registry,    // duplicate ids, unknown ids
  config,      // pipeline file and plugin configs
  create,      // plugin create()
  run,         // plugin call() and stages
  io,          // reading files
  usage,       // command-line usage
};

std::string_view to_string(phase p) noexcept;

struct error {
  phase where = phase::run;
  std::string message;    // what was expected, what was found, what to do
  std::string plugin_id;  // empty when not about one plugin
  std::string path;       // file involved, empty when none
  int status = 0;         // the plugin's r2r_status when the error came from a plugin call, else 0

  /// One line: "[abi] r2r.guard.x in /p/libr2r-guard-x.so: message".
  std::string to_string() const;
};

template <class T>
using result = tl::expected<T, error>;

inline tl::unexpected<error> fail(phase where, std::string message, std::string plugin_id = {}, std::string path = {}) {
  return tl::unexpected<error>(error{where, std::move(message), std::move(plugin_id), std::move(path)});
}

}  // namespace r2r::core
