// SPDX-License-Identifier: MIT
// The file side of a convert request, shared by the converter plugins: checking request paths,
// reading inputs (inline text or root/path, with the size limit), reading diff bases and writing
// outputs. Every problem with one file becomes that file's result, never an exception that stops
// the request; only a malformed request (an absolute or escaping path, a relative root) throws
// sdk::invalid_argument.
#pragma once

#include <r2r/convert/text_check.hpp>
#include <r2r/sdk/kinds/converter.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace r2r::plugins::converter {

/// Throws sdk::invalid_argument unless `path` is relative, non-empty and has no ".." component.
void check_relative_path(std::string_view path);

/// Throws sdk::invalid_argument unless `dir` is empty or absolute; `what` names the field.
void check_root(std::string_view dir, std::string_view what);

/// One input after loading: its text, or why it cannot be converted.
struct loaded_input {
  std::string path;
  std::string text;
  std::optional<text_problem> problem;  // set: bad input (too large, binary, invalid UTF-8, unreadable)
};

/// Loads f.text, or root/f.path when f has no text (root must then be set). Reads at most
/// max_bytes + 1 bytes from disk.
loaded_input load_input(const sdk::converter::input_file& f, const std::string& root, std::size_t max_bytes);

/// Text of base_root/path for diffs; nullopt when base_root is empty or the file is unreadable.
std::optional<std::string> read_base(const std::string& base_root, std::string_view path, std::size_t max_bytes);

/// Writes text to out_root/path (directories created; written to a temporary file, then renamed).
/// Throws sdk::failed with the path and the reason when it cannot.
void write_output(const std::string& out_root, std::string_view path, std::string_view text);

/// A file_result with status "error" and one bad_input diagnostic for `problem`.
sdk::converter::file_result bad_input_result(const std::string& path, const text_problem& problem);

}  // namespace r2r::plugins::converter
