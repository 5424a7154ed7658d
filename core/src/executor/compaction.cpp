// SPDX-License-Identifier: MIT
#include <r2r/executor/observation.hpp>

#include <algorithm>
#include <string>

namespace r2r::executor {
namespace {

bool continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Largest prefix length <= n that does not end inside a UTF-8 sequence.
std::size_t utf8_prefix(std::string_view s, std::size_t n) {
  if (n >= s.size()) return s.size();
  while (n > 0 && continuation(static_cast<unsigned char>(s[n]))) --n;
  return n;
}

// Start of the largest suffix of length <= n that does not start inside a UTF-8 sequence.
std::size_t utf8_suffix_start(std::string_view s, std::size_t n) {
  if (n >= s.size()) return 0;
  std::size_t start = s.size() - n;
  while (start < s.size() && continuation(static_cast<unsigned char>(s[start]))) ++start;
  return start;
}

}  // namespace

std::string compact(std::string_view text, const compaction_options& options, bool* cut) {
  const std::size_t max_bytes = std::max<std::size_t>(options.max_bytes, 256);
  if (cut != nullptr) *cut = false;
  if (text.size() <= max_bytes) return std::string(text);
  if (cut != nullptr) *cut = true;
  // The marker's size depends on the count it prints; reserve the widest it can be.
  const std::string probe = "\n[... " + std::to_string(text.size()) + " bytes cut by the executor ...]\n";
  const std::size_t budget = max_bytes - probe.size();
  const double fraction = std::clamp(options.head_fraction, 0.0, 1.0);
  const std::size_t head = utf8_prefix(text, static_cast<std::size_t>(static_cast<double>(budget) * fraction));
  const std::size_t tail_start = utf8_suffix_start(text, budget - head);
  const std::size_t removed = tail_start - head;
  std::string out;
  out.reserve(max_bytes);
  out.append(text.substr(0, head));
  out += "\n[... " + std::to_string(removed) + " bytes cut by the executor ...]\n";
  out.append(text.substr(tail_start));
  return out;
}

}  // namespace r2r::executor
