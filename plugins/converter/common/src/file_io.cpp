// SPDX-License-Identifier: MIT
#include <r2r/convert/file_io.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

namespace r2r::plugins::converter {
namespace fs = std::filesystem;

void check_relative_path(std::string_view path) {
  if (path.empty()) throw sdk::invalid_argument("files[].path is empty; give a path relative to the project root");
  if (path.front() == '/') {
    throw sdk::invalid_argument("files[].path must be relative to the project root, found the absolute path '" +
                                std::string(path) + "'");
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (path.substr(start, slash - start) == "..") {
      throw sdk::invalid_argument("files[].path must stay inside the project root, found '..' in '" +
                                  std::string(path) + "'");
    }
    start = slash + 1;
  }
}

void check_root(std::string_view dir, std::string_view what) {
  if (!dir.empty() && dir.front() != '/') {
    throw sdk::invalid_argument(std::string(what) + " must be an absolute directory, found '" + std::string(dir) + "'");
  }
}

namespace {

/// Reads at most limit + 1 bytes; nullopt with `error` set when the file cannot be read.
std::optional<std::string> read_limited(const fs::path& file, std::size_t limit, std::string& error) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    error = ec ? ec.message() : std::string("not a regular file");
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  std::string data;
  const auto size = fs::file_size(file, ec);
  const std::size_t want = ec ? limit + 1 : std::min<std::size_t>(static_cast<std::size_t>(size), limit + 1);
  data.resize(want);
  in.read(data.data(), static_cast<std::streamsize>(want));
  data.resize(static_cast<std::size_t>(in.gcount()));
  if (data.size() <= limit && !in.eof()) {
    // The file grew while we read it, or file_size failed: read the rest up to the limit.
    char buffer[65536];
    while (data.size() <= limit && in.read(buffer, sizeof buffer).gcount() > 0) data.append(buffer, in.gcount());
  }
  return data;
}

}  // namespace

loaded_input load_input(const sdk::converter::input_file& f, const std::string& root, std::size_t max_bytes) {
  check_relative_path(f.path);
  loaded_input out;
  out.path = f.path;
  if (f.text) {
    out.text = *f.text;
  } else {
    if (root.empty()) {
      throw sdk::invalid_argument("files[] entry '" + f.path +
                                  "' has no text and the request has no root to read it from");
    }
    std::string error;
    auto data = read_limited(fs::path(root) / f.path, max_bytes, error);
    if (!data) {
      out.problem = text_problem{"unreadable", 0, 0,
                                 "cannot read " + (fs::path(root) / f.path).string() + ": " + error +
                                     "; check that the file exists and is readable"};
      return out;
    }
    out.text = std::move(*data);
  }
  out.problem = check_text(out.text, max_bytes);
  if (out.problem) out.text.clear();
  return out;
}

std::optional<std::string> read_base(const std::string& base_root, std::string_view path, std::size_t max_bytes) {
  if (base_root.empty()) return std::nullopt;
  std::string error;
  auto data = read_limited(fs::path(base_root) / std::string(path), max_bytes, error);
  if (data && data->size() > max_bytes) return std::nullopt;
  return data;
}

void write_output(const std::string& out_root, std::string_view path, std::string_view text) {
  const fs::path target = fs::path(out_root) / std::string(path);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) throw sdk::failed("cannot create directory " + target.parent_path().string() + ": " + ec.message());
  const fs::path tmp = target.string() + ".r2r-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw sdk::failed("cannot write " + tmp.string() + ": " + std::strerror(errno));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw sdk::failed("cannot write " + tmp.string() + ": " + std::strerror(errno));
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw sdk::failed("cannot replace " + target.string() + ": " + ec.message());
  }
}

sdk::converter::file_result bad_input_result(const std::string& path, const text_problem& problem) {
  sdk::converter::file_result r;
  r.path = path;
  r.status = "error";
  sdk::converter::diagnostic d;
  d.file = path;
  d.line = problem.line;
  d.column = problem.column;
  d.severity = "error";
  d.category = "bad_input";
  d.name = problem.kind;
  d.message = problem.message;
  d.hint = problem.kind == "too_large"      ? "raise max_file_bytes or exclude the file"
           : problem.kind == "binary"       ? "exclude binary files from the conversion set"
           : problem.kind == "invalid_utf8" ? "re-encode the file as UTF-8"
                                            : "check the path and permissions";
  r.diagnostics.push_back(std::move(d));
  return r;
}

}  // namespace r2r::plugins::converter
