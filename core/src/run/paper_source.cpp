// SPDX-License-Identifier: MIT
#include "paper_source.hpp"

#include "plan_output.hpp"
#include "run_prepare.hpp"

#include <r2r/paper/fetch.hpp>
#include <r2r/report/sha256.hpp>
#include <r2r/support/http/url.hpp>

#include <fstream>
#include <sstream>

namespace r2r::run {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::optional<std::string> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

/// The earlier download of `url` kept in `dir`, when its record names the same URL.
std::optional<json> earlier_record(const fs::path& dir, const std::string& shown_url) {
  if (dir.empty()) return std::nullopt;
  std::error_code ec;
  const fs::path record = dir / kept_paper_dir / kept_paper_record;
  if (!fs::is_regular_file(record, ec)) return std::nullopt;
  auto j = read_json(record);
  if (!j || !j->is_object() || j->value("url", "") != shown_url) return std::nullopt;
  return *j;
}

bool http_scheme(const std::string& url) {
  std::string s = url.substr(0, url.find("://"));
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s == "http" || s == "https";
}

core::result<paper_input> from_url(const std::string& url, const fs::path& earlier) {
  const std::string shown = support::http::redact_url(url);
  const auto before = earlier_record(earlier, shown);
  paper_input in;
  kept_paper kept;
  if (before) {
    // A resumed run reads the bytes it planned with, not whatever the server sends today.
    const std::string name = before->value("file", "");
    const fs::path copy = earlier / kept_paper_dir / name;
    auto bytes = name.empty() || name.find('/') != std::string::npos ? std::nullopt : read_bytes(copy);
    if (bytes && report::sha256_hex(*bytes) == before->value("sha256", "")) {
      kept = {name, std::move(*bytes), *before};
      in.note = "the copy of " + shown + " kept in " + copy.string();
    }
  }
  if (kept.name.empty()) {
    auto got = paper::fetch_paper(url);
    if (!got) return core::fail(http_scheme(url) ? core::phase::io : core::phase::usage, got.error().message);
    const std::string sha = report::sha256_hex(got->bytes);
    if (before && before->value("sha256", "") != sha)
      return core::fail(core::phase::io, "paper '" + shown + "' changed since this run planned with it: sha256 " +
                                             before->value("sha256", "") + " was recorded in " +
                                             (earlier / kept_paper_dir / kept_paper_record).string() +
                                             ", the server now sends " + sha + " (" +
                                             std::to_string(got->bytes.size()) +
                                             " bytes); restore the kept copy or start a new --run-dir");
    kept.name = paper::kept_name(got->final_url, got->bytes);
    kept.record = {{"url", got->url},
                   {"final_url", got->final_url},
                   {"redirects", got->redirects},
                   {"content_type", got->content_type},
                   {"sha256", sha},
                   {"size", got->bytes.size()},
                   {"file", kept.name}};
    kept.bytes = std::move(got->bytes);
    in.note = "downloaded " + shown + (got->final_url != shown ? " (from " + got->final_url + ")" : std::string());
  }
  auto doc = paper::load_fetched(kept.bytes, kept.record.value("final_url", shown), "'" + shown + "'");
  if (!doc) return core::fail(core::phase::io, doc.error().message);
  in.doc = std::move(*doc);
  in.provenance = {{"url", kept.record.at("url")},
                   {"final_url", kept.record.at("final_url")},
                   {"sha256", kept.record.at("sha256")},
                   {"size", kept.record.at("size")},
                   {"kept", std::string(kept_paper_dir) + "/" + kept.name}};
  in.kept = std::move(kept);
  return in;
}

}  // namespace

core::result<paper_input> resolve_paper(const std::string& arg, const fs::path& earlier) {
  if (paper::looks_like_url(arg)) return from_url(arg, earlier);
  auto doc = paper::load_paper(arg);
  if (!doc) return core::fail(core::phase::io, doc.error().message, {}, arg);
  paper_input in;
  in.doc = std::move(*doc);
  if (auto sha = report::sha256_file(arg)) {
    std::error_code ec;
    in.provenance = {{"sha256", *sha}, {"size", fs::file_size(arg, ec)}};
  }
  return in;
}

core::result<void> write_kept_paper(const fs::path& dir, const kept_paper& kept) {
  std::error_code ec;
  fs::create_directories(dir / kept_paper_dir, ec);
  if (ec) return core::fail(core::phase::io, "cannot create " + (dir / kept_paper_dir).string() + ": " + ec.message());
  if (auto w = write_text(dir / kept_paper_dir / kept.name, kept.bytes); !w) return w;
  return write_text(dir / kept_paper_dir / kept_paper_record, kept.record.dump(2) + "\n");
}

}  // namespace r2r::run
