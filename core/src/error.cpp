// SPDX-License-Identifier: MIT
#include <r2r/core/error.hpp>

namespace r2r::core {

std::string_view to_string(phase p) noexcept {
  switch (p) {
    case phase::discover:
      return "discover";
    case phase::preflight:
      return "preflight";
    case phase::dlopen:
      return "dlopen";
    case phase::entry:
      return "entry";
    case phase::abi:
      return "abi";
    case phase::capability:
      return "capability";
    case phase::schema:
      return "schema";
    case phase::manifest:
      return "manifest";
    case phase::registry:
      return "registry";
    case phase::config:
      return "config";
    case phase::create:
      return "create";
    case phase::run:
      return "run";
    case phase::io:
      return "io";
    case phase::usage:
      return "usage";
  }
  return "unknown";
}

std::string error::to_string() const {
  std::string out = "[";
  out += r2r::core::to_string(where);
  out += "] ";
  if (!plugin_id.empty()) out += plugin_id + " ";
  if (!path.empty()) out += (plugin_id.empty() ? "" : "in ") + path + " ";
  if (!plugin_id.empty() || !path.empty()) out.back() = ':', out += ' ';
  out += message;
  return out;
}

}  // namespace r2r::core
