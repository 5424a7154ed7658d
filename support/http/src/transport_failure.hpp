// SPDX-License-Identifier: MIT
// What a libcurl failure means to a user of the GET client: its kind, what happened and what to do.
#pragma once

#include <r2r/support/http/get.hpp>

#include <curl/curl.h>

#include <string>

namespace r2r::support::http::detail {

struct transport_failure {
  get_failure kind = get_failure::transport;
  std::string what;    // what happened
  std::string remedy;  // what to do
};

transport_failure classify(CURLcode code);

}  // namespace r2r::support::http::detail
