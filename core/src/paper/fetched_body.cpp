// SPDX-License-Identifier: MIT
// The pure half of `--paper URL` (fetch.hpp): which arguments are URLs, and the document in a
// downloaded body.
#include <r2r/paper/fetch.hpp>
#include <r2r/support/http/url.hpp>

#include "utf8.hpp"

#include <algorithm>
#include <cctype>

namespace r2r::paper {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// The path of `url` (after the authority, before `?` or `#`); "" when it has none.
std::string url_path(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  const auto path_start = url.find('/', scheme_end + 3);
  if (path_start == std::string_view::npos) return {};
  const auto query_or_fragment = url.find_first_of("?#", scheme_end + 3);
  if (query_or_fragment != std::string_view::npos && query_or_fragment < path_start) return {};
  return std::string(url.substr(path_start, query_or_fragment == std::string_view::npos
                                                ? std::string_view::npos
                                                : query_or_fragment - path_start));
}

std::string extension_of(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? std::string() : lower(name.substr(dot));
}

bool is_pdf(std::string_view bytes) {
  return bytes.substr(0, 5) == "%PDF-";
}

/// An HTML page: its first markup (after a BOM and white space) opens a document, not a paper.
bool is_html(std::string_view bytes) {
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") bytes.remove_prefix(3);
  const auto first = bytes.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  const std::string head = lower(bytes.substr(first, 64));
  for (const char* opener : {"<!doctype html", "<html", "<head", "<body", "<?xml version"}) {
    if (head.rfind(opener, 0) == 0) return true;
  }
  return false;
}

}  // namespace

bool looks_like_url(std::string_view arg) {
  const auto sep = arg.find("://");
  if (sep == std::string_view::npos || sep == 0) return false;
  return std::all_of(arg.begin(), arg.begin() + static_cast<std::ptrdiff_t>(sep), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  });
}

std::string refused_scheme(std::string_view url) {
  const std::string scheme = lower(url.substr(0, url.find("://")));
  if (scheme == "http" || scheme == "https") return {};
  return "paper '" + support::http::redact_url(url) +
         "': only http:// and https:// URLs are downloaded, found the scheme '" + scheme +
         "'; give an http(s) link or a local file";
}

load_result<document> load_fetched(std::string_view bytes, const std::string& final_url, const std::string& shown) {
  const std::string name = kept_name(final_url, bytes);
  if (bytes.empty())
    return tl::unexpected(load_error{"paper " + shown +
                                     ": the server sent an empty body; check that the link points at the paper "
                                     "itself (a PDF or a .txt/.md/.tex source)"});
  if (is_pdf(bytes)) return load_pdf(bytes, name);
  if (is_html(bytes))
    return tl::unexpected(load_error{"paper " + shown +
                                     ": the server sent an HTML page, not a paper (expected bytes starting with "
                                     "%PDF- or a text source); give the PDF's direct link (e.g. arxiv.org/pdf/..., "
                                     "not the abstract page)"});
  if (bytes.find('\0') != std::string_view::npos || detail::valid_utf8(bytes) != bytes)
    return tl::unexpected(load_error{"paper " + shown +
                                     ": the body is neither a PDF (no %PDF- header) nor UTF-8 text; give the link "
                                     "of the PDF or of a .txt/.md/.tex source"});
  const std::string ext = extension_of(name);
  if (ext == ".md" || ext == ".markdown") return load_text_source(bytes, "markdown", name);
  if (ext == ".tex") return load_text_source(bytes, "latex", name);
  return load_text_source(bytes, "text", name);
}

std::string kept_name(const std::string& final_url, std::string_view bytes) {
  std::string path = url_path(final_url);
  std::string leaf = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  std::string name;
  for (char c : leaf) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') name += c;
    if (name.size() >= 96) break;
  }
  while (!name.empty() && name.front() == '.') name.erase(0, 1);  // never hidden, never "." or ".."
  if (name.empty()) name = "paper";
  const std::string ext = extension_of(name);
  if (is_pdf(bytes)) {
    if (ext != ".pdf") name += ".pdf";
  } else if (ext != ".txt" && ext != ".md" && ext != ".markdown" && ext != ".tex") {
    name += ".txt";
  }
  return name;
}

}  // namespace r2r::paper
