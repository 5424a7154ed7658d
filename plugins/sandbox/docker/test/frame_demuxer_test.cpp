// SPDX-License-Identifier: MIT
#include "frame_demuxer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using r2r::plugins::sandbox::docker::frame_demuxer;

std::string frame(int stream, const std::string& payload) {
  std::string h(8, '\0');
  h[0] = static_cast<char>(stream);
  const auto n = static_cast<std::uint32_t>(payload.size());
  h[4] = static_cast<char>(n >> 24);
  h[5] = static_cast<char>(n >> 16);
  h[6] = static_cast<char>(n >> 8);
  h[7] = static_cast<char>(n);
  return h + payload;
}

TEST(FrameDemuxer, SplitsStreamsWhateverTheChunking) {
  const std::string wire = frame(1, "hello ") + frame(2, std::string("e\0rr", 4)) + frame(1, "world") + frame(1, "");
  for (std::size_t step : {1u, 2u, 3u, 7u, 8u, 9u, 1000u}) {
    std::string out, err;
    frame_demuxer d([&](frame_demuxer::stream s, std::string_view b) {
      (s == frame_demuxer::stream::stdout_ ? out : err).append(b);
    });
    for (std::size_t i = 0; i < wire.size(); i += step) d.feed(std::string_view(wire).substr(i, step));
    EXPECT_EQ(out, "hello world") << "step " << step;
    EXPECT_EQ(err, std::string("e\0rr", 4)) << "step " << step;
    EXPECT_TRUE(d.at_frame_boundary());
  }
}

TEST(FrameDemuxer, LargeFrameSizeIsBigEndian) {
  const std::string payload(70000, 'x');
  std::size_t got = 0;
  frame_demuxer d([&](frame_demuxer::stream, std::string_view b) { got += b.size(); });
  const auto wire = frame(1, payload);
  d.feed(std::string_view(wire).substr(0, 100));
  EXPECT_FALSE(d.at_frame_boundary());
  d.feed(std::string_view(wire).substr(100));
  EXPECT_EQ(got, payload.size());
}

TEST(FrameDemuxer, RejectsAnUnknownStream) {
  frame_demuxer d([](frame_demuxer::stream, std::string_view) {});
  EXPECT_THROW(d.feed(frame(7, "x")), std::runtime_error);
}

}  // namespace
