// SPDX-License-Identifier: MIT
// The origin of a URL (scheme, host, port) as libcurl parses it, which decides where the GET
// client (get.hpp) sends credentials.
// THREADING: reentrant.
#pragma once

#include <string>

namespace r2r::support::http {

/// True when both URLs parse and have the same scheme, host (case-insensitive) and port, a
/// missing port counting as the scheme's default. False when either does not parse.
bool same_origin(const std::string& a, const std::string& b);

}  // namespace r2r::support::http
