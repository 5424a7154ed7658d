// SPDX-License-Identifier: MIT
#include "http_transport.hpp"

#include <r2r/support/http/curl_global.hpp>

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace r2r::plugins::llm {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  const auto end = s.find_last_not_of(" \t\r\n");
  return s.substr(begin, end - begin + 1);
}

// Transfer state shared with curl's callbacks for one post().
struct transfer {
  http_response* response;
  std::size_t max_bytes;
  bool too_large = false;
  const std::function<bool()>* cancelled;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  const std::size_t n = size * count;
  if (t->response->body.size() + n > t->max_bytes) {
    t->too_large = true;
    return 0;  // makes curl stop with CURLE_WRITE_ERROR
  }
  t->response->body.append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  const std::size_t n = size * count;
  const std::string line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {
    t->response->headers.clear();  // a new response (after 100 Continue or a redirect) starts over
    return n;
  }
  const auto colon = line.find(':');
  if (colon != std::string::npos)
    t->response->headers[lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<transfer*>(user);
  return (*t->cancelled && (*t->cancelled)()) ? 1 : 0;
}

transport_failure classify(CURLcode code, bool too_large) {
  switch (code) {
    case CURLE_OK:
      return transport_failure::none;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return transport_failure::connect;
    case CURLE_OPERATION_TIMEDOUT:
      return transport_failure::timeout;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return transport_failure::broken;
    case CURLE_WRITE_ERROR:
      return too_large ? transport_failure::too_large : transport_failure::other;
    case CURLE_ABORTED_BY_CALLBACK:
      return transport_failure::cancelled;
    default:
      return transport_failure::other;
  }
}

}  // namespace

struct http_transport::impl {
  CURL* handle = nullptr;
};

http_transport::http_transport() : impl_(std::make_unique<impl>()) {
  support::http::init_libcurl();
  impl_->handle = curl_easy_init();
  if (impl_->handle == nullptr) throw std::runtime_error("curl_easy_init failed");
}

http_transport::~http_transport() {
  if (impl_ && impl_->handle != nullptr) curl_easy_cleanup(impl_->handle);
}

http_outcome http_transport::post(const http_request& request, const std::function<bool()>& cancelled) {
  CURL* h = impl_->handle;
  curl_easy_reset(h);  // keeps the connection cache, drops every option of the previous call

  http_outcome out;
  transfer t{&out.response, request.max_response_bytes, false, &cancelled};
  char error_text[CURL_ERROR_SIZE] = {0};

  // The list owns copies of the header lines (one may hold an API key); freed before returning.
  curl_slist* headers = nullptr;
  struct slist_guard {
    curl_slist*& list;
    ~slist_guard() { curl_slist_free_all(list); }
  } guard{headers};
  for (const auto& [name, value] : request.headers) {
    const std::string line = name + ": " + value;
    curl_slist* grown = curl_slist_append(headers, line.c_str());
    if (grown == nullptr) throw std::bad_alloc();
    headers = grown;
  }
  // Large bodies would make curl wait for "100 Continue"; the servers we talk to answer directly.
  if (curl_slist* grown = curl_slist_append(headers, "Expect:")) headers = grown;

  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for timeouts: we live in a threaded host
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout.count()));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout.count()));
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // any encoding curl can decode
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_text);

  const auto start = std::chrono::steady_clock::now();
  const CURLcode code = curl_easy_perform(h);
  out.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);  // error_text goes out of scope

  out.failure = classify(code, t.too_large);
  if (out.failure == transport_failure::timeout) {
    // The same curl code covers "no connection within connect_timeout"; a transfer that never got
    // as far as sending was a connection failure, and is safe to retry.
    curl_off_t pretransfer_us = 0;
    curl_easy_getinfo(h, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
    if (pretransfer_us == 0) out.failure = transport_failure::connect;
  }
  if (out.failure != transport_failure::none) {
    out.detail = error_text[0] != '\0' ? std::string(error_text) : std::string(curl_easy_strerror(code));
    if (out.failure == transport_failure::too_large) {
      out.detail = "the response grew past " + std::to_string(request.max_response_bytes) + " bytes";
    }
    return out;
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out.response.status);
  return out;
}

}  // namespace r2r::plugins::llm
