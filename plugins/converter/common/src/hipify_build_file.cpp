// SPDX-License-Identifier: MIT
// convert_build_file: CMake and Make files. Words are split on blanks, quotes, parentheses and
// ';'; '#' starts a comment (CMake's #[[ ]] bracket comments included). Only link names and
// imported targets are rewritten; everything CUDA-specific in the build itself is reported.
#include <r2r/convert/hipify.hpp>
#include <r2r/convert/mapping.hpp>
#include <r2r/convert/text_check.hpp>

#include <array>

namespace r2r::plugins::converter {
namespace {

using sdk::converter::diagnostic;

struct build_rule {
  std::string_view command;  // the CMake command the word must be an argument of; empty: anywhere
  std::string_view word;     // exact word, or a prefix when it ends with '*'
  std::string_view message;
  std::string_view hint;
};

constexpr std::array<build_rule, 15> build_rules{{
    {"project", "CUDA", "the project enables the CUDA language",
     "use project(... LANGUAGES CXX HIP) and mark the .cu files with "
     "set_source_files_properties(... PROPERTIES LANGUAGE HIP)"},
    {"enable_language", "CUDA", "the build enables the CUDA language",
     "use enable_language(HIP) and mark the .cu files with set_source_files_properties(... PROPERTIES LANGUAGE HIP)"},
    {"find_package", "CUDA", "the build looks for the CUDA toolkit (FindCUDA)",
     "use find_package(hip REQUIRED) and the ROCm libraries' packages"},
    {"find_package", "CUDAToolkit", "the build looks for the CUDA toolkit",
     "use find_package(hip REQUIRED) and the ROCm libraries' packages"},
    {"", "CUDA_ARCHITECTURES", "the build selects NVIDIA architectures",
     "use HIP_ARCHITECTURES with gfx targets, e.g. gfx90a;gfx942"},
    {"", "CMAKE_CUDA_ARCHITECTURES", "the build selects NVIDIA architectures",
     "use CMAKE_HIP_ARCHITECTURES with gfx targets, e.g. gfx90a;gfx942"},
    {"", "CMAKE_CUDA_*", "the build sets CUDA compiler variables", "set the CMAKE_HIP_* counterpart"},
    {"", "cuda_add_executable", "FindCUDA's cuda_add_executable", "use add_executable with HIP sources"},
    {"", "cuda_add_library", "FindCUDA's cuda_add_library", "use add_library with HIP sources"},
    {"", "nvcc", "the build calls nvcc", "call hipcc (or amdclang++ -x hip) with --offload-arch=gfx..."},
    {"", "-gencode*", "an nvcc code-generation flag", "replace with --offload-arch=gfx... for each target"},
    {"", "-arch=sm_*", "an nvcc architecture flag", "replace with --offload-arch=gfx..."},
    {"", "--expt-relaxed-constexpr", "an nvcc-only flag",
     "drop it: clang allows constexpr calls across host and device"},
    {"", "--expt-extended-lambda", "an nvcc-only flag", "drop it: clang supports __device__ lambdas"},
    {"", "-Xcompiler*", "an nvcc host-compiler passthrough flag", "pass the host flags to hipcc directly"},
}};

bool matches(std::string_view word, std::string_view rule) {
  if (!rule.empty() && rule.back() == '*') return word.substr(0, rule.size() - 1) == rule.substr(0, rule.size() - 1);
  return word == rule;
}

}  // namespace

conversion convert_build_file(std::string_view path, std::string_view text) {
  conversion out;
  out.text.reserve(text.size() + 64);
  std::size_t copied = 0;
  std::int64_t rewritten = 0;
  std::int64_t reported = 0;
  std::int64_t line = 1;
  std::size_t line_start = 0;
  std::string previous_word;
  std::string command;  // the CMake command whose arguments are being read; empty outside one
  const auto report = [&](std::size_t at, const char* severity, std::string_view name, std::string message,
                          std::string hint) {
    diagnostic d;
    d.file = std::string(path);
    d.line = line;
    d.column = static_cast<std::int64_t>(at - line_start + 1);
    d.severity = severity;
    d.category = "build_system";
    d.name = std::string(name);
    d.message = std::move(message);
    d.hint = std::move(hint);
    out.diagnostics.push_back(std::move(d));
    ++reported;
  };
  const auto is_separator = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '"' || c == '(' || c == ')' || c == ';' ||
           c == '\'' || c == ',';
  };
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = ++i;
      continue;
    }
    if (c == '#') {
      std::size_t end;
      if (text.substr(i, 3) == "#[[") {
        const std::size_t close = text.find("]]", i + 3);
        end = close == std::string_view::npos ? n : close + 2;
      } else {
        end = text.find('\n', i);
        if (end == std::string_view::npos) end = n;
      }
      for (std::size_t k = i; k < end; ++k) {
        if (text[k] == '\n') ++line, line_start = k + 1;
      }
      i = end;
      continue;
    }
    if (is_separator(c)) {
      if (c == '(') command = previous_word;
      if (c == ')') command.clear();
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < n && !is_separator(text[end]) && text[end] != '#') ++end;
    const std::string_view word = text.substr(i, end - i);
    std::string replacement;
    if (word.size() > 2 && word.substr(0, 2) == "-l") {
      if (const library_row* lib = find_library(word.substr(2))) {
        if (lib->manual) {
          report(i, "error", word, "links " + std::string(lib->cuda) + ", whose API needs a manual port",
                 "port the calls first, then link " + std::string(lib->hip));
        } else {
          replacement = "-l" + std::string(lib->hip);
        }
      }
    } else if (word.substr(0, 6) == "CUDA::") {
      if (const library_row* lib = find_cmake_target(word)) {
        if (lib->manual || lib->cmake_hip.empty()) {
          report(i, "error", word, "links " + std::string(word) + ", which has no mechanical ROCm counterpart",
                 "port the calls first, then link the ROCm library");
        } else {
          replacement = std::string(lib->cmake_hip);
        }
      } else {
        report(i, "warning", word, "links the CUDA toolkit target " + std::string(word) + ", which has no ROCm mapping",
               "find the ROCm library that provides the same API and link its target");
      }
    } else {
      for (const auto& rule : build_rules) {
        if (matches(word, rule.word) && (rule.command.empty() || rule.command == command)) {
          report(i, "warning", word, std::string(rule.message) + " (`" + std::string(word) + "`)",
                 std::string(rule.hint));
          break;
        }
      }
    }
    if (!replacement.empty()) {
      out.text.append(text.data() + copied, i - copied);
      out.text.append(replacement);
      copied = end;
      ++rewritten;
    }
    previous_word.assign(word);
    i = end;
  }
  out.text.append(text.data() + copied, n - copied);
  out.changed = out.text != text;
  out.stats["bytes_in"] = static_cast<std::int64_t>(text.size());
  out.stats["bytes_out"] = static_cast<std::int64_t>(out.text.size());
  out.stats["lines"] = line - (text.empty() || text.back() == '\n' ? 1 : 0);
  out.stats["libraries_rewritten"] = rewritten;
  out.stats["build_findings"] = reported;
  return out;
}

}  // namespace r2r::plugins::converter
