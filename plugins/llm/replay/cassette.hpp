// SPDX-License-Identifier: MIT
// Cassettes: recorded llm exchanges, one JSON object per line (JSONL):
//   {"format":"r2r.llm.cassette/1","seq":1,"request":{...},"response":{...}}
//   {"format":"r2r.llm.cassette/1","seq":2,"request":{...},"error":{"status":"unavailable","message":"..."}}
// request and response are the normalised llm.complete messages. Reading normalises them again
// (typed round trip), so a hand-written cassette compares and replays exactly like a recorded one.
// A writer appends and flushes one line per exchange, so a killed run keeps what it recorded.
#pragma once

#include <r2r/plugin_api.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::llm {

inline constexpr const char* cassette_format = "r2r.llm.cassette/1";

struct recorded_error {
  r2r_status status = R2R_ERR_FAILED;
  std::string message;
};

struct exchange {
  nlohmann::json request;                  // normalised complete_request
  std::optional<nlohmann::json> response;  // normalised complete_response, or
  std::optional<recorded_error> error;     // the failure the backend reported
  std::string origin;                      // "FILE:LINE" or "config /exchanges/N", for messages
};

/// Reads a cassette file. Throws sdk::invalid_argument naming FILE:LINE and what is wrong.
std::vector<exchange> read_cassette(const std::filesystem::path& file);

/// Reads exchanges given inline as a JSON array (same objects as cassette lines; `format` and
/// `seq` optional). Throws sdk::invalid_argument naming the element.
std::vector<exchange> exchanges_from_json(const nlohmann::json& array, const std::string& origin);

/// The cassette line of an exchange.
nlohmann::json to_line(const exchange& e, std::size_t seq);

/// OWNERSHIP: owns the open file. THREADING: one writer per file, one thread at a time.
class cassette_writer {
 public:
  /// Creates (or, with overwrite, truncates) `file` with mode 0600 and its parent directories.
  /// Throws sdk::invalid_argument when it exists and overwrite is false, or cannot be created.
  cassette_writer(const std::filesystem::path& file, bool overwrite);

  /// Appends one line and flushes it. Throws sdk::failed when the write fails (disk full...).
  void append(const exchange& e);

  const std::filesystem::path& path() const noexcept { return path_; }
  std::size_t written() const noexcept { return seq_; }

 private:
  std::filesystem::path path_;
  std::ofstream out_;
  std::size_t seq_ = 0;
};

}  // namespace r2r::plugins::llm
