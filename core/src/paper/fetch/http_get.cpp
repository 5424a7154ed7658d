// SPDX-License-Identifier: MIT
// fetch_paper (fetch.hpp): GET over libcurl with redirects followed by hand, so that each target's
// scheme is checked before any byte is sent to it. The only file of the core that includes curl.
#include <r2r/paper/fetch.hpp>

#include <curl/curl.h>

#include <memory>
#include <mutex>
#include <stdexcept>

namespace r2r::paper {
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

struct body_sink {
  std::string* body;
  std::size_t max_bytes;
  bool too_large = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<body_sink*>(user);
  const std::size_t n = size * count;
  if (sink->body->size() + n > sink->max_bytes) {
    sink->too_large = true;
    return 0;  // stops the transfer with CURLE_WRITE_ERROR
  }
  sink->body->append(data, n);
  return n;
}

std::string scheme_of(const std::string& url) {
  const auto sep = url.find("://");
  std::string s = sep == std::string::npos ? std::string() : url.substr(0, sep);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool fetchable(const std::string& url) {
  const std::string s = scheme_of(url);
  return s == "http" || s == "https";
}

std::string status_words(long status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 410:
      return "Gone";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return status < 500 ? "client error" : "server error";
  }
}

/// `text` with every occurrence of the URL's secret part (its userinfo) removed.
std::string scrub(std::string text, const std::string& url) {
  const auto start = url.find("://");
  if (start == std::string::npos) return text;
  auto end = url.find_first_of("/?#", start + 3);
  if (end == std::string::npos) end = url.size();
  const auto at = url.substr(start + 3, end - start - 3).rfind('@');
  if (at == std::string::npos || at == 0) return text;
  const std::string secret = url.substr(start + 3, at);
  for (auto pos = text.find(secret); pos != std::string::npos; pos = text.find(secret, pos))
    text.replace(pos, secret.size(), "***");
  return text;
}

load_error failure(const std::string& shown, const std::string& what) {
  return load_error{"paper " + shown + ": " + what};
}

std::string network_advice(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
      return "cannot resolve the host name (DNS); check the URL and the network, or download the paper and "
             "pass its path";
    case CURLE_COULDNT_RESOLVE_PROXY:
      return "cannot resolve the proxy's host name; check http_proxy/https_proxy";
    case CURLE_COULDNT_CONNECT:
      return "cannot connect to the server (refused or unreachable); check the URL, the network and the proxy "
             "variables, or download the paper and pass its path";
    case CURLE_OPERATION_TIMEDOUT:
      return "the download timed out; retry, or download the paper and pass its path";
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_USE_SSL_FAILED:
      return "TLS error (the server's certificate could not be verified or the handshake failed); check the "
             "host's certificate and the system CA store, or download the paper and pass its path";
    case CURLE_UNSUPPORTED_PROTOCOL:
      return "the URL's scheme is not http or https";
    case CURLE_URL_MALFORMAT:
      return "the URL is malformed; give an http:// or https:// link";
    default:
      return "the download failed; retry, or download the paper and pass its path";
  }
}

}  // namespace

load_result<fetched_paper> fetch_paper(const std::string& url, const fetch_limits& limits) {
  fetched_paper out;
  out.url = redact_url(url);
  const std::string shown = "'" + out.url + "'";
  if (const std::string refused = refused_scheme(url); !refused.empty()) return tl::unexpected(load_error{refused});
  init_curl_once();
  std::unique_ptr<CURL, curl_deleter> handle(curl_easy_init());
  if (!handle) return tl::unexpected(failure(shown, "cannot start libcurl (curl_easy_init failed)"));
  CURL* h = handle.get();

  std::string current = url;
  for (int hop = 0;; ++hop) {
    curl_easy_reset(h);
    std::string body;
    body_sink sink{&body, limits.max_bytes};
    char error_text[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(h, CURLOPT_URL, current.c_str());
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);  // followed here, one checked hop at a time
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "repo2rocm (paper download)");
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(limits.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(limits.total_timeout.count()));
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(limits.max_bytes));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_text);
    const CURLcode code = curl_easy_perform(h);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
    if (sink.too_large || code == CURLE_FILESIZE_EXCEEDED)
      return tl::unexpected(failure(shown, "the download grew past " + std::to_string(limits.max_bytes >> 20) +
                                               " MiB (" + std::to_string(limits.max_bytes) +
                                               " bytes) and was stopped; give the paper alone, not an archive"));
    if (code != CURLE_OK) {
      const std::string detail = scrub(error_text[0] ? std::string(error_text) : curl_easy_strerror(code), current);
      return tl::unexpected(failure(shown, network_advice(code) + " (" + detail + ")"));
    }
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 300 && status < 400) {
      char* location = nullptr;
      curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &location);
      if (location == nullptr)
        return tl::unexpected(failure(shown, "HTTP " + std::to_string(status) + " without a Location to follow"));
      const std::string next = location;
      if (!fetchable(next))
        return tl::unexpected(failure(shown, "redirected to '" + redact_url(next) +
                                                 "', which is not http(s); refused (only http and https are "
                                                 "followed)"));
      if (hop >= limits.max_redirects)
        return tl::unexpected(failure(shown, "more than " + std::to_string(limits.max_redirects) +
                                                 " redirects (the last to '" + redact_url(next) +
                                                 "'); give the paper's final link"));
      out.redirects.push_back(redact_url(next));
      current = next;
      continue;
    }
    if (status >= 400)
      return tl::unexpected(failure(shown, "the server answered HTTP " + std::to_string(status) + " (" +
                                               status_words(status) + ")" +
                                               (current == url ? std::string() : " at '" + redact_url(current) + "'") +
                                               "; check the link, or download the paper and pass its path"));
    if (status < 200) return tl::unexpected(failure(shown, "unexpected HTTP status " + std::to_string(status)));
    char* type = nullptr;
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &type);
    out.content_type = type != nullptr ? type : "";
    out.final_url = redact_url(current);
    out.bytes = std::move(body);
    return out;
  }
}

}  // namespace r2r::paper
