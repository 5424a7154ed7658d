// SPDX-License-Identifier: MIT
#include "dockerfile.hpp"

#include <r2r/sdk/error.hpp>

#include <filesystem>

namespace r2r::plugins::sandbox::docker {
namespace {

void no_newline(const std::string& what, const std::string& value) {
  if (value.find_first_of("\r\n") != std::string::npos) {
    throw sdk::invalid_argument(what + " must be one line; found a newline in \"" + value.substr(0, 80) + "\"");
  }
}

// A JSON string is a valid double-quoted Dockerfile value (same escapes for \" and \\).
std::string quoted(const std::string& value) {
  return nlohmann::json(value).dump();
}

}  // namespace

void from_json(const nlohmann::json& j, build_request& r) {
  r.context_dir = j.value("context_dir", std::string());
  r.build_args = j.value("build_args", std::map<std::string, std::string>{});
  r.network = j.value("network", false);
  r.nocache = j.value("nocache", false);
  if (!r.context_dir.empty()) {
    for (const char* key : {"from", "env", "files", "files_dest", "run", "workdir"})
      if (j.contains(key))
        throw sdk::invalid_argument(std::string("build request: \"") + key +
                                    "\" is not allowed with \"context_dir\" (the Dockerfile there is built as it is)");
    r.tag = j.value("tag", std::string());
    return;
  }
  if (!j.contains("from"))
    throw sdk::invalid_argument("build request: \"from\" (the base image) or \"context_dir\" is required");
  r.from = j.at("from").get<std::string>();
  r.env = j.value("env", std::map<std::string, std::string>{});
  r.files = j.value("files", std::map<std::string, std::string>{});
  r.files_dest = j.value("files_dest", std::string("/opt/r2r"));
  r.run = j.value("run", std::vector<std::string>{});
  r.workdir = j.value("workdir", std::string());
  r.tag = j.value("tag", std::string());
}

std::string generate_dockerfile(const build_request& r, const std::map<std::string, std::string>& labels) {
  if (r.from.empty()) throw sdk::invalid_argument("build request: \"from\" (the base image) is required");
  no_newline("from", r.from);
  std::string text = "FROM " + r.from + "\n";
  if (!labels.empty()) {
    text += "LABEL";
    for (const auto& [k, v] : labels) text += " " + quoted(k) + "=" + quoted(v);
    text += "\n";
  }
  for (const auto& [k, v] : r.env) {
    if (k.empty() || k.find_first_of(" =\"\r\n") != std::string::npos) {
      throw sdk::invalid_argument("build request: bad environment variable name \"" + k + "\"");
    }
    no_newline("env " + k, v);
    text += "ENV " + k + "=" + quoted(v) + "\n";
  }
  if (!r.files.empty()) {
    for (const auto& [name, content] : r.files) {
      const std::filesystem::path p(name);
      bool bad = name.empty() || p.is_absolute();
      for (const auto& part : p) bad = bad || part == "..";
      if (bad) throw sdk::invalid_argument("build request: file name \"" + name + "\" must be relative without '..'");
    }
    no_newline("files_dest", r.files_dest);
    text += "COPY [\"files/\", " + quoted(r.files_dest + "/") + "]\n";
  }
  if (!r.workdir.empty()) {
    no_newline("workdir", r.workdir);
    text += "WORKDIR " + r.workdir + "\n";
  }
  for (const auto& command : r.run) {
    no_newline("run", command);
    text += "RUN " + command + "\n";
  }
  return text;
}

}  // namespace r2r::plugins::sandbox::docker
