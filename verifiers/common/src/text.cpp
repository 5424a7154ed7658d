// SPDX-License-Identifier: MIT
#include <r2r/verify/text.hpp>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>

namespace r2r::plugins::verifier {

namespace {
std::string message(std::string_view tool, std::string_view expected, std::string_view found, std::string_view remedy) {
  std::string m(tool);
  m += ": expected ";
  m += expected;
  m += ", found ";
  m += found.empty() ? std::string_view("nothing") : found;
  m += ". ";
  m += remedy;
  return m;
}
}  // namespace

parse_error::parse_error(std::string_view tool, std::string_view expected, std::string_view found,
                         std::string_view remedy)
    : std::runtime_error(message(tool, expected, found, remedy)) {}

std::string_view strip_source_header(std::string_view text) {
  while (text.starts_with("# ")) {
    const std::size_t nl = text.find('\n');
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  return text;
}

std::string strip_ansi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::size_t j = std::string_view::npos;
    if (text[i] == '\x1b')
      j = i + 1;
    else if (text.substr(i).starts_with("^["))
      j = i + 2;
    if (j != std::string_view::npos) {
      if (j < text.size() && text[j] == '[') ++j;
      std::size_t k = j;
      while (k < text.size() && (std::isdigit(static_cast<unsigned char>(text[k])) || text[k] == ';')) ++k;
      if (k < text.size() && k > j && std::isalpha(static_cast<unsigned char>(text[k]))) {
        i = k;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split_csv(std::string_view line, std::string_view tool) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = was_quoted = true;
    } else if (c == ',') {
      fields.push_back(was_quoted ? cur : std::string(trim(cur)));
      cur.clear();
      was_quoted = false;
    } else {
      cur += c;
    }
  }
  if (quoted) {
    throw parse_error(tool, "a closing '\"' in every quoted CSV field", excerpt(line),
                      "The line is cut off or not CSV; capture the complete file again");
  }
  fields.push_back(was_quoted ? cur : std::string(trim(cur)));
  return fields;
}

std::vector<std::string_view> split_ws(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::vector<std::string> split_tabs(std::string_view line) {
  std::vector<std::string> out;
  for (;;) {
    const std::size_t tab = line.find('\t');
    out.emplace_back(trim(line.substr(0, tab)));
    if (tab == std::string_view::npos) break;
    line.remove_prefix(tab + 1);
  }
  return out;
}

std::optional<long long> to_int(std::string_view s) {
  s = trim(s);
  long long v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

int int_field(std::string_view digits, std::string_view tool, std::string_view what) {
  const auto v = to_int(digits);
  if (!v || *v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max())
    throw parse_error(tool, std::string(what) + " that fits in an int", excerpt(digits),
                      "Capture the output again; a number this large means it is corrupt");
  return static_cast<int>(*v);
}

std::optional<double> to_double(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  const std::string copy(s);
  char* end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return v;
}

std::optional<double> to_bytes(std::string_view s) {
  const auto parts = split_ws(trim(s));
  if (parts.empty() || parts.size() > 2) return std::nullopt;
  std::string_view num = parts[0], unit = parts.size() == 2 ? parts[1] : std::string_view("B");
  if (parts.size() == 1) {  // "1002MiB"
    std::size_t k = 0;
    while (k < num.size() && (std::isdigit(static_cast<unsigned char>(num[k])) || num[k] == '.')) ++k;
    if (k < num.size()) {
      unit = num.substr(k);
      num = num.substr(0, k);
    }
  }
  const auto v = to_double(num);
  if (!v) return std::nullopt;
  static const std::pair<std::string_view, double> units[] = {{"B", 1},
                                                              {"KB", 1024.0},
                                                              {"MB", 1048576.0},
                                                              {"GB", 1073741824.0},
                                                              {"TB", 1099511627776.0},
                                                              {"PB", 1125899906842624.0},
                                                              {"EB", 1152921504606846976.0},
                                                              {"KiB", 1024.0},
                                                              {"MiB", 1048576.0},
                                                              {"GiB", 1073741824.0},
                                                              {"TiB", 1099511627776.0}};
  for (const auto& [name, scale] : units) {
    if (unit == name) return *v * scale;
  }
  return std::nullopt;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string excerpt(std::string_view s) {
  s = trim(s);
  std::string out = "'" + std::string(s.substr(0, 60)) + (s.size() > 60 ? "...'" : "'");
  return out;
}

}  // namespace r2r::plugins::verifier
