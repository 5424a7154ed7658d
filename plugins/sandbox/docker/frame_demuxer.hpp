// SPDX-License-Identifier: MIT
// Splits the Engine API's multiplexed attach/exec stream (no TTY) into stdout and stderr. Each
// frame is an 8-byte header {stream, 0, 0, 0, size as big-endian uint32} then `size` bytes. Chunks
// may cut headers and payloads anywhere; the demuxer carries partial headers between feeds.
// THREADING: not thread-safe; one owner feeds it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string_view>

namespace r2r::plugins::sandbox::docker {

class frame_demuxer {
 public:
  // The names stdin/stdout/stderr are macros in <cstdio>, hence the trailing underscore.
  enum class stream : std::uint8_t { stdin_ = 0, stdout_ = 1, stderr_ = 2 };  // NOLINT(readability-identifier-naming)
  /// Called with each piece of payload, in order. Pieces of one frame may arrive in several calls.
  using sink = std::function<void(stream, std::string_view)>;

  explicit frame_demuxer(sink out) : out_(std::move(out)) {}

  /// Feeds raw bytes. Throws std::runtime_error on a header whose stream byte is not 0, 1 or 2.
  void feed(std::string_view bytes);

  /// True when the stream ended between frames (no partial header or payload pending).
  bool at_frame_boundary() const noexcept { return header_fill_ == 0 && remaining_ == 0; }

 private:
  sink out_;
  std::array<unsigned char, 8> header_{};
  std::size_t header_fill_ = 0;
  std::uint32_t remaining_ = 0;
  stream current_ = stream::stdout_;
};

}  // namespace r2r::plugins::sandbox::docker
