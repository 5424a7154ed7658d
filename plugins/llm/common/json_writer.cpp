// SPDX-License-Identifier: MIT
#include "json_writer.hpp"

#include "errors.hpp"

#include <cstdio>

namespace r2r::plugins::llm {
namespace {

// Length of the valid UTF-8 sequence at s[i] (lead byte >= 0x80), or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = at(i);
  std::size_t n = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((at(i + k) & 0xC0) != 0x80) return 0;
  // Overlong 3- and 4-byte forms, UTF-16 surrogates and code points past U+10FFFF.
  if (lead == 0xE0 && at(i + 1) < 0xA0) return 0;
  if (lead == 0xED && at(i + 1) >= 0xA0) return 0;
  if (lead == 0xF0 && at(i + 1) < 0x90) return 0;
  if (lead == 0xF4 && at(i + 1) >= 0x90) return 0;
  return n;
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t run = 0;  // start of the bytes not yet appended
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const std::size_t n = utf8_length(s, i);
      if (n == 0) {
        throw llm_error(failure::invalid_request, "a string of the request is not valid UTF-8 (byte " +
                                                      std::to_string(i) + " of " + std::to_string(s.size()) + ")");
      }
      i += n;
      continue;
    }
    out.append(s.data() + run, i - run);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default: {
        char u[8];
        std::snprintf(u, sizeof u, "\\u%04x", c);
        out += u;
      }
    }
    run = ++i;
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

void json_writer::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
  }
}

json_writer& json_writer::begin_object() {
  separate();
  out_.push_back('{');
  first_.push_back(true);
  return *this;
}

json_writer& json_writer::end_object() {
  out_.push_back('}');
  first_.pop_back();
  return *this;
}

json_writer& json_writer::begin_array() {
  separate();
  out_.push_back('[');
  first_.push_back(true);
  return *this;
}

json_writer& json_writer::end_array() {
  out_.push_back(']');
  first_.pop_back();
  return *this;
}

json_writer& json_writer::key(std::string_view k) {
  separate();
  append_json_string(out_, k);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}

json_writer& json_writer::string(std::string_view s) {
  separate();
  append_json_string(out_, s);
  return *this;
}

json_writer& json_writer::number(std::int64_t n) {
  separate();
  out_ += std::to_string(n);
  return *this;
}

json_writer& json_writer::number(double d) {
  return value(nlohmann::json(d));  // shortest round-trip form, as nlohmann writes it
}

json_writer& json_writer::boolean(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}

json_writer& json_writer::null() {
  separate();
  out_ += "null";
  return *this;
}

json_writer& json_writer::value(const nlohmann::json& j) {
  separate();
  out_ += j.dump();
  return *this;
}

}  // namespace r2r::plugins::llm
