// SPDX-License-Identifier: MIT
// HTTP/1.1 over a unix socket with libcurl, for the Engine API. One curl easy handle per call, so
// an object may be used from several threads at once. Errors are sdk exceptions: the socket being
// absent or refusing connections is r2r::sdk::unavailable; any other transport failure is
// r2r::sdk::failed. HTTP error statuses are returned, not thrown: the caller knows what they mean.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::sandbox::docker {

class unix_http {
 public:
  /// `api_prefix` is prepended to every path ("/v1.41"); `timeout` bounds each plain request.
  unix_http(std::string socket_path, std::string api_prefix, std::chrono::milliseconds timeout);

  struct response {
    long status = 0;
    std::string body;
  };

  /// A request whose whole response body is returned. `body` is sent when not empty.
  response request(const std::string& method, const std::string& path, const std::string& body = {},
                   const std::string& content_type = "application/json") const;

  struct stream_options {
    std::string body;                   // request body (ignored when upload_file is set)
    std::filesystem::path upload_file;  // request body streamed from this file
    std::string content_type = "application/json";
    std::vector<std::string> headers;            // extra "Name: value" request headers
    std::function<void(std::string_view)> sink;  // receives the response body as it arrives
    std::function<bool()> should_stop;           // polled while waiting; true aborts the transfer
    std::chrono::milliseconds timeout{0};        // 0: no overall limit
  };
  struct stream_result {
    long status = 0;
    bool stopped = false;    // should_stop returned true and the transfer was aborted
    std::string error_body;  // the body when status >= 400 (the sink is not called then)
  };
  /// A request whose response body is streamed to options.sink (bounded memory).
  stream_result stream(const std::string& method, const std::string& path, const stream_options& options) const;

  const std::string& socket_path() const noexcept { return socket_; }

 private:
  std::string socket_;
  std::string prefix_;
  std::chrono::milliseconds timeout_;
};

/// Percent-encodes a query parameter value.
std::string url_encode(std::string_view value);

}  // namespace r2r::plugins::sandbox::docker
