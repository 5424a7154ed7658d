// SPDX-License-Identifier: MIT
// Python package names as the fingerprint (core) and rankers (plugins) compare them. Shared here so
// both sides normalise identically: a ranker's desired tokens must match the fingerprint's.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace r2r::sdk {

/// PEP 503 normalisation: lower case, runs of '-', '_' and '.' become one '-'.
inline std::string normalise_package_name(std::string_view name) {
  std::string out;
  bool sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out += '-';
    sep = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace r2r::sdk
