// SPDX-License-Identifier: MIT
#include "bwrap_args.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::sandbox::local;
using ::testing::Contains;
using ::testing::Not;

std::string joined(const std::vector<std::string>& a) {
  std::string s;
  for (const auto& x : a) s += x + " ";
  return s;
}

TEST(BwrapArgs, LockedDownByDefault) {
  bwrap_inputs in;
  in.bwrap = "/usr/bin/bwrap";
  in.ro_binds = {"/usr", "/etc/passwd"};
  in.host_workspace = "/srv/ws";
  in.env = {{"PATH", "/usr/bin"}};
  const auto a = bwrap_args({}, in, "echo hi");
  const auto s = joined(a);
  EXPECT_EQ(a.front(), "/usr/bin/bwrap");
  EXPECT_THAT(a, Contains("--unshare-all"));
  EXPECT_THAT(a, Not(Contains("--share-net")));
  EXPECT_THAT(a, Contains("--die-with-parent"));
  EXPECT_THAT(a, Contains("--new-session"));
  EXPECT_THAT(a, Contains("--clearenv"));
  EXPECT_NE(s.find("--cap-drop ALL"), std::string::npos);
  EXPECT_NE(s.find("--ro-bind-try /usr /usr"), std::string::npos);
  EXPECT_NE(s.find("--bind /srv/ws /workspace"), std::string::npos);
  EXPECT_NE(s.find("--tmpfs /tmp"), std::string::npos);
  EXPECT_NE(s.find("--setenv PATH /usr/bin"), std::string::npos);
  EXPECT_NE(s.find("-- /bin/sh -c echo hi"), std::string::npos);
  // The workspace is the only writable bind.
  int binds = 0;
  for (const auto& x : a) binds += x == "--bind" || x == "--dev-bind";
  EXPECT_EQ(binds, 1);
}

TEST(BwrapArgs, NetworkAndGpuOnlyWhenPlanned) {
  bwrap_inputs in;
  in.bwrap = "/usr/bin/bwrap";
  in.host_workspace = "/w";
  r2r::sdk::sandbox::create_request plan;
  plan.network = "always";  // the plan's policy alone shares nothing: only the per-exec decision does
  EXPECT_EQ(joined(bwrap_args(plan, in, "true")).find("--share-net"), std::string::npos);
  in.share_net = true;
  r2r::sdk::sandbox::gpu g;
  g.render_minor = 129;
  plan.gpu = g;
  const auto s = joined(bwrap_args(plan, in, "true"));
  EXPECT_NE(s.find("--share-net"), std::string::npos);
  EXPECT_NE(s.find("--dev-bind /dev/kfd /dev/kfd"), std::string::npos);
  EXPECT_NE(s.find("--dev-bind /dev/dri/renderD129 /dev/dri/renderD129"), std::string::npos);
}

TEST(BwrapArgs, MountsAreBoundReadOnlyAfterTheSandboxesOpt) {
  bwrap_inputs in;
  in.bwrap = "/usr/bin/bwrap";
  in.host_workspace = "/srv/ws";
  in.host_opt = "/srv/state/opt";
  r2r::sdk::sandbox::create_request plan;
  plan.mounts = {{"/srv/run/assets", "/opt/r2r-assets"}};
  const auto s = joined(bwrap_args(plan, in, "true"));
  const auto mount = s.find("--ro-bind /srv/run/assets /opt/r2r-assets");
  ASSERT_NE(mount, std::string::npos) << s;
  // Bound after /opt, or the sandbox's own /opt would hide it.
  EXPECT_LT(s.find("--bind /srv/state/opt /opt"), mount);
  EXPECT_EQ(s.find("--bind /srv/run/assets"), std::string::npos);
}

}  // namespace
