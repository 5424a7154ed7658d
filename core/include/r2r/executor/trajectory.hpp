// SPDX-License-Identifier: MIT
// RUN_DIR/trajectory.jsonl: one JSON object per line, one line per turn, each written with a
// single write() and fsync'd before the next turn starts. The reader tolerates a torn last line
// (a write cut by a crash) and reports it; a malformed line anywhere else is an error.
// OWNERSHIP: a writer owns its file descriptor. THREADING: one writer per file, one thread.
#pragma once

#include <r2r/core/error.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace r2r::executor {

/// An append-only file whose every append is durable when append() returns.
class append_file {
 public:
  static core::result<append_file> open(const std::filesystem::path& file);
  append_file(append_file&& other) noexcept;
  append_file& operator=(append_file&& other) noexcept;
  append_file(const append_file&) = delete;
  append_file& operator=(const append_file&) = delete;
  ~append_file();

  /// Appends `text` (one write, retried on short writes), then fsyncs when `durable`.
  core::result<void> append(std::string_view text, bool durable = true);
  /// Appends `line` as one line of compact JSON, durable.
  core::result<void> append_json(const nlohmann::json& line);

 private:
  explicit append_file(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::filesystem::path path_;
};

struct trajectory_contents {
  std::vector<nlohmann::json> lines;
  std::uintmax_t valid_bytes = 0;  // length of the file up to the end of the last complete line
  std::uintmax_t torn_bytes = 0;   // bytes after it (a partial last line), 0 when none
};

/// Reads a trajectory; a missing file reads as empty.
core::result<trajectory_contents> read_trajectory(const std::filesystem::path& file);

/// Cuts `file` to `size` bytes and fsyncs it.
core::result<void> truncate_file(const std::filesystem::path& file, std::uintmax_t size);

/// Writes `text` to `file` atomically: a temporary file in the same directory, fsync, rename, fsync
/// of the directory.
core::result<void> write_file_atomic(const std::filesystem::path& file, std::string_view text);

/// "2026-11-29T23:41:07.123Z".
std::string utc_timestamp();

}  // namespace r2r::executor
