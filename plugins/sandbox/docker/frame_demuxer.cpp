// SPDX-License-Identifier: MIT
#include "frame_demuxer.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace r2r::plugins::sandbox::docker {

void frame_demuxer::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    if (remaining_ == 0) {
      const std::size_t n = std::min(header_.size() - header_fill_, bytes.size());
      std::copy_n(bytes.begin(), n, header_.begin() + static_cast<long>(header_fill_));
      header_fill_ += n;
      bytes.remove_prefix(n);
      if (header_fill_ < header_.size()) return;
      header_fill_ = 0;
      if (header_[0] > 2) {
        throw std::runtime_error("malformed engine output stream: frame header names stream " +
                                 std::to_string(header_[0]) + " (expected 0, 1 or 2)");
      }
      current_ = static_cast<stream>(header_[0]);
      remaining_ = (std::uint32_t{header_[4]} << 24) | (std::uint32_t{header_[5]} << 16) |
                   (std::uint32_t{header_[6]} << 8) | std::uint32_t{header_[7]};
      continue;
    }
    const std::size_t n = std::min<std::size_t>(remaining_, bytes.size());
    out_(current_, bytes.substr(0, n));
    remaining_ -= static_cast<std::uint32_t>(n);
    bytes.remove_prefix(n);
  }
}

}  // namespace r2r::plugins::sandbox::docker
