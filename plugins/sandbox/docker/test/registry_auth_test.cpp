// SPDX-License-Identifier: MIT
#include "registry_auth.hpp"

#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::sandbox::docker;

std::string decode_url64(const std::string& in) {
  std::string out;
  unsigned v = 0;
  int bits = 0;
  const std::string table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (char c : in) {
    const auto d = table.find(c);
    if (d == std::string::npos) continue;
    v = (v << 6) | static_cast<unsigned>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xFF);
    }
  }
  return out;
}

TEST(RegistryAuth, SplitsReferencesAsTheEngineExpects) {
  EXPECT_EQ(split_image_ref("127.0.0.1:5000/r2r/busybox:1").name, "127.0.0.1:5000/r2r/busybox");
  EXPECT_EQ(split_image_ref("127.0.0.1:5000/r2r/busybox:1").tag, "1");
  EXPECT_EQ(split_image_ref("127.0.0.1:5000/r2r/busybox").tag, "latest");  // the port is not a tag
  EXPECT_EQ(split_image_ref("rocm/pytorch@sha256:abc").name, "rocm/pytorch");
  EXPECT_EQ(split_image_ref("rocm/pytorch@sha256:abc").tag, "sha256:abc");
  EXPECT_EQ(split_image_ref("ubuntu").tag, "latest");
}

TEST(RegistryAuth, FindsTheRegistryOfAReference) {
  EXPECT_EQ(registry_of("rocm/pytorch:latest"), "docker.io");
  EXPECT_EQ(registry_of("ubuntu"), "docker.io");
  EXPECT_EQ(registry_of("localhost/x"), "localhost");
  EXPECT_EQ(registry_of("127.0.0.1:5000/r2r/busybox:1"), "127.0.0.1:5000");
  EXPECT_EQ(registry_of("ghcr.io/org/img"), "ghcr.io");
}

TEST(RegistryAuth, BuildsTheHeaderFromTheClientConfigsAuthsEntry) {
  const nlohmann::json config{{"auths",
                               {{"https://index.docker.io/v1/", {{"auth", "dXNlcjpwYTpzcw=="}}},  // user:pa:ss
                                {"reg.example:5000", {{"identitytoken", "tok"}}}}}};
  const auto hub = nlohmann::json::parse(decode_url64(registry_auth_header(config, "docker.io")));
  EXPECT_EQ(hub["username"], "user");
  EXPECT_EQ(hub["password"], "pa:ss");  // only the first colon separates
  EXPECT_EQ(hub["serveraddress"], "docker.io");
  const auto token = nlohmann::json::parse(decode_url64(registry_auth_header(config, "reg.example:5000")));
  EXPECT_EQ(token["identitytoken"], "tok");
  EXPECT_EQ(registry_auth_header(config, "ghcr.io"), "");  // no entry: anonymous
  EXPECT_EQ(registry_auth_header(nlohmann::json::object(), "docker.io"), "");
  EXPECT_EQ(registry_auth_header({{"auths", {{"ghcr.io", {{"auth", "bm9jb2xvbg=="}}}}}}, "ghcr.io"), "")
      << "an auth without user:password is not sent";
}

TEST(RegistryAuth, ReportsCredentialHelpersItDoesNotRun) {
  EXPECT_TRUE(has_credential_helper({{"credsStore", "desktop"}}, "docker.io"));
  EXPECT_TRUE(has_credential_helper({{"credHelpers", {{"gcr.io", "gcloud"}}}}, "gcr.io"));
  EXPECT_FALSE(has_credential_helper({{"credHelpers", {{"gcr.io", "gcloud"}}}}, "docker.io"));
  EXPECT_FALSE(has_credential_helper(nlohmann::json::object(), "docker.io"));
}

}  // namespace
