// SPDX-License-Identifier: MIT
// A batch manifest: the repositories to run. CSV with a header row (ResearchBench-style
// `repo,commit,...` works as is; `url`/`repository`/`repo_url` name the repository too) or JSONL
// (one object per line with the same keys). Known columns: repo, commit, paper, mode, arch, tags
// (';' or '|' separated); others are kept in `extra`, where `base_image` (an image reference)
// becomes the run's --base-image. Every entry gets a unique key (the
// repository's name, its commit's first 12 characters, a suffix when repeated) that names its run
// directory. THREADING: pure functions.
#pragma once

#include <r2r/core/error.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace r2r::batch {

struct manifest_entry {
  std::string key;   // unique, [A-Za-z0-9._-]+
  std::string repo;  // URL or local path
  std::string commit;
  std::string paper;
  std::string mode;  // "" : the batch's --mode
  std::string arch;
  std::vector<std::string> tags;
  nlohmann::json extra = nlohmann::json::object();
  int line = 0;  // 1-based line of the manifest
};

/// Parses manifest text; `format` is "csv" or "jsonl" (by the file's extension: .jsonl/.ndjson are
/// JSONL, everything else CSV). Errors name the line and what was expected.
core::result<std::vector<manifest_entry>> parse_manifest(const std::string& text, const std::string& format);

/// Reads and parses a manifest file.
core::result<std::vector<manifest_entry>> load_manifest(const std::filesystem::path& path);

/// One CSV record split into fields (RFC 4180 quoting); `pos` advances past the record.
std::vector<std::string> next_csv_record(const std::string& text, std::size_t& pos);

nlohmann::json to_json(const manifest_entry& e);

}  // namespace r2r::batch
