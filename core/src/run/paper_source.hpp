// SPDX-License-Identifier: MIT
// `--paper FILE|URL` for the plan: the paper read from a local file, or downloaded (paper/fetch.hpp)
// and kept beside the plan as paper/NAME with paper/source.json (URL, final URL, sha256, size), so
// that a resumed run reads the same bytes. Shared by `plan` and the plan stage of `run`.
// THREADING: one thread; reads and writes nothing but the files named here.
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/paper/document.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace r2r::run {

/// Where a download is kept, relative to the plan's directory.
inline constexpr const char* kept_paper_dir = "paper";
inline constexpr const char* kept_paper_record = "source.json";

struct kept_paper {
  std::string name;       // file name under paper/
  std::string bytes;      // the downloaded body
  nlohmann::json record;  // paper/source.json: url, final_url, sha256, size, file (URLs redacted)
};

struct paper_input {
  paper::document doc;
  nlohmann::json provenance;       // merged into plan.paper: sha256, size, and for a URL url and final_url
  std::optional<kept_paper> kept;  // set for a URL
  std::string note;                // how it was obtained ("downloaded ...", "the copy kept in ...")
};

/// Reads `arg` (a path, or an http(s) URL, see paper::looks_like_url). For a URL, `earlier` is a
/// directory that may hold an earlier download of it (RUN_DIR on a resumed run): when its
/// paper/source.json names the same URL, its kept copy is used if the copy's sha256 still matches;
/// otherwise the URL is downloaded and must give the recorded sha256, else the error says the paper
/// changed. Errors are phase::io (phase::usage for a URL scheme that is not http(s)), credentials
/// redacted.
core::result<paper_input> resolve_paper(const std::string& arg, const std::filesystem::path& earlier);

/// Writes paper/NAME and paper/source.json into `dir`.
core::result<void> write_kept_paper(const std::filesystem::path& dir, const kept_paper& kept);

}  // namespace r2r::run
