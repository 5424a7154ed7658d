// SPDX-License-Identifier: MIT
#include "unix_http.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/support/http/curl_global.hpp>

#include <curl/curl.h>

#include <sys/stat.h>
#include <cctype>
#include <cstdio>
#include <memory>

namespace r2r::plugins::sandbox::docker {
namespace {

// State shared with libcurl's callbacks during one transfer.
struct transfer {
  const unix_http::stream_options* options = nullptr;
  CURL* curl = nullptr;
  bool stopped = false;
  std::string error_body;
};

size_t on_data(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  const std::string_view chunk(data, size * count);
  long status = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 400) {
    if (t->error_body.size() < 64 * 1024) t->error_body.append(chunk);
    return chunk.size();
  }
  try {
    if (t->options->sink) t->options->sink(chunk);
  } catch (...) {
    return CURL_WRITEFUNC_ERROR;  // the sink's failure ends the transfer; rethrown below as failed
  }
  return chunk.size();
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<transfer*>(user);
  if (t->options != nullptr && t->options->should_stop && t->options->should_stop()) {
    t->stopped = true;
    return 1;
  }
  return 0;
}

size_t on_read(char* buffer, size_t size, size_t count, void* user) {
  return fread(buffer, size, count, static_cast<FILE*>(user));
}

}  // namespace

unix_http::unix_http(std::string socket_path, std::string api_prefix, std::chrono::milliseconds timeout)
    : socket_(std::move(socket_path)), prefix_(std::move(api_prefix)), timeout_(timeout) {
  support::http::init_libcurl();
}

unix_http::response unix_http::request(const std::string& method, const std::string& path, const std::string& body,
                                       const std::string& content_type) const {
  std::string whole;
  stream_options options;
  options.body = body;
  options.content_type = content_type;
  options.timeout = timeout_;
  options.sink = [&whole](std::string_view chunk) { whole.append(chunk); };
  auto result = stream(method, path, options);
  response out;
  out.status = result.status;
  out.body = result.status >= 400 ? std::move(result.error_body) : std::move(whole);
  return out;
}

unix_http::stream_result unix_http::stream(const std::string& method, const std::string& path,
                                           const stream_options& options) const {
  struct stat st {};
  if (::stat(socket_.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) {
    throw sdk::unavailable("no container engine socket at " + socket_ +
                           " (start dockerd or `podman system service`, or set \"socket\" in the plugin config)");
  }
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) throw sdk::failed("libcurl: cannot create a handle");
  CURL* c = curl.get();
  transfer t;
  t.options = &options;
  t.curl = c;
  const std::string url = "http://localhost" + prefix_ + path;
  curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, socket_.c_str());
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &on_data);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  if (options.timeout.count() > 0) curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout.count()));
  if (options.should_stop) {
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  }
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr, &curl_slist_free_all);
  const std::string type_header = "Content-Type: " + options.content_type;
  std::unique_ptr<FILE, decltype(&fclose)> upload(nullptr, &fclose);
  if (!options.upload_file.empty()) {
    upload.reset(fopen(options.upload_file.c_str(), "rb"));
    if (!upload) throw sdk::failed("cannot read " + options.upload_file.string());
    std::error_code ec;
    const auto size = std::filesystem::file_size(options.upload_file, ec);
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_easy_setopt(c, CURLOPT_READFUNCTION, &on_read);
    curl_easy_setopt(c, CURLOPT_READDATA, upload.get());
    curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(ec ? 0 : size));
    headers.reset(curl_slist_append(headers.release(), type_header.c_str()));
    headers.reset(curl_slist_append(headers.release(), "Expect:"));
  } else if (!options.body.empty() || method == "POST") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, options.body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(options.body.size()));
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    headers.reset(curl_slist_append(headers.release(), type_header.c_str()));
  }
  for (const auto& h : options.headers) headers.reset(curl_slist_append(headers.release(), h.c_str()));
  if (headers) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());

  const CURLcode rc = curl_easy_perform(c);
  stream_result result;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &result.status);
  result.stopped = t.stopped;
  result.error_body = std::move(t.error_body);
  if (rc == CURLE_OK || (rc == CURLE_ABORTED_BY_CALLBACK && t.stopped)) return result;
  if (rc == CURLE_COULDNT_CONNECT) {
    throw sdk::unavailable("the container engine at " + socket_ + " refuses connections: " + curl_easy_strerror(rc));
  }
  throw sdk::failed(method + " " + path + " via " + socket_ + ": " + curl_easy_strerror(rc));
}

std::string url_encode(std::string_view value) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char ch : value) {
    if (std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~') {
      out += static_cast<char>(ch);
    } else {
      out += '%';
      out += hex[ch >> 4];
      out += hex[ch & 15];
    }
  }
  return out;
}

}  // namespace r2r::plugins::sandbox::docker
