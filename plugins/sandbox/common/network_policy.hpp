// SPDX-License-Identifier: MIT
// The network policy every sandbox plugin applies (docs/sandboxes.md, "Network"): which policy a
// sandbox gets, whether one exec reaches the network, and the package-index variables an install
// exec gets. Pure functions over configuration; the engines apply the answers.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace r2r::plugins::sandbox {

/// Where installs fetch from, set by the operator in the plugin config ("package_index"), so a
/// mirror or a proxy can be used. Passed only into install execs, never into others.
struct package_index {
  std::string index_url;                      // PIP_INDEX_URL / UV_INDEX_URL
  std::vector<std::string> extra_index_urls;  // PIP_EXTRA_INDEX_URL / UV_EXTRA_INDEX_URL
  std::string http_proxy;                     // HTTP_PROXY / http_proxy
  std::string https_proxy;                    // HTTPS_PROXY / https_proxy
  std::string no_proxy;                       // NO_PROXY / no_proxy
};
void from_json(const nlohmann::json& j, package_index& p);

/// The plugin config's "network" value (a policy string or the legacy boolean); absent: "install".
/// Throws sdk::invalid_argument for any other value.
std::string configured_policy(const nlohmann::json& config);

/// The policy of a sandbox: the create request's (already validated) or, when empty, the
/// configured one.
std::string effective_policy(const std::string& requested, const std::string& configured);

/// Whether one exec reaches the network: always under "always", only `install` execs under
/// "install", never under "none".
bool exec_gets_network(const std::string& policy, bool install);

/// The environment an install exec gets from `index` (empty when nothing is configured). pip
/// refuses a plain-http index unless its host is trusted, so the hosts of http:// URLs are listed
/// in PIP_TRUSTED_HOST: the operator chose that index.
std::map<std::string, std::string> install_env(const package_index& index);

}  // namespace r2r::plugins::sandbox
