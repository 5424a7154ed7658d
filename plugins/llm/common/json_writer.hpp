// SPDX-License-Identifier: MIT
// Writes JSON text straight into a string, for request bodies: prompts are large (100 KB and more)
// and building a JSON document only to serialise it copies every string twice. Strings are
// escaped in runs (bytes that need no escape are appended in bulk) and checked to be UTF-8.
// The caller writes a well-formed sequence (key before value inside objects, commas are added
// here). Small nested values (tool schemas, arguments) go through nlohmann with value().
// THREADING: one writer per thread.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::llm {

class json_writer {
 public:
  explicit json_writer(std::size_t reserve = 0) { out_.reserve(reserve); }

  json_writer& begin_object();
  json_writer& end_object();
  json_writer& begin_array();
  json_writer& end_array();
  /// An object key; the next call writes its value.
  json_writer& key(std::string_view k);
  /// A string value. Throws llm_error invalid_request when `s` is not valid UTF-8.
  json_writer& string(std::string_view s);
  json_writer& number(std::int64_t n);
  json_writer& number(double d);
  json_writer& boolean(bool b);
  json_writer& null();
  /// Any JSON value, serialised by nlohmann (for small nested documents).
  json_writer& value(const nlohmann::json& j);

  /// The text written so far; the writer is left empty.
  std::string take() { return std::move(out_); }

 private:
  void separate();  // a comma before every element but the first, nothing after a key

  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

/// Appends `s` to `out` as a JSON string literal (quotes included). Throws llm_error
/// invalid_request when `s` is not valid UTF-8.
void append_json_string(std::string& out, std::string_view s);

}  // namespace r2r::plugins::llm
