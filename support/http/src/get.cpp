// SPDX-License-Identifier: MIT
// get_string / get_file (get.hpp): one curl easy handle, reset for each hop, with redirects
// followed here so that each target's scheme and origin are checked before it is asked.
#include <r2r/support/http/curl_global.hpp>
#include <r2r/support/http/get.hpp>
#include <r2r/support/http/origin.hpp>
#include <r2r/support/http/url.hpp>

#include "transport_failure.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace r2r::support::http {
namespace {

using clock = std::chrono::steady_clock;

struct curl_deleter {
  void operator()(CURL* h) const noexcept { curl_easy_cleanup(h); }
};
struct slist_deleter {
  void operator()(curl_slist* l) const noexcept { curl_slist_free_all(l); }
};

/// The statuses this client follows (with a Location); every other status is an answer.
bool is_redirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/// Where the final answer's body goes: `text` or `file`, at most `max_bytes`.
struct sink {
  CURL* handle = nullptr;
  std::string* text = nullptr;
  std::FILE* file = nullptr;
  std::optional<std::uintmax_t> max_bytes;
  std::uintmax_t kept = 0;
  bool too_large = false;
  bool write_failed = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* s = static_cast<sink*>(user);
  const std::size_t n = size * count;
  long status = 0;
  curl_easy_getinfo(s->handle, CURLINFO_RESPONSE_CODE, &status);
  if (is_redirect(status)) return n;  // a redirect's body is not the answer
  if (s->max_bytes && s->kept + n > *s->max_bytes) {
    s->too_large = true;
    return 0;  // stops the transfer with CURLE_WRITE_ERROR
  }
  if (s->text != nullptr) {
    s->text->append(data, n);
  } else if (std::fwrite(data, 1, n, s->file) != n) {
    s->write_failed = true;
    return 0;
  }
  s->kept += n;
  return n;
}

/// `text` with every occurrence of `url`'s userinfo replaced by "***".
std::string scrub(std::string text, const std::string& url) {
  const std::string shown = redact_url(url);
  if (shown == url) return text;
  const auto start = url.find("://") + 3;
  const std::string secret = url.substr(start, url.size() - shown.size() + 3);
  if (secret.empty()) return text;
  for (auto pos = text.find(secret); pos != std::string::npos; pos = text.find(secret, pos))
    text.replace(pos, secret.size(), "***");
  return text;
}

std::string size_text(std::uintmax_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + " MiB (" + std::to_string(n) + " bytes)";
  return std::to_string(n) + " bytes";
}

class hops {
 public:
  hops(const get_request& request, sink& s, std::string sink_name)
      : request_(request), sink_(s), sink_name_(std::move(sink_name)) {}

  get_result run() {
    out_.final_url = redact_url(request_.url);
    if (!is_http_url(request_.url))
      return fail(get_failure::bad_scheme, "'" + out_.final_url + "' is not an http:// or https:// URL",
                  "give an http:// or https:// URL");
    init_libcurl();
    std::unique_ptr<CURL, curl_deleter> handle(curl_easy_init());
    if (!handle) return fail(get_failure::transport, "cannot start libcurl (curl_easy_init failed)", "retry");
    sink_.handle = handle.get();
    std::unique_ptr<curl_slist, slist_deleter> headers;
    for (const auto& h : request_.origin_headers) {
      curl_slist* more = curl_slist_append(headers.get(), (h.name + ": " + h.value).c_str());
      if (more == nullptr) return fail(get_failure::transport, "out of memory for the request headers", "retry");
      (void)headers.release();
      headers.reset(more);
    }
    const auto deadline = clock::now() + request_.total_timeout;
    std::string current = request_.url;
    for (int hop = 0;; ++hop) {
      out_.final_url = redact_url(current);
      at_ = current == request_.url ? std::string() : " at '" + out_.final_url + "'";
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
      if (left.count() <= 0)
        return fail(get_failure::timeout,
                    "the download timed out (" + std::to_string(request_.total_timeout.count() / 1000) +
                        " s for all redirects)",
                    "retry, or use a nearer server or mirror");
      CURL* h = handle.get();
      curl_easy_reset(h);
      char error_text[CURL_ERROR_SIZE] = {0};
      curl_easy_setopt(h, CURLOPT_URL, current.c_str());
      curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
      curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);  // followed below, one checked hop at a time
      curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
      curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
      curl_easy_setopt(h, CURLOPT_USERAGENT, request_.user_agent.c_str());
      curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
      curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request_.connect_timeout.count()));
      curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(left.count()));
      if (request_.max_bytes)
        curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(*request_.max_bytes));
      if (headers && same_origin(current, request_.url)) curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
      curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_body);
      curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink_);
      curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_text);
      const CURLcode code = curl_easy_perform(h);
      curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
      if (sink_.too_large || code == CURLE_FILESIZE_EXCEEDED)
        return fail(get_failure::too_large, "the body grew past " + size_text(*request_.max_bytes) + " and was stopped",
                    "check that the URL names the file meant");
      if (sink_.write_failed)
        return fail(get_failure::write_failed, "cannot write the body to " + sink_name_,
                    "check the free space and the permissions of its directory");
      if (code != CURLE_OK) {
        const auto t = detail::classify(code);
        std::string detail = error_text[0] != '\0' ? std::string(error_text) : curl_easy_strerror(code);
        return fail(t.kind, t.what, t.remedy, scrub(scrub(std::move(detail), current), request_.url));
      }
      long status = 0;
      curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
      if (!is_redirect(status)) {
        char* type = nullptr;
        curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &type);
        out_.content_type = type != nullptr ? type : "";
        out_.status = status;
        out_.bytes = sink_.kept;
        return std::move(out_);
      }
      char* location = nullptr;
      curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &location);
      if (location == nullptr)
        return fail(get_failure::no_location, status_text(status) + " without a Location to follow", "check the URL");
      const std::string next = location;
      if (!is_http_url(next))
        return fail(get_failure::bad_scheme, "redirected to '" + redact_url(next) + "', which is not http(s)",
                    "refused: only http and https are followed");
      if (hop >= request_.max_redirects)
        return fail(get_failure::too_many_redirects,
                    "more than " + std::to_string(request_.max_redirects) + " redirects (the last to '" +
                        redact_url(next) + "')",
                    "give the final URL");
      out_.redirects.push_back(redact_url(next));
      current = next;
    }
  }

 private:
  get_result fail(get_failure kind, const std::string& what, const std::string& remedy,
                  const std::string& detail = "") {
    out_.failure = kind;
    out_.status = 0;
    out_.error = what + at_ + "; " + remedy + (request_.more_advice.empty() ? "" : ", " + request_.more_advice) +
                 (detail.empty() ? "" : " (" + detail + ")");
    return std::move(out_);
  }

  const get_request& request_;
  sink& sink_;
  std::string sink_name_;
  get_result out_;
  std::string at_;  // " at 'URL'" once a redirect led away from the first URL
};

struct file_closer {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

}  // namespace

get_result get_string(const get_request& request) {
  std::string body;
  sink s;
  s.text = &body;
  s.max_bytes = request.max_bytes;
  get_result out = hops(request, s, "memory").run();
  out.body = std::move(body);
  return out;
}

get_result get_file(const get_request& request, const std::filesystem::path& file) {
  std::unique_ptr<std::FILE, file_closer> f(std::fopen(file.c_str(), "wb"));
  sink s;
  s.file = f.get();
  s.max_bytes = request.max_bytes;
  if (!f) {
    get_result out;
    out.final_url = redact_url(request.url);
    out.failure = get_failure::write_failed;
    out.error = "cannot create " + file.string() + "; check the free space and the permissions of its directory";
    return out;
  }
  get_result out = hops(request, s, file.string()).run();
  if (std::fclose(f.release()) != 0 && out.answered()) {
    out.failure = get_failure::write_failed;
    out.status = 0;
    out.error =
        "cannot write the body to " + file.string() + "; check the free space and the permissions of its directory";
  }
  return out;
}

}  // namespace r2r::support::http
