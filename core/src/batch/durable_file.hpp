// SPDX-License-Identifier: MIT
// Crash-safe files of a batch directory: whole files replaced atomically (temporary file, fsync,
// rename, fsync of the directory), and an append-only JSON-lines log written with O_APPEND and
// made durable by sync() (the engine syncs it before every batch.json it writes, so the log on disk
// is never behind the state). A reader never sees a torn batch.json; a torn last events line (a
// kill mid-write) is skipped by readers. THREADING: one writer per file.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace r2r::batch {

/// Replaces `path` with `text` atomically. Throws std::runtime_error naming the file on I/O errors.
void write_atomic(const std::filesystem::path& path, const std::string& text);

/// Appends one JSON object and a newline to `path` (O_APPEND), fsync'd.
class event_log {
 public:
  explicit event_log(std::filesystem::path path);
  ~event_log();
  event_log(const event_log&) = delete;
  event_log& operator=(const event_log&) = delete;
  /// Adds "t" (Unix seconds, ms resolution) when absent and appends the event (not yet durable).
  void append(nlohmann::json event);
  /// Makes every appended event durable (fdatasync).
  void sync();
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

/// Every complete JSON line of a JSONL file (a torn or non-JSON line is skipped).
std::vector<nlohmann::json> read_jsonl(const std::filesystem::path& path);

/// Unix time in seconds with millisecond resolution.
double now_seconds();

}  // namespace r2r::batch
