// SPDX-License-Identifier: MIT
#include "json_diff.hpp"

#include "errors.hpp"

#include <algorithm>

namespace r2r::plugins::llm {
namespace {

using nlohmann::json;

constexpr std::size_t window = 40;  // characters shown on each side of a string difference

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

// A value shown in a message: compact JSON, shortened, valid UTF-8.
std::string show(const json& value) {
  return excerpt(value.dump(-1, ' ', false, json::error_handler_t::replace), 160);
}

// The text around `at` in `s`, quoted, with ellipses where it was cut.
std::string around(const std::string& s, std::size_t at) {
  const std::size_t from = at > window ? at - window : 0;
  const std::size_t to = std::min(s.size(), at + window);
  std::string piece = s.substr(from, to - from);
  // Cutting may split a UTF-8 character at either end; excerpt() replaces the broken bytes.
  std::string quoted = json(excerpt(piece, 4 * window)).dump(-1, ' ', false, json::error_handler_t::replace);
  return (from > 0 ? "..." : "") + quoted + (to < s.size() ? "..." : "");
}

std::optional<json_difference> walk(const json& e, const json& f, const std::string& pointer, const std::string& en,
                                    const std::string& fn) {
  if (e.type() != f.type() && !(e.is_number() && f.is_number())) {
    return json_difference{pointer, en + " has " + std::string(e.type_name()) + " " + show(e) + ", " + fn + " has " +
                                        f.type_name() + " " + show(f)};
  }
  if (e.is_object()) {
    auto ei = e.begin();
    auto fi = f.begin();
    // Both are sorted by key: walk them together like a merge.
    while (ei != e.end() || fi != f.end()) {
      if (fi == f.end() || (ei != e.end() && ei.key() < fi.key())) {
        return json_difference{pointer + "/" + escape_pointer_token(ei.key()),
                               en + " has " + show(ei.value()) + ", " + fn + " has no such key"};
      }
      if (ei == e.end() || fi.key() < ei.key()) {
        return json_difference{pointer + "/" + escape_pointer_token(fi.key()),
                               en + " has no such key, " + fn + " has " + show(fi.value())};
      }
      if (auto d = walk(ei.value(), fi.value(), pointer + "/" + escape_pointer_token(ei.key()), en, fn)) return d;
      ++ei;
      ++fi;
    }
    return std::nullopt;
  }
  if (e.is_array()) {
    const std::size_t common = std::min(e.size(), f.size());
    for (std::size_t i = 0; i < common; ++i) {
      if (auto d = walk(e[i], f[i], pointer + "/" + std::to_string(i), en, fn)) return d;
    }
    if (e.size() == f.size()) return std::nullopt;
    const std::string at = pointer + "/" + std::to_string(common);
    if (e.size() > f.size()) {
      return json_difference{at, en + " has " + std::to_string(e.size()) + " elements, " + fn + " " +
                                     std::to_string(f.size()) + "; the first missing one is " + show(e[common])};
    }
    return json_difference{at, en + " has " + std::to_string(e.size()) + " elements, " + fn + " " +
                                   std::to_string(f.size()) + "; the first extra one is " + show(f[common])};
  }
  if (e.is_string()) {
    const auto& es = e.get_ref<const std::string&>();
    const auto& fs = f.get_ref<const std::string&>();
    if (es == fs) return std::nullopt;
    const auto mismatch = std::mismatch(es.begin(), es.end(), fs.begin(), fs.end());
    const auto at = static_cast<std::size_t>(mismatch.first - es.begin());
    return json_difference{pointer, "character " + std::to_string(at) + ": " + en + " " + around(es, at) + ", " + fn +
                                        " " + around(fs, at)};
  }
  if (e == f) return std::nullopt;
  return json_difference{pointer, en + " " + show(e) + ", " + fn + " " + show(f)};
}

}  // namespace

std::optional<json_difference> first_difference(const json& expected, const json& found,
                                                const std::string& expected_name, const std::string& found_name) {
  return walk(expected, found, "", expected_name, found_name);
}

std::size_t common_prefix_length(const json& a, const json& b) {
  const std::string sa = a.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::string sb = b.dump(-1, ' ', false, json::error_handler_t::replace);
  const auto m = std::mismatch(sa.begin(), sa.end(), sb.begin(), sb.end());
  return static_cast<std::size_t>(m.first - sa.begin());
}

}  // namespace r2r::plugins::llm
