// SPDX-License-Identifier: MIT
#include "registry_auth.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace r2r::plugins::sandbox::docker {
namespace {

std::string base64(const std::string& in, bool url) {
  const char* table = url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                          : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    out += {table[(v >> 18) & 63], table[(v >> 12) & 63], table[(v >> 6) & 63], table[v & 63]};
  }
  if (i + 1 == in.size()) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += {table[(v >> 18) & 63], table[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out += {table[(v >> 18) & 63], table[(v >> 12) & 63], table[(v >> 6) & 63], '='};
  }
  return out;
}

std::string unbase64(const std::string& in) {
  std::string out;
  unsigned v = 0;
  int bits = 0;
  for (char ch : in) {
    int d = -1;
    if (ch >= 'A' && ch <= 'Z') d = ch - 'A';
    if (ch >= 'a' && ch <= 'z') d = ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') d = ch - '0' + 52;
    if (ch == '+' || ch == '-') d = 62;
    if (ch == '/' || ch == '_') d = 63;
    if (d < 0) continue;
    v = (v << 6) | static_cast<unsigned>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xFF);
    }
  }
  return out;
}

const nlohmann::json* auth_entry(const nlohmann::json& config, const std::string& registry) {
  if (!config.is_object() || !config.contains("auths") || !config["auths"].is_object()) return nullptr;
  const auto& auths = config["auths"];
  const std::string docker_io = "https://index.docker.io/v1/";
  for (const std::string& key : registry == "docker.io"
                                    ? std::vector<std::string>{docker_io, "docker.io", "index.docker.io"}
                                    : std::vector<std::string>{registry, "https://" + registry, "http://" + registry,
                                                               "https://" + registry + "/v2/"}) {
    if (auths.contains(key) && auths[key].is_object()) return &auths[key];
  }
  return nullptr;
}

}  // namespace

image_ref split_image_ref(const std::string& ref) {
  if (const auto at = ref.find('@'); at != std::string::npos) return {ref.substr(0, at), ref.substr(at + 1)};
  const auto slash = ref.rfind('/');
  const auto colon = ref.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    return {ref.substr(0, colon), ref.substr(colon + 1)};
  }
  return {ref, "latest"};
}

std::string registry_of(const std::string& ref) {
  const auto slash = ref.find('/');
  if (slash == std::string::npos) return "docker.io";
  const std::string first = ref.substr(0, slash);
  if (first.find('.') != std::string::npos || first.find(':') != std::string::npos || first == "localhost") {
    return first;
  }
  return "docker.io";
}

nlohmann::json load_docker_config() {
  std::filesystem::path file;
  if (const char* dir = std::getenv("DOCKER_CONFIG"); dir != nullptr && *dir != '\0') {
    file = std::filesystem::path(dir) / "config.json";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    file = std::filesystem::path(home) / ".docker" / "config.json";
  }
  std::ifstream in(file);
  if (!in) return nlohmann::json::object();
  auto j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

std::string registry_auth_header(const nlohmann::json& config, const std::string& registry) {
  const auto* entry = auth_entry(config, registry);
  if (entry == nullptr) return {};
  nlohmann::json auth{{"serveraddress", registry}};
  if (entry->contains("identitytoken") && (*entry)["identitytoken"].is_string()) {
    auth["identitytoken"] = (*entry)["identitytoken"];
  } else if (entry->contains("auth") && (*entry)["auth"].is_string()) {
    const std::string pair = unbase64((*entry)["auth"].get<std::string>());
    const auto colon = pair.find(':');
    if (colon == std::string::npos) return {};
    auth["username"] = pair.substr(0, colon);
    auth["password"] = pair.substr(colon + 1);
  } else if (entry->contains("username") && entry->contains("password")) {
    auth["username"] = (*entry)["username"];
    auth["password"] = (*entry)["password"];
  } else {
    return {};
  }
  return base64(auth.dump(), true);
}

bool has_credential_helper(const nlohmann::json& config, const std::string& registry) {
  if (!config.is_object()) return false;
  if (config.contains("credHelpers") && config["credHelpers"].is_object() && config["credHelpers"].contains(registry)) {
    return true;
  }
  return config.contains("credsStore") && config["credsStore"].is_string();
}

}  // namespace r2r::plugins::sandbox::docker
