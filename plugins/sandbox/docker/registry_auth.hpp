// SPDX-License-Identifier: MIT
// Registry credentials for pulls, from the engine's usual client config (what `docker login`
// writes): $DOCKER_CONFIG/config.json, else ~/.docker/config.json, its "auths" entries. Credential
// helpers (credsStore, credHelpers) are not run: a registry only they know is pulled anonymously
// and the caller is told so. Pure functions except load_docker_config.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace r2r::plugins::sandbox::docker {

/// A reference split for POST /images/create: "reg:5000/a/b:1" -> {"reg:5000/a/b", "1"};
/// "a/b@sha256:…" -> {"a/b", "sha256:…"}; no tag -> "latest".
struct image_ref {
  std::string name;
  std::string tag;
};
image_ref split_image_ref(const std::string& ref);

/// The registry host of a reference: its first component when that has a '.' or ':' or is
/// "localhost", else "docker.io".
std::string registry_of(const std::string& ref);

/// The client config (an empty object when there is none or it is not JSON).
nlohmann::json load_docker_config();

/// The X-Registry-Auth value for `registry` (base64url of {"username","password","serveraddress"}
/// or {"identitytoken", …}), or "" when `config` holds no usable "auths" entry for it. docker.io
/// is looked up under "https://index.docker.io/v1/" as the docker CLI stores it.
std::string registry_auth_header(const nlohmann::json& config, const std::string& registry);

/// Whether `config` names a credential helper for `registry` (credHelpers, or a credsStore).
bool has_credential_helper(const nlohmann::json& config, const std::string& registry);

}  // namespace r2r::plugins::sandbox::docker
