// SPDX-License-Identifier: MIT
#include "pull_progress.hpp"

#include <cstdio>

namespace r2r::plugins::sandbox::docker {
namespace {

std::string megabytes(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(bytes) / 1e6);
  return buf;
}

}  // namespace

std::vector<std::string> pull_progress::feed(const nlohmann::json& m) {
  if (!m.is_object()) return {};
  if (m.contains("error")) {
    error_ = m["error"].is_string() ? m["error"].get<std::string>() : m["error"].dump();
    return {"error: " + error_};
  }
  const std::string status = m.value("status", std::string());
  if (status.rfind("Digest: ", 0) == 0) digest_ = status.substr(8);
  const std::string id = m.contains("id") && m["id"].is_string() ? m["id"].get<std::string>() : std::string();
  // Layer-less messages, and the "Pulling from <repo>" line whose id is the tag: plain events.
  if (id.empty() || status.rfind("Pulling from", 0) == 0)
    return status.empty() ? std::vector<std::string>{} : std::vector<std::string>{status};
  layer* l = nullptr;
  for (auto& x : layers_) {
    if (x.id == id) l = &x;
  }
  if (l == nullptr) {
    layers_.push_back({id, "", 0, 0});
    l = &layers_.back();
  }
  const auto detail = m.value("progressDetail", nlohmann::json::object());
  if (detail.is_object()) {
    l->current = detail.value("current", l->current);
    l->total = detail.value("total", l->total);
  }
  if (status == l->status) return {};
  l->status = status;
  return {"layer " + id + ": " + status};
}

std::vector<std::string> pull_progress::layer_lines() const {
  std::vector<std::string> out;
  for (const auto& l : layers_) {
    std::string line = l.id + ": " + l.status;
    if (l.total > 0 && (l.status == "Downloading" || l.status == "Extracting")) {
      line += " " + megabytes(l.current) + "/" + megabytes(l.total) + " MB";
    }
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace r2r::plugins::sandbox::docker
