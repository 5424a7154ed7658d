// SPDX-License-Identifier: MIT
// URL text helpers that need no HTTP client: the scheme, and the URL with its credentials hidden.
// Apart from the GET client (get.hpp) so that code which only prints URLs does not link libcurl.
// THREADING: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace r2r::support::http {

/// The scheme before "://", in lower case; empty when there is none.
std::string scheme_of(std::string_view url);

/// True when the scheme is http or https (in any case).
bool is_http_url(std::string_view url);

/// `url` with any `user[:password]@` of its authority replaced by `***@`; other text unchanged.
std::string redact_url(std::string_view url);

}  // namespace r2r::support::http
