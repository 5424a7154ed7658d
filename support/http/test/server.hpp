// SPDX-License-Identifier: MIT
// Scripted answers of the llm tests' loopback HTTP server (plugins/llm/testing) for the GET tests.
#pragma once

#include <r2r/support/http/get.hpp>

#include <loopback_server.hpp>

#include <string>

namespace r2r::support::http::testing {

using r2r::plugins::llm::testkit::loopback_server;
using r2r::plugins::llm::testkit::recorded_request;
using r2r::plugins::llm::testkit::scripted_response;

/// A request for `url` with every other option at its default.
inline get_request at(const std::string& url) {
  get_request r;
  r.url = url;
  return r;
}

inline scripted_response served(const std::string& body, const std::string& type = "text/plain", int status = 200) {
  scripted_response r;
  r.status = status;
  r.body = body;
  r.content_type = type;
  return r;
}

inline scripted_response redirect(const std::string& location, int status = 302) {
  scripted_response r = served("moved; this body is not the answer", "text/plain", status);
  r.headers = {{"Location", location}};
  return r;
}

}  // namespace r2r::support::http::testing
