// SPDX-License-Identifier: MIT
#include "asset_http.hpp"

#include <curl/curl.h>

#include <cctype>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace r2r::run::assets {
namespace {

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw std::runtime_error("curl_global_init failed");
  });
}

struct curl_deleter {
  void operator()(CURL* h) const noexcept { curl_easy_cleanup(h); }
};
struct file_closer {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

struct sink {
  std::string* text = nullptr;  // one of text or file
  std::FILE* file = nullptr;
  std::size_t max_bytes = 0;  // text only
  bool too_large = false;
  bool write_failed = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* s = static_cast<sink*>(user);
  const std::size_t n = size * count;
  if (s->text != nullptr) {
    if (s->text->size() + n > s->max_bytes) {
      s->too_large = true;
      return 0;
    }
    s->text->append(data, n);
    return n;
  }
  if (std::fwrite(data, 1, n, s->file) != n) {
    s->write_failed = true;
    return 0;
  }
  return n;
}

/// Keeps the headers of the last response only (a redirect's are dropped at the next status line).
std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  const std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();
    return line.size();
  }
  const auto colon = line.find(':');
  if (colon == std::string::npos) return line.size();
  std::string name = line.substr(0, colon);
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string value = line.substr(colon + 1);
  const auto b = value.find_first_not_of(" \t");
  const auto e = value.find_last_not_of(" \t\r\n");
  (*headers)[name] = b == std::string::npos ? std::string() : value.substr(b, e - b + 1);
  return line.size();
}

std::string advice(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
      return "cannot resolve the host name; check the endpoint (HF_ENDPOINT) and the network";
    case CURLE_COULDNT_RESOLVE_PROXY:
      return "cannot resolve the proxy's host name; check https_proxy/http_proxy";
    case CURLE_COULDNT_CONNECT:
      return "cannot connect (refused or unreachable); check the endpoint (HF_ENDPOINT), the network and the proxy";
    case CURLE_OPERATION_TIMEDOUT:
      return "timed out; retry, or point HF_ENDPOINT at a nearer mirror";
    case CURLE_TOO_MANY_REDIRECTS:
      return "too many redirects";
    case CURLE_UNSUPPORTED_PROTOCOL:
      return "a redirect to a scheme other than http or https was refused";
    default:
      return "the download failed; retry";
  }
}

http_answer get(const http_request& request, sink& s) {
  http_answer out;
  init_curl_once();
  std::unique_ptr<CURL, curl_deleter> handle(curl_easy_init());
  if (!handle) {
    out.error = "cannot start libcurl (curl_easy_init failed)";
    return out;
  }
  CURL* h = handle.get();
  char error_text[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(h, CURLOPT_UNRESTRICTED_AUTH, 0L);  // the token stays with the first host
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "repo2rocm (asset fetch)");
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 15000L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count() * 1000));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &out.headers);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_text);
  if (!request.bearer.empty()) {
    curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
    curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, request.bearer.c_str());
  }
  const CURLcode code = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out.status);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
  if (s.too_large) {
    out.error = "the answer is larger than " + std::to_string(s.max_bytes) + " bytes";
  } else if (s.write_failed) {
    out.error = "cannot write the download to disk; check the free space of the run directory";
  } else if (code != CURLE_OK) {
    out.status = 0;
    out.error = std::string(error_text[0] != '\0' ? error_text : curl_easy_strerror(code)) + ": " + advice(code);
  }
  return out;
}

}  // namespace

http_answer get_text(const http_request& request, std::string& body, std::size_t max_bytes) {
  body.clear();
  sink s;
  s.text = &body;
  s.max_bytes = max_bytes;
  return get(request, s);
}

http_answer get_file(const http_request& request, const std::filesystem::path& file) {
  std::unique_ptr<std::FILE, file_closer> f(std::fopen(file.c_str(), "wb"));
  if (!f) {
    http_answer out;
    out.error = "cannot create " + file.string();
    return out;
  }
  sink s;
  s.file = f.get();
  auto out = get(request, s);
  if (std::fflush(f.get()) != 0 && out.error.empty())
    out.error = "cannot write " + file.string() + "; check the free space of the run directory";
  return out;
}

}  // namespace r2r::run::assets
