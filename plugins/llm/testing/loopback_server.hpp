// SPDX-License-Identifier: MIT
// A real HTTP/1.1 server on 127.0.0.1 for tests (cpp-httplib underneath): it records every request
// and answers each with the next scripted response, or with what a handler computes. Tests use it
// to speak a provider's wire format over real sockets (POST), or to serve downloads (GET).
// THREADING: the server runs on its own threads; every public member is safe to call from the
// test thread while it runs. The destructor stops it, cutting short any scripted delay.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace r2r::plugins::llm::testkit {

struct recorded_request {
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;

  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
  nlohmann::json json() const { return nlohmann::json::parse(body); }
};

struct scripted_response {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds delay{0};          // wait before answering
  std::optional<std::size_t> cut_after_bytes;  // declare the full length, send this many bytes, drop the connection
  bool chunked = false;  // no Content-Length: the body goes out in 64 KiB chunks (a client cannot size it first)

  static scripted_response json(int status, const nlohmann::json& body) {
    scripted_response r;
    r.status = status;
    r.body = body.dump();
    return r;
  }
};

class loopback_server {
 public:
  using handler = std::function<scripted_response(const recorded_request&)>;

  /// Binds 127.0.0.1 on a free port and starts serving. Throws std::runtime_error when it cannot.
  loopback_server();
  ~loopback_server();
  loopback_server(const loopback_server&) = delete;
  loopback_server& operator=(const loopback_server&) = delete;

  int port() const noexcept;
  /// "http://127.0.0.1:<port>" plus `suffix` (for example "/v1").
  std::string base_url(const std::string& suffix = "") const;

  /// Responses served in order to the next POSTs and GETs (before any handler).
  void enqueue(scripted_response response);
  /// Computes responses once the queue is empty. Without one, an unscripted POST gets a 418 (a 4xx,
  /// never retried) whose body says so, and the test fails on the unexpected request count.
  void set_handler(handler h);

  std::vector<recorded_request> requests() const;
  std::size_t request_count() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace r2r::plugins::llm::testkit
