// SPDX-License-Identifier: MIT
#include "network_policy.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/kinds/sandbox.hpp>

namespace r2r::plugins::sandbox {
namespace {

// "http://host:port/path" -> "host" (pip's trusted-host takes host or host:port; the host is enough).
std::string http_host(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) return {};
  std::string rest = url.substr(scheme.size());
  rest = rest.substr(0, rest.find('/'));
  if (const auto at = rest.rfind('@'); at != std::string::npos) rest = rest.substr(at + 1);
  if (!rest.empty() && rest.front() == '[') return rest.substr(0, rest.find(']') + 1);
  return rest.substr(0, rest.find(':'));
}

}  // namespace

void from_json(const nlohmann::json& j, package_index& p) {
  p.index_url = j.value("index_url", std::string());
  p.extra_index_urls = j.value("extra_index_urls", std::vector<std::string>{});
  p.http_proxy = j.value("http_proxy", std::string());
  p.https_proxy = j.value("https_proxy", std::string());
  p.no_proxy = j.value("no_proxy", std::string());
}

std::string configured_policy(const nlohmann::json& config) {
  if (!config.is_object() || !config.contains("network") || config.at("network").is_null()) return "install";
  try {
    return sdk::sandbox::network_policy_of(config.at("network"));
  } catch (const nlohmann::json::exception&) {
    throw sdk::invalid_argument(
        "plugin config \"network\" must be \"none\", \"install\" or \"always\" (or the legacy "
        "true = always, false = none); found " +
        config.at("network").dump());
  }
}

std::string effective_policy(const std::string& requested, const std::string& configured) {
  return requested.empty() ? configured : requested;
}

bool exec_gets_network(const std::string& policy, bool install) {
  return policy == "always" || (policy == "install" && install);
}

std::map<std::string, std::string> install_env(const package_index& index) {
  std::map<std::string, std::string> env;
  std::string trusted;
  auto trust = [&trusted](const std::string& url) {
    const auto host = http_host(url);
    if (!host.empty() && (" " + trusted + " ").find(" " + host + " ") == std::string::npos) {
      trusted += (trusted.empty() ? "" : " ") + host;
    }
  };
  if (!index.index_url.empty()) {
    env["PIP_INDEX_URL"] = env["UV_INDEX_URL"] = index.index_url;
    trust(index.index_url);
  }
  if (!index.extra_index_urls.empty()) {
    std::string extra;
    for (const auto& url : index.extra_index_urls) {
      extra += (extra.empty() ? "" : " ") + url;
      trust(url);
    }
    env["PIP_EXTRA_INDEX_URL"] = env["UV_EXTRA_INDEX_URL"] = extra;
  }
  if (!trusted.empty()) env["PIP_TRUSTED_HOST"] = trusted;
  if (!index.http_proxy.empty()) env["HTTP_PROXY"] = env["http_proxy"] = index.http_proxy;
  if (!index.https_proxy.empty()) env["HTTPS_PROXY"] = env["https_proxy"] = index.https_proxy;
  if (!index.no_proxy.empty()) env["NO_PROXY"] = env["no_proxy"] = index.no_proxy;
  return env;
}

}  // namespace r2r::plugins::sandbox
