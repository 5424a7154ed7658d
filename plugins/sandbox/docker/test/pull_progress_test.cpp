// SPDX-License-Identifier: MIT
#include "pull_progress.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::sandbox::docker::pull_progress;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(PullProgress, EventsOnStatusChangesOnlyAndOneLinePerLayer) {
  pull_progress p;
  EXPECT_THAT(p.feed({{"status", "Pulling from r2r/busybox"}, {"id", "1"}}), ElementsAre("Pulling from r2r/busybox"));
  EXPECT_THAT(p.feed({{"status", "Pulling fs layer"}, {"id", "a1"}, {"progressDetail", nlohmann::json::object()}}),
              ElementsAre("layer a1: Pulling fs layer"));
  EXPECT_THAT(p.feed({{"status", "Pulling fs layer"}, {"id", "b2"}}), ElementsAre("layer b2: Pulling fs layer"));
  EXPECT_THAT(
      p.feed({{"status", "Downloading"}, {"id", "a1"}, {"progressDetail", {{"current", 1000000}, {"total", 4000000}}}}),
      ElementsAre("layer a1: Downloading"));
  // Byte progress alone is no event, but it moves the layer's line.
  EXPECT_THAT(
      p.feed({{"status", "Downloading"}, {"id", "a1"}, {"progressDetail", {{"current", 3000000}, {"total", 4000000}}}}),
      IsEmpty());
  EXPECT_THAT(p.layer_lines(), ElementsAre("a1: Downloading 3.0/4.0 MB", "b2: Pulling fs layer"));
  p.feed({{"status", "Pull complete"}, {"id", "a1"}});
  EXPECT_THAT(p.feed({{"status", "Digest: sha256:0123"}}), ElementsAre("Digest: sha256:0123"));
  EXPECT_EQ(p.digest(), "sha256:0123");
  EXPECT_THAT(p.layer_lines(), ElementsAre("a1: Pull complete", "b2: Pulling fs layer"));
  EXPECT_TRUE(p.error().empty());
}

TEST(PullProgress, KeepsTheEnginesError) {
  pull_progress p;
  EXPECT_THAT(p.feed({{"error", "manifest unknown"}, {"errorDetail", {{"message", "manifest unknown"}}}}),
              ElementsAre("error: manifest unknown"));
  EXPECT_EQ(p.error(), "manifest unknown");
  EXPECT_THAT(p.feed(nlohmann::json::array()), IsEmpty());
}

}  // namespace
