// SPDX-License-Identifier: MIT
#include <r2r/executor/observation.hpp>

#include <cctype>
#include <vector>

namespace r2r::executor {
namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(start, end - start);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
    if (!line.empty()) out.push_back(line);
    start = end + 1;
  }
  return out;
}

bool ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// "ModuleNotFoundError: ...", "torch.cuda.OutOfMemoryError: ...", "error: ...", "fatal error: ...".
bool exception_like(std::string_view line) {
  const auto colon = line.find(": ");
  if (colon == std::string_view::npos || colon == 0) return false;
  const auto head = line.substr(0, colon);
  for (char c : head) {
    if (!ident(c) && c != '.') {
      // "foo.cpp:12:3: error: ..." and "make: *** ..." still count through the keywords below.
      return line.find("error:") != std::string_view::npos || line.find("Error:") != std::string_view::npos;
    }
  }
  return head.find("Error") != std::string_view::npos || head.find("Exception") != std::string_view::npos ||
         head == "error" || head == "fatal" || head == "ERROR" || head.find("Interrupt") != std::string_view::npos ||
         head.find("Warning") != std::string_view::npos;
}

// Replaces variable parts with placeholders: quoted text -> <q>, paths -> <path>, hex and
// addresses -> <hex>, numbers -> <n>.
std::string normalise(std::string_view line) {
  std::string out;
  std::size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (c == '\'' || c == '"') {
      const auto end = line.find(c, i + 1);
      if (end != std::string_view::npos) {
        // Keep short quoted identifiers (module names) — they are the key of the message.
        const auto inner = line.substr(i + 1, end - i - 1);
        bool word = !inner.empty() && inner.size() <= 40;
        for (char k : inner) word = word && (ident(k) || k == '.' || k == '-');
        out += word ? std::string(1, c) + std::string(inner) + c : std::string("<q>");
        i = end + 1;
        continue;
      }
    }
    const bool at_word_start = i == 0 || !ident(line[i - 1]);
    if (c == '/' && (at_word_start || line[i - 1] == '.' || line[i - 1] == '~')) {
      std::size_t j = i;
      while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j])) && line[j] != ':' &&
             line[j] != '\'' && line[j] != '"' && line[j] != ',' && line[j] != ')') {
        ++j;
      }
      if (out.size() > 0 && (out.back() == '.' || out.back() == '~')) out.pop_back();
      out += "<path>";
      i = j;
      continue;
    }
    if (at_word_start && c == '0' && i + 1 < line.size() && (line[i + 1] == 'x' || line[i + 1] == 'X')) {
      std::size_t j = i + 2;
      while (j < line.size() && std::isxdigit(static_cast<unsigned char>(line[j]))) ++j;
      out += "<hex>";
      i = j;
      continue;
    }
    if (at_word_start && std::isxdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      bool has_digit = false;
      while (j < line.size() && std::isxdigit(static_cast<unsigned char>(line[j]))) {
        has_digit = has_digit || std::isdigit(static_cast<unsigned char>(line[j]));
        ++j;
      }
      if (has_digit && j - i >= 8 && (j == line.size() || !ident(line[j]))) {
        out += "<hex>";
        i = j;
        continue;
      }
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < line.size() &&
             (std::isdigit(static_cast<unsigned char>(line[j])) ||
              (line[j] == '.' && j + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[j + 1])) != 0))) {
        ++j;
      }
      out += "<n>";
      i = j;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      ++i;
      continue;
    }
    out += c;
    ++i;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > 200) {
    out.resize(200);
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0x80) != 0) out.pop_back();
  }
  return out;
}

}  // namespace

std::string error_signature(std::string_view stdout_text, std::string_view stderr_text) {
  for (const auto text : {stderr_text, stdout_text}) {
    const auto lines = lines_of(text);
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
      if (exception_like(*it)) return normalise(*it);
    }
  }
  for (const auto text : {stderr_text, stdout_text}) {
    const auto lines = lines_of(text);
    if (!lines.empty()) return normalise(lines.back());
  }
  return {};
}

}  // namespace r2r::executor
