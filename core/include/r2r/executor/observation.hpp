// SPDX-License-Identifier: MIT
// What the executor does to a command's output before anything records it: compaction (head and
// tail kept, a marker saying how much was cut), redaction of secrets, and the error signature of a
// failure. Pure functions; THREADING: safe from any thread (a redactor is immutable once built).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::executor {

struct compaction_options {
  std::size_t max_bytes = 8192;  // per stream, marker included; at least 256
  double head_fraction = 0.25;   // share of max_bytes kept from the start; the rest from the end
};

/// `text` when it fits in max_bytes, else its head, a line
/// "[... N bytes cut by the executor ...]", and its tail, never more than max_bytes in total and
/// never splitting a UTF-8 sequence. `cut` is set when something was cut.
std::string compact(std::string_view text, const compaction_options& options, bool* cut = nullptr);

/// Replaces secrets with "[REDACTED]": the values of environment variables whose names look
/// secret (…_KEY, …_TOKEN, …_SECRET, …PASSWORD, …_PASS, …_CREDENTIALS), the value after such a
/// name in `NAME=value` / `NAME: value` text, and known token shapes (sk-…, ghp_/gho_/ghs_/ghu_/
/// ghr_/github_pat_…, AKIA/ASIA access key ids, xox?-… Slack tokens, `Bearer …`, PEM private keys).
class redactor {
 public:
  /// Secret values taken from `env` (name -> value) by name; values shorter than 6 bytes are
  /// ignored (they would redact ordinary words).
  explicit redactor(const std::map<std::string, std::string>& env = {});
  /// The secret values of the current process environment.
  static redactor from_process_environment();
  void add_secret(std::string value);
  std::string redact(std::string_view text) const;
  const std::vector<std::string>& secrets() const noexcept { return secrets_; }

 private:
  std::vector<std::string> secrets_;  // longest first
};

/// True for names such as OPENAI_API_KEY, GH_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD.
bool secret_name(std::string_view name);

/// A failure's signature: the last exception-looking line (`Class: message`, `error: …`,
/// `fatal error: …`) of stderr, else of stdout, else the last non-empty line, normalised — numbers,
/// hex, addresses, paths and quoted values replaced by placeholders, whitespace collapsed, at most
/// 200 bytes. Empty when both streams are empty.
std::string error_signature(std::string_view stdout_text, std::string_view stderr_text);

}  // namespace r2r::executor
