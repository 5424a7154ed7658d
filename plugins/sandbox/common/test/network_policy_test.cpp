// SPDX-License-Identifier: MIT
#include "network_policy.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/kinds/sandbox.hpp>

#include <gtest/gtest.h>

namespace r2r::plugins::sandbox {
namespace {

TEST(NetworkPolicy, OnlyInstallExecsGetTheNetworkUnderInstall) {
  EXPECT_TRUE(exec_gets_network("install", true));
  EXPECT_FALSE(exec_gets_network("install", false));
  EXPECT_FALSE(exec_gets_network("none", true));
  EXPECT_FALSE(exec_gets_network("none", false));
  EXPECT_TRUE(exec_gets_network("always", false));
  EXPECT_FALSE(exec_gets_network("bogus", true));  // an unknown policy never grants the network
}

TEST(NetworkPolicy, ConfigDefaultsToInstallAndMapsTheLegacyBoolean) {
  EXPECT_EQ(configured_policy(nlohmann::json::object()), "install");
  EXPECT_EQ(configured_policy({{"network", nullptr}}), "install");
  EXPECT_EQ(configured_policy({{"network", "none"}}), "none");
  EXPECT_EQ(configured_policy({{"network", "always"}}), "always");
  EXPECT_EQ(configured_policy({{"network", true}}), "always");
  EXPECT_EQ(configured_policy({{"network", false}}), "none");
  try {
    configured_policy({{"network", "sometimes"}});
    FAIL() << "an unknown policy was accepted";
  } catch (const sdk::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"sometimes\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"install\""), std::string::npos) << e.what();
  }
}

TEST(NetworkPolicy, CreateRequestAcceptsPolicyStringsAndTheLegacyBoolean) {
  using sdk::sandbox::create_request;
  EXPECT_EQ(nlohmann::json::object().get<create_request>().network, "");  // the plugin's configured policy
  EXPECT_EQ(nlohmann::json({{"network", "install"}}).get<create_request>().network, "install");
  EXPECT_EQ(nlohmann::json({{"network", true}}).get<create_request>().network, "always");
  EXPECT_EQ(nlohmann::json({{"network", false}}).get<create_request>().network, "none");
  EXPECT_THROW((void)nlohmann::json({{"network", "open"}}).get<create_request>(), nlohmann::json::exception);
  EXPECT_THROW((void)nlohmann::json({{"network", 1}}).get<create_request>(), nlohmann::json::exception);
  EXPECT_EQ(effective_policy("", "none"), "none");
  EXPECT_EQ(effective_policy("always", "none"), "always");
}

TEST(NetworkPolicy, InstallEnvCarriesTheIndexAndProxiesAndTrustsOnlyHttpHosts) {
  EXPECT_TRUE(install_env({}).empty());
  package_index p;
  p.index_url = "http://10.0.0.5:8080/simple";
  p.extra_index_urls = {"https://mirror.example/simple", "http://user:pw@[fd00::1]:81/simple"};
  p.https_proxy = "http://proxy:3128";
  p.no_proxy = "localhost";
  const auto env = install_env(p);
  EXPECT_EQ(env.at("PIP_INDEX_URL"), "http://10.0.0.5:8080/simple");
  EXPECT_EQ(env.at("UV_INDEX_URL"), "http://10.0.0.5:8080/simple");
  EXPECT_EQ(env.at("PIP_EXTRA_INDEX_URL"), "https://mirror.example/simple http://user:pw@[fd00::1]:81/simple");
  EXPECT_EQ(env.at("PIP_TRUSTED_HOST"), "10.0.0.5 [fd00::1]");  // never the https mirror
  EXPECT_EQ(env.at("HTTPS_PROXY"), "http://proxy:3128");
  EXPECT_EQ(env.at("https_proxy"), "http://proxy:3128");
  EXPECT_EQ(env.at("NO_PROXY"), "localhost");
  EXPECT_EQ(env.count("HTTP_PROXY"), 0U);
}

}  // namespace
}  // namespace r2r::plugins::sandbox
