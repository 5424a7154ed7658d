// SPDX-License-Identifier: MIT
// The state of one image pull, from the Engine API's progress messages (POST /images/create
// streams one JSON object per line: {"id": layer, "status", "progressDetail": {current, total}},
// {"status": "Digest: sha256:…"}, {"error": …}). Two views: events (a line when a layer changes
// status, never per byte) for logs, and one line per layer for a terminal display. Pure; not
// thread-safe (one pull, one thread).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace r2r::plugins::sandbox::docker {

class pull_progress {
 public:
  /// Takes one message; returns the event lines it produces (possibly none).
  std::vector<std::string> feed(const nlohmann::json& message);
  /// One line per layer, in first-seen order: "<id>: <status> <current>/<total> MB".
  std::vector<std::string> layer_lines() const;
  /// The engine's error message, when it sent one.
  const std::string& error() const noexcept { return error_; }
  /// "sha256:…" from the engine's "Digest:" status, when it sent one.
  const std::string& digest() const noexcept { return digest_; }

 private:
  struct layer {
    std::string id;
    std::string status;
    std::int64_t current = 0;
    std::int64_t total = 0;
  };
  std::vector<layer> layers_;
  std::string error_;
  std::string digest_;
};

}  // namespace r2r::plugins::sandbox::docker
