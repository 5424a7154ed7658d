// SPDX-License-Identifier: MIT
#include "capped_output.hpp"

#include <algorithm>

namespace r2r::plugins::sandbox {

capped_output::capped_output(std::size_t cap) {
  if (cap < 2) cap = 2;
  tail_cap_ = std::max<std::size_t>(1, cap / 4);
  head_cap_ = cap - tail_cap_;
}

void capped_output::append(std::string_view bytes) {
  total_ += bytes.size();
  if (head_.size() < head_cap_) {
    const std::size_t n = std::min(head_cap_ - head_.size(), bytes.size());
    head_.append(bytes.substr(0, n));
    bytes.remove_prefix(n);
  }
  if (bytes.empty()) return;
  if (bytes.size() >= tail_cap_) {  // only the last tail_cap_ bytes can survive
    tail_.assign(bytes.substr(bytes.size() - tail_cap_));
    tail_pos_ = 0;
    return;
  }
  for (char c : bytes) {
    if (tail_.size() < tail_cap_) {
      tail_.push_back(c);
    } else {
      tail_[tail_pos_] = c;
      tail_pos_ = (tail_pos_ + 1) % tail_cap_;
    }
  }
}

std::string capped_output::render() const {
  std::string out = head_;
  if (truncated()) {
    const std::uint64_t dropped = total_ - head_.size() - tail_.size();
    out += "\n[r2r: " + std::to_string(dropped) + " bytes of output truncated]\n";
  }
  // Ring order: oldest byte is at tail_pos_ once the ring is full (tail_pos_ is 0 otherwise).
  out.append(tail_, tail_pos_, std::string::npos);
  out.append(tail_, 0, tail_pos_);
  return out;
}

}  // namespace r2r::plugins::sandbox
