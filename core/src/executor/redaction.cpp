// SPDX-License-Identifier: MIT
#include <r2r/executor/observation.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

extern char** environ;  // NOLINT: POSIX

namespace r2r::executor {
namespace {

constexpr std::string_view mask = "[REDACTED]";

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool token_char(char c) {
  return ident_char(c) || c == '-' || c == '.' || c == '/' || c == '+' || c == '=';
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Known token shapes: a prefix followed by at least `min_body` token characters.
struct shape {
  std::string_view prefix;
  std::size_t min_body;
  bool upper_alnum_only;  // AWS key ids: [A-Z0-9]
};
constexpr std::array<shape, 12> shapes{{{"sk-", 16, false},
                                        {"ghp_", 20, false},
                                        {"gho_", 20, false},
                                        {"ghs_", 20, false},
                                        {"ghu_", 20, false},
                                        {"ghr_", 20, false},
                                        {"github_pat_", 20, false},
                                        {"xoxb-", 10, false},
                                        {"xoxp-", 10, false},
                                        {"AKIA", 16, true},
                                        {"ASIA", 16, true},
                                        {"hf_", 30, false}}};

// Replaces every token of a known shape; returns the new text.
std::string mask_shapes(const std::string& in) {
  std::string out;
  out.reserve(in.size());
  std::size_t i = 0;
  while (i < in.size()) {
    bool matched = false;
    const bool boundary = i == 0 || !ident_char(in[i - 1]);
    if (boundary) {
      for (const auto& s : shapes) {
        if (in.compare(i, s.prefix.size(), s.prefix) != 0) continue;
        std::size_t j = i + s.prefix.size();
        while (j < in.size() && (s.upper_alnum_only ? (std::isupper(static_cast<unsigned char>(in[j])) != 0 ||
                                                       std::isdigit(static_cast<unsigned char>(in[j])) != 0)
                                                    : (ident_char(in[j]) || in[j] == '-'))) {
          ++j;
        }
        if (j - i - s.prefix.size() >= s.min_body) {
          out += mask;
          i = j;
          matched = true;
          break;
        }
      }
    }
    if (!matched) out += in[i++];
  }
  return out;
}

// "Bearer <token>" (any case) and "Authorization: <scheme> <token>".
std::string mask_bearer(const std::string& in) {
  std::string out;
  out.reserve(in.size());
  std::size_t i = 0;
  while (i < in.size()) {
    if ((in[i] == 'B' || in[i] == 'b') && in.size() - i > 7 && upper(in.substr(i, 7)) == "BEARER " &&
        (i == 0 || !ident_char(in[i - 1]))) {
      std::size_t j = i + 7;
      while (j < in.size() && in[j] == ' ') ++j;
      std::size_t k = j;
      while (k < in.size() && token_char(in[k])) ++k;
      if (k - j >= 8) {
        out.append(in, i, j - i);
        out += mask;
        i = k;
        continue;
      }
    }
    out += in[i++];
  }
  return out;
}

// NAME=value, NAME: value, "NAME": "value", export NAME=value, where NAME looks secret.
std::string mask_assignments(const std::string& in) {
  std::string out;
  out.reserve(in.size());
  std::size_t i = 0;
  while (i < in.size()) {
    if (ident_char(in[i]) && (i == 0 || !ident_char(in[i - 1]))) {
      std::size_t j = i;
      while (j < in.size() && ident_char(in[j])) ++j;
      const std::string_view name(in.data() + i, j - i);
      if (secret_name(name)) {
        std::size_t k = j;
        if (k < in.size() && in[k] == '"') ++k;  // "NAME": "value"
        while (k < in.size() && in[k] == ' ') ++k;
        if (k < in.size() && (in[k] == '=' || in[k] == ':')) {
          ++k;
          while (k < in.size() && in[k] == ' ') ++k;
          char quote = 0;
          if (k < in.size() && (in[k] == '"' || in[k] == '\'')) quote = in[k++];
          std::size_t v = k;
          while (v < in.size() && (quote != 0 ? in[v] != quote && in[v] != '\n'
                                              : !std::isspace(static_cast<unsigned char>(in[v])) && in[v] != ',' &&
                                                    in[v] != ';' && in[v] != '&' && in[v] != '|')) {
            ++v;
          }
          if (v > k) {
            out.append(in, i, k - i);
            out += mask;
            i = v;
            continue;
          }
        }
      }
      out.append(in, i, j - i);
      i = j;
      continue;
    }
    out += in[i++];
  }
  return out;
}

std::string mask_pem(const std::string& in) {
  static constexpr std::string_view begin = "-----BEGIN ";
  std::string out;
  std::size_t i = 0;
  while (true) {
    const auto b = in.find(begin, i);
    if (b == std::string::npos) break;
    const auto line_end = in.find("-----", b + begin.size());
    if (line_end == std::string::npos || in.substr(b, line_end - b).find("PRIVATE KEY") == std::string::npos) {
      out.append(in, i, b + begin.size() - i);
      i = b + begin.size();
      continue;
    }
    const auto end = in.find("-----END ", line_end);
    const auto stop = end == std::string::npos ? in.size() : in.find("-----", end + 9);
    out.append(in, i, b - i);
    out += mask;
    i = stop == std::string::npos ? in.size() : stop + 5;
  }
  out.append(in, i, std::string::npos);
  return out;
}

}  // namespace

bool secret_name(std::string_view name) {
  const std::string n = upper(name);
  for (std::string_view suffix : {"_KEY", "_TOKEN", "_SECRET", "PASSWORD", "_PASS", "_PASSWD", "_CREDENTIALS",
                                  "_APIKEY", "SECRET_KEY", "ACCESS_KEY_ID"}) {
    if (ends_with(n, suffix)) return true;
  }
  for (std::string_view exact : {"TOKEN", "SECRET", "APIKEY", "API_KEY", "PASSWORD"}) {
    if (n == exact) return true;
  }
  return false;
}

redactor::redactor(const std::map<std::string, std::string>& env) {
  for (const auto& [name, value] : env) {
    if (secret_name(name)) add_secret(value);
  }
}

redactor redactor::from_process_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq != nullptr) env.emplace(std::string(*e, static_cast<std::size_t>(eq - *e)), std::string(eq + 1));
  }
  return redactor(env);
}

void redactor::add_secret(std::string value) {
  if (value.size() < 6 || std::find(secrets_.begin(), secrets_.end(), value) != secrets_.end()) return;
  secrets_.push_back(std::move(value));
  std::sort(secrets_.begin(), secrets_.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
}

std::string redactor::redact(std::string_view text) const {
  std::string s(text);
  for (const auto& secret : secrets_) {
    std::size_t pos = 0;
    while ((pos = s.find(secret, pos)) != std::string::npos) {
      s.replace(pos, secret.size(), mask);
      pos += mask.size();
    }
  }
  return mask_pem(mask_assignments(mask_bearer(mask_shapes(s))));
}

}  // namespace r2r::executor
