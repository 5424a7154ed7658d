// SPDX-License-Identifier: MIT
// What a guard knows of the workspace's files: the content returned by read_file actions (seen
// in observe) and the content of allowed write_file actions. Guards compare a proposed write
// with it, so "epochs: 90" -> "epochs: 1" is visible even through write_file. Paths are
// normalised ("./a//b" -> "a/b"); a file the guard never saw is unknown, never assumed empty.
// Files the agent authored (write_file, apply_patch) are kept apart as agent_script().
// THREADING: not synchronised; the host serialises calls to one guard instance.
#pragma once

#include <r2r/sdk/kinds/guard.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace r2r::plugins::guard {

class known_files {
 public:
  explicit known_files(std::size_t max_bytes = 1 << 20) : max_bytes_(max_bytes) {}

  /// Remembers what `request` shows of a file: read_file output (exit code 0), write_file content.
  void observe(const sdk::guard::observe_request& request);
  /// Remembers `content` as the current text of `path` (kept up to max_bytes; longer is forgotten).
  void remember(const std::string& path, const std::string& content);
  void forget(const std::string& path);
  /// The last known content of `path`, or nullopt.
  std::optional<std::string> content(const std::string& path) const;
  /// The text of `path` as the agent authored it: the content of an allowed write_file, or a file
  /// an allowed apply_patch changed (its known content with the removed lines taken out and the
  /// added lines appended; line order is not kept). nullopt for files the agent never wrote, such
  /// as the repository's own scripts. Guards judge a script the agent runs on this text.
  std::optional<std::string> agent_script(const std::string& path) const;

  static std::string normalise(const std::string& path);

 private:
  void observe_patch(const std::string& patch);

  std::size_t max_bytes_;
  std::map<std::string, std::string> files_;
  std::map<std::string, std::string> agent_;  // agent_script()
};

}  // namespace r2r::plugins::guard
