// SPDX-License-Identifier: MIT
// load_paper: format detection and the bounded read of the file (document.hpp).
#include <r2r/paper/document.hpp>

#include "utf8.hpp"

#include <fstream>
#include <sstream>

namespace r2r::paper {

std::string line::text() const {
  std::string out;
  for (const auto& c : cells) {
    if (c.text.empty()) continue;
    out += (out.empty() ? "" : " ") + c.text;
  }
  return out;
}

load_result<document> load_paper(const std::filesystem::path& path) {
  const std::string shown = path.string();
  if (shown.find("://") != std::string::npos)
    return tl::unexpected(load_error{"paper '" + shown +
                                     "': a URL, not a file; load_paper reads files: download the paper first "
                                     "(`--paper URL` does, with limits: paper/fetch.hpp)"});
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return tl::unexpected(load_error{"paper '" + shown + "': not a readable regular file (" +
                                     (ec ? ec.message() : std::string("missing or a directory")) +
                                     "); give the path of a PDF or a .txt/.md/.tex source"});
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > max_paper_bytes)
    return tl::unexpected(
        load_error{"paper '" + shown +
                   "': " + (ec ? ec.message() : std::to_string(size >> 20) + " MiB, more than the 64 MiB read")});
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (!in && !in.eof()) return tl::unexpected(load_error{"paper '" + shown + "': cannot read the file"});
  const std::string bytes = buf.str();
  const std::string name = detail::valid_utf8(path.filename().string());  // it goes into plan.json
  std::string ext = path.extension().string();
  for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (bytes.compare(0, 5, "%PDF-") == 0 || ext == ".pdf") return load_pdf(bytes, name);
  if (ext == ".md" || ext == ".markdown") return load_text_source(bytes, "markdown", name);
  if (ext == ".tex") return load_text_source(bytes, "latex", name);
  return load_text_source(bytes, "text", name);
}

}  // namespace r2r::paper
