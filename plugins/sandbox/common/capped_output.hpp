// SPDX-License-Identifier: MIT
// Bounded capture of one output stream: keeps the first `head` and the last `tail` bytes of
// everything appended, counts the rest, and renders head + a visible marker line + tail. Memory
// stays O(cap) however much a command prints. Binary-safe (bytes, not characters).
// THREADING: not thread-safe; one owner appends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace r2r::plugins::sandbox {

class capped_output {
 public:
  /// `cap` is the total bytes kept; a quarter of it (at least 1) is reserved for the tail.
  explicit capped_output(std::size_t cap);

  void append(std::string_view bytes);

  std::uint64_t total_bytes() const noexcept { return total_; }
  bool truncated() const noexcept { return total_ > head_cap_ + tail_cap_; }

  /// Head, then (when truncated) "\n[r2r: N bytes of output truncated]\n", then tail.
  std::string render() const;

 private:
  std::size_t head_cap_;
  std::size_t tail_cap_;
  std::string head_;
  std::string tail_;          // ring buffer of tail_cap_ bytes once full
  std::size_t tail_pos_ = 0;  // next write position in the ring
  std::uint64_t total_ = 0;
};

}  // namespace r2r::plugins::sandbox
