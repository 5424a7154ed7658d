// SPDX-License-Identifier: MIT
// One HTTP POST over libcurl, with connect and total timeouts, a response size limit and
// cooperative cancellation. The only place that includes <curl/curl.h>.
// THREADING: an http_transport is used by one thread at a time (the host serialises calls on an
// instance); it keeps one curl handle so connections are reused between calls.
// SECRETS: request headers may carry an API key; they are never logged nor put in messages.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace r2r::plugins::llm {

struct http_request {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // name, value
  std::string body;                                          // sent as is (JSON)
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds total_timeout{600000};
  std::size_t max_response_bytes = 64u << 20;
};

struct http_response {
  long status = 0;
  std::map<std::string, std::string> headers;  // names in lower case; the last value wins
  std::string body;

  /// A header's value, or "" when absent. `name` must be lower case.
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

/// Why no HTTP response came back.
enum class transport_failure {
  none,
  connect,    // refused, unreachable, unresolvable, or no connection within connect_timeout
  timeout,    // connected, but the exchange outlasted total_timeout
  broken,     // the connection failed mid-exchange (reset, empty reply, short body)
  too_large,  // the body grew past max_response_bytes
  cancelled,  // the cancel callback said stop
  other,      // TLS, protocol or local errors: not worth retrying
};

struct http_outcome {
  transport_failure failure = transport_failure::none;
  std::string detail;  // curl's explanation when failure != none
  http_response response;
  std::chrono::milliseconds elapsed{0};
};

class http_transport {
 public:
  /// Throws std::runtime_error when libcurl cannot create a handle.
  http_transport();
  ~http_transport();
  http_transport(const http_transport&) = delete;
  http_transport& operator=(const http_transport&) = delete;

  /// POSTs request.body to request.url. `cancelled` is polled during the transfer (libcurl calls
  /// back at least about once a second, more often while data flows) and stops it when it returns
  /// true. Never throws for network conditions; they come back in http_outcome::failure.
  http_outcome post(const http_request& request, const std::function<bool()>& cancelled);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace r2r::plugins::llm
