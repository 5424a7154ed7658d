// SPDX-License-Identifier: MIT
#include "asset_cache.hpp"

#include <r2r/report/sha256.hpp>
#include <r2r/support/http/get.hpp>
#include <r2r/support/http/url.hpp>

#include <cctype>
#include <fstream>
#include <map>
#include <regex>

namespace r2r::run::assets {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
namespace http = support::http;

constexpr std::size_t max_api_bytes = 16u << 20;

/// A GET of `url`; `token` (when not empty) is a bearer token for the URL's origin only (a Hub's
/// resolve answer redirects to a CDN, which must not see it).
http::get_request asset_get(const std::string& url, const std::string& token, std::chrono::seconds timeout) {
  http::get_request r;
  r.url = url;
  if (!token.empty()) r.origin_headers.push_back({"Authorization", "Bearer " + token});
  r.total_timeout = timeout;
  r.user_agent = "repo2rocm (asset fetch)";
  return r;
}

/// asset_get for the Hub at HF_ENDPOINT, whose failures say that it can be pointed elsewhere.
http::get_request hub_get(const std::string& url, const std::string& token, std::chrono::seconds timeout) {
  http::get_request r = asset_get(url, token, timeout);
  r.more_advice = "or point HF_ENDPOINT at a reachable Hub or mirror";
  return r;
}

/// A relative '/'-separated path with no empty, `.` or `..` part and no backslash.
bool safe_relative(const std::string& p) {
  if (p.empty() || p.front() == '/' || p.find('\\') != std::string::npos || p.find('\0') != std::string::npos)
    return false;
  std::size_t start = 0;
  while (true) {
    const auto end = p.find('/', start);
    const std::string part = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}

/// Percent-encodes everything but unreserved characters; `keep_slash` leaves '/' as is.
std::string encode(const std::string& s, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

/// The blob `sha256` exists with `size` bytes and that digest.
bool blob_ok(const fs::path& blob, const std::string& sha256, std::uintmax_t size) {
  std::error_code ec;
  if (!fs::is_regular_file(blob, ec) || fs::file_size(blob, ec) != size || ec) return false;
  const auto digest = report::sha256_file(blob);
  return digest && *digest == sha256;
}

fetch_outcome outcome(std::string status, std::string reason) {
  fetch_outcome o;
  o.status = std::move(status);
  o.reason = std::move(reason);
  return o;
}

/// The outcome of an HTTP answer that is not 200, naming `what`.
fetch_outcome refused(const http::get_result& a, const std::string& what, const std::string& where, bool token) {
  if (!a.answered()) return outcome("failed", what + ": GET " + a.final_url + ": " + a.error);
  if (a.status == 401 || a.status == 403)
    return outcome("gated", what + " is gated or private (HTTP " + std::to_string(a.status) + " from " + where +
                                (token ? "): the token in HF_TOKEN has no access to it; accept its terms on the Hub "
                                         "with that account or use a token that has access"
                                       : "): set HF_TOKEN to a token whose account has access to it"));
  if (a.status == 404)
    return outcome("missing", what + " does not exist (HTTP 404 from " + where +
                                  "); check the id and revision the repository names, or the mirror (HF_ENDPOINT)");
  return outcome("failed", what + ": " + http::status_text(a.status) + " from " + where + "; retry later");
}

/// Downloads `url` into `dir`/.incoming, then renames it to `dir`/<sha256> (blobs) or to `final_path`.
struct stored {
  std::string sha256;
  std::uintmax_t size = 0;
  fs::path path;
};
tl::expected<stored, fetch_outcome> download(const http::get_request& request, const fs::path& incoming,
                                             const std::string& what, const std::string& where) {
  std::error_code ec;
  fs::create_directories(incoming.parent_path(), ec);
  const auto answer = http::get_file(request, incoming);
  if (!answer.answered() || answer.status != 200) {
    fs::remove(incoming, ec);
    return tl::unexpected(refused(answer, what, where, !request.origin_headers.empty()));
  }
  auto digest = report::sha256_file(incoming);
  if (!digest) return tl::unexpected(outcome("failed", what + ": " + digest.error().message));
  stored s;
  s.sha256 = *digest;
  s.size = fs::file_size(incoming, ec);
  s.path = incoming;
  return s;
}

/// Moves `from` to `to` (replacing it); false on failure.
bool place(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  fs::rename(from, to, ec);
  return !ec;
}

std::string hub_dir_name(const std::string& kind, const std::string& id) {
  std::string name = (kind == "hf_dataset" ? "datasets--" : "models--") + id;
  for (std::size_t pos = name.find('/'); pos != std::string::npos; pos = name.find('/', pos + 2))
    name.replace(pos, 1, "--");
  return name;
}

/// Every file of a previous manifest entry is still there, unchanged.
bool still_cached(const json& known, const fs::path& root, const std::function<fs::path(const json&)>& blob_of) {
  if (!known.is_object() || !known.contains("files") || !known["files"].is_array() || known["files"].empty())
    return false;
  for (const auto& f : known["files"]) {
    if (!f.is_object() || !f.contains("sha256") || !f.contains("size")) return false;
    if (!blob_ok(blob_of(f), f.value("sha256", ""), f.value("size", std::uintmax_t{0}))) return false;
  }
  return fs::exists(root);
}

fetch_outcome fetch_hub(const json& asset, const fs::path& cache, const hub_source& hub, const json& known,
                        const progress_fn& progress) {
  const std::string kind = asset.value("kind", "");
  const std::string id = asset.value("id", "");
  const std::string revision = asset.value("revision", "main");
  const std::string what =
      (kind == "hf_dataset" ? "Hugging Face dataset " : "Hugging Face model ") + id + "@" + revision;
  static const std::regex id_re(R"([A-Za-z0-9_.\-]+(/[A-Za-z0-9_.\-]+)?)");
  if (!std::regex_match(id, id_re) || id.find("..") != std::string::npos || !safe_relative(revision))
    return outcome("failed", what + ": not a Hub id and revision this fetcher accepts");
  const fs::path root = cache / "hf" / "hub" / hub_dir_name(kind, id);
  const auto blob_of = [&root](const json& f) { return root / "blobs" / f.value("sha256", ""); };
  if (still_cached(known, root, blob_of) && fs::exists(root / "snapshots" / known.value("commit", "x"))) {
    fetch_outcome o = outcome("cached", "");
    o.record = known;
    return o;
  }
  const std::string api = hub.endpoint + "/api/" + (kind == "hf_dataset" ? "datasets/" : "models/") + id +
                          "/revision/" + encode(revision, false);
  http::get_request api_get = hub_get(api, hub.token, std::chrono::seconds(120));
  api_get.max_bytes = max_api_bytes;
  const auto answer = http::get_string(api_get);
  if (!answer.answered() || answer.status != 200)
    return refused(answer, what, http::redact_url(hub.endpoint), !hub.token.empty());
  json info = json::parse(answer.body, nullptr, false);
  static const std::regex commit_re("[0-9a-f]{40}");
  if (!info.is_object() || !info.contains("sha") || !info["sha"].is_string() ||
      !std::regex_match(info["sha"].get<std::string>(), commit_re) || !info.contains("siblings") ||
      !info["siblings"].is_array())
    return outcome("failed", what + ": " + http::redact_url(hub.endpoint) +
                                 " answered the revision API without a 40-hex `sha` and a `siblings` list; is it a "
                                 "Hugging Face Hub or a mirror of one?");
  const std::string commit = info["sha"];
  fetch_outcome o = outcome("fetched", "");
  o.record = json{{"kind", kind}, {"id", id}, {"revision", revision}, {"commit", commit}, {"files", json::array()}};
  std::map<std::string, json> before;
  if (known.is_object() && known.value("commit", "") == commit)
    for (const auto& f : known.value("files", json::array()))
      if (f.is_object()) before[f.value("path", "")] = f;
  const fs::path snapshot = root / "snapshots" / commit;
  std::error_code ec;
  int n = 0;
  for (const auto& sibling : info["siblings"]) {
    const std::string path = sibling.is_object() ? sibling.value("rfilename", "") : "";
    if (!safe_relative(path))
      return outcome("failed", what + ": the server lists a file named '" + path +
                                   "', which is not a plain relative path; refusing it");
    json entry;
    if (auto b = before.find(path); b != before.end() && blob_ok(blob_of(b->second), b->second.value("sha256", ""),
                                                                 b->second.value("size", std::uintmax_t{0}))) {
      entry = b->second;
    } else {
      progress("fetching " + what + ": " + path);
      const std::string url = hub.endpoint + "/" + (kind == "hf_dataset" ? "datasets/" : "") + id + "/resolve/" +
                              commit + "/" + encode(path, true);
      auto got = download(hub_get(url, hub.token, std::chrono::seconds(3600)),
                          root / "blobs" / (".incoming-" + std::to_string(n++)), what + " file " + path,
                          http::redact_url(hub.endpoint));
      if (!got) return got.error();
      if (!place(got->path, root / "blobs" / got->sha256))
        return outcome("failed", what + ": cannot store " + path + " under " + (root / "blobs").string());
      entry = json{{"path", path}, {"sha256", got->sha256}, {"size", got->size}};
      ++o.downloaded;
      o.bytes += got->size;
    }
    const fs::path link = snapshot / path;
    fs::create_directories(link.parent_path(), ec);
    fs::remove(link, ec);
    fs::create_symlink(fs::relative(blob_of(entry), link.parent_path()), link, ec);
    if (ec) return outcome("failed", what + ": cannot link " + link.string() + ": " + ec.message());
    o.record["files"].push_back(entry);
  }
  if (revision != commit) {
    const fs::path ref = root / "refs" / revision;
    fs::create_directories(ref.parent_path(), ec);
    std::ofstream(ref, std::ios::binary | std::ios::trunc) << commit;
  }
  return o;
}

fetch_outcome fetch_url(const json& asset, const fs::path& cache, const json& known, const progress_fn& progress) {
  const std::string url = asset.value("id", "");
  const std::string what = "download " + http::redact_url(url);
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    return outcome("failed", what + ": only http:// and https:// URLs are fetched");
  const std::string key = report::sha256_hex(url);
  const fs::path dir = cache / "url" / key;
  std::string name = url.substr(url.find("://") + 3);
  name = name.substr(0, name.find_first_of("?#"));
  name = name.substr(name.rfind('/') + 1);
  for (auto& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  if (name.empty() || name == "." || name == "..") name = "download";
  const auto file_of = [&cache](const json& f) { return cache / f.value("path", ""); };
  if (still_cached(known, dir, file_of)) {
    fetch_outcome o = outcome("cached", "");
    o.record = known;
    return o;
  }
  progress("fetching " + what);
  auto got = download(asset_get(url, "", std::chrono::seconds(3600)), dir / ".incoming", what, http::redact_url(url));
  if (!got) return got.error();
  if (!place(got->path, dir / name)) return outcome("failed", what + ": cannot store it under " + dir.string());
  fetch_outcome o = outcome("fetched", "");
  o.downloaded = 1;
  o.bytes = got->size;
  o.record =
      json{{"kind", "url"},
           {"id", url},
           {"files",
            json::array({json{{"path", "url/" + key + "/" + name}, {"sha256", got->sha256}, {"size", got->size}}})}};
  return o;
}

}  // namespace

fetch_outcome fetch_asset(const json& asset, const fs::path& cache, const hub_source& hub, const json& known,
                          const progress_fn& progress) {
  const std::string kind = asset.value("kind", "");
  if (kind == "hf_model" || kind == "hf_dataset") return fetch_hub(asset, cache, hub, known, progress);
  if (kind == "url") return fetch_url(asset, cache, known, progress);
  return outcome("failed", "no fetcher for assets of kind '" + kind + "'");
}

}  // namespace r2r::run::assets
