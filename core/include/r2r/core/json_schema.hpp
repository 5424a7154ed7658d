// SPDX-License-Identifier: MIT
// A compiled JSON Schema (draft 7) and validation that reports every violation with its JSON
// pointer, what the schema expected there and what was found. valijson stays inside json_schema.cpp.
// THREADING: a compiled json_schema is immutable and may be shared across threads.
#pragma once

#include <r2r/core/error.hpp>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::core {

struct schema_violation {
  std::string pointer;   // RFC 6901 pointer into the validated document, "" for the root
  std::string message;   // what the constraint says
  std::string expected;  // the schema fragment that applies at `pointer`, compact
  std::string found;     // the value found at `pointer`, abbreviated
};

class json_schema {
 public:
  /// Compiles `document`; fails (phase::schema) when it is not a usable JSON Schema.
  static result<json_schema> compile(const nlohmann::json& document, std::string_view name);
  static result<json_schema> compile_text(std::string_view text, std::string_view name);

  /// Every violation of `instance`, deepest first per branch; empty when it validates.
  std::vector<schema_violation> validate(const nlohmann::json& instance) const;

  const nlohmann::json& document() const noexcept;

 private:
  struct impl;
  explicit json_schema(std::shared_ptr<const impl> impl);
  std::shared_ptr<const impl> impl_;
};

/// "pointer: message; expected …; found …" on one line.
std::string format_violation(const schema_violation& v, std::string_view pointer_prefix = {});

/// Abbreviated JSON text of a value for messages ("string \"abc\"", "object {…}").
std::string describe_value(const nlohmann::json& value, std::size_t max_chars = 80);

}  // namespace r2r::core
