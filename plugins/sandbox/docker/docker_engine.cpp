// SPDX-License-Identifier: MIT
#include "docker_engine.hpp"

#include "frame_demuxer.hpp"
#include "registry_auth.hpp"

#include <r2r/sdk/error.hpp>

#include <fstream>
#include <sstream>
#include <thread>

namespace r2r::plugins::sandbox::docker {
namespace {

using clock = std::chrono::steady_clock;
constexpr std::string_view pid_marker = "r2r-pid:";

// The engine's message from an error body ({"message": ...}), or the body itself.
std::string engine_message(const std::string& body) {
  try {
    const auto j = nlohmann::json::parse(body);
    if (j.is_object() && j.contains("message")) return j["message"].get<std::string>();
  } catch (...) {
  }
  return body.substr(0, 500);
}

[[noreturn]] void http_failure(const std::string& what, const unix_http::response& r) {
  throw sdk::failed(what + ": engine answered HTTP " + std::to_string(r.status) + ": " + engine_message(r.body));
}

nlohmann::json parse_json(const std::string& what, const std::string& body) {
  try {
    return nlohmann::json::parse(body);
  } catch (const nlohmann::json::exception& e) {
    throw sdk::failed(what + ": the engine's answer is not JSON: " + std::string(e.what()));
  }
}

std::string label_filter(const std::string& key, const std::string& value) {
  const std::string term = value.empty() ? key : key + "=" + value;
  return url_encode(nlohmann::json{{"label", {term}}}.dump());
}

}  // namespace

std::vector<std::string> exec_wrapper(const std::string& command) {
  return {"/bin/sh", "-c", "echo r2r-pid:$$ >&2; exec /bin/sh -c \"$1\"", "r2r-exec", command};
}

docker_engine::docker_engine(std::string socket, std::string api_version, std::chrono::milliseconds timeout)
    : http_(std::move(socket), "/v" + api_version, timeout) {}

void docker_engine::ping() const {
  const auto r = http_.request("GET", "/_ping");
  if (r.status != 200) http_failure("ping", r);
}

nlohmann::json docker_engine::version() const {
  const auto r = http_.request("GET", "/version");
  if (r.status != 200) http_failure("version", r);
  return parse_json("version", r.body);
}

std::optional<nlohmann::json> docker_engine::inspect_image(const std::string& name) const {
  const auto r = http_.request("GET", "/images/" + url_encode(name) + "/json");
  if (r.status == 404) return std::nullopt;
  if (r.status != 200) http_failure("inspect image " + name, r);
  return parse_json("inspect image", r.body);
}

void docker_engine::pull_image(const std::string& ref, const std::string& auth,
                               const std::function<void(const nlohmann::json&)>& on_message,
                               const std::function<bool()>& should_stop) const {
  const auto [name, tag] = split_image_ref(ref);
  unix_http::stream_options o;
  if (!auth.empty()) o.headers.push_back("X-Registry-Auth: " + auth);
  std::string pending;
  std::string error;
  o.sink = [&](std::string_view chunk) {  // newline-delimited JSON progress messages
    pending.append(chunk);
    std::size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      const std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) continue;
      if (j.contains("error")) error = j["error"].is_string() ? j["error"].get<std::string>() : j["error"].dump();
      if (on_message) on_message(j);
    }
  };
  o.should_stop = should_stop;
  const auto r = http_.stream("POST", "/images/create?fromImage=" + url_encode(name) + "&tag=" + url_encode(tag), o);
  if (r.stopped) throw sdk::cancelled("pull of " + ref + " cancelled by the host");
  if (r.status != 200) http_failure("pull " + ref, {r.status, r.error_body});
  if (!error.empty()) throw sdk::failed("pull " + ref + " failed: " + error);
}

std::string docker_engine::build_image(const std::filesystem::path& context_tar, const std::string& tag,
                                       const std::map<std::string, std::string>& labels,
                                       const build_options& options) const {
  unix_http::stream_options o;
  o.upload_file = context_tar;
  o.content_type = "application/x-tar";
  std::string log;
  std::string pending;
  std::string image_id;
  std::string error;
  std::string last_step;
  o.sink = [&](std::string_view chunk) {  // newline-delimited JSON progress messages
    pending.append(chunk);
    std::size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      const std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) continue;
      if (j.contains("stream") && j["stream"].is_string()) {
        const std::string text = j["stream"].get<std::string>();
        if (log.size() < 16384) log += text;
        // dockerd's classic builder announces each instruction as "Step N/M : …", Podman as
        // "STEP N/M: …": the last one announced is the one that failed (kept past the log's cap).
        for (std::size_t at = 0; at < text.size();) {
          const std::size_t end = std::min(text.find('\n', at), text.size());
          const std::string announced = text.substr(at, end - at);
          if (announced.rfind("Step ", 0) == 0 || announced.rfind("STEP ", 0) == 0) last_step = announced;
          at = end + 1;
        }
      }
      if (j.contains("error")) error = j["error"].is_string() ? j["error"].get<std::string>() : j["error"].dump();
      if (j.contains("aux") && j["aux"].is_object() && j["aux"].contains("ID")) image_id = j["aux"]["ID"];
    }
  };
  std::string query = "/build?t=" + url_encode(tag) + "&rm=1&forcerm=1&networkmode=" + url_encode(options.network) +
                      "&labels=" + url_encode(nlohmann::json(labels).dump());
  if (!options.build_args.empty()) query += "&buildargs=" + url_encode(nlohmann::json(options.build_args).dump());
  if (options.nocache) query += "&nocache=1";
  const auto r = http_.stream("POST", query, o);
  if (r.status != 200) http_failure("build " + tag, {r.status, r.error_body});
  if (!error.empty()) {
    throw sdk::failed("build " + tag + " failed" + (last_step.empty() ? std::string() : " at " + last_step) + ": " +
                      error + "\nbuild log:\n" + log);
  }
  if (image_id.empty()) {  // engines that do not send aux.ID: ask for the tag
    const auto image = inspect_image(tag);
    if (!image) throw sdk::failed("build " + tag + " reported success but the image is missing\n" + log);
    image_id = (*image)["Id"].get<std::string>();
  }
  return image_id;
}

std::string docker_engine::commit(const std::string& container, const std::string& repo, const std::string& tag,
                                  const std::map<std::string, std::string>& labels) const {
  // Podman reads labels from `changes`; dockerd from the config body. Send both.
  std::string changes;
  for (const auto& [k, v] : labels) changes += "&changes=" + url_encode("LABEL " + k + "=" + v);
  const nlohmann::json body{{"Labels", labels}};
  const auto r = http_.request("POST",
                               "/commit?container=" + url_encode(container) + "&repo=" + url_encode(repo) +
                                   "&tag=" + url_encode(tag) + "&pause=true" + changes,
                               body.dump());
  if (r.status != 201 && r.status != 200) http_failure("commit " + container, r);
  return parse_json("commit", r.body).at("Id").get<std::string>();
}

void docker_engine::remove_image(const std::string& image) const {
  const auto r = http_.request("DELETE", "/images/" + url_encode(image) + "?force=1");
  if (r.status != 200 && r.status != 404) http_failure("remove image " + image, r);
}

std::vector<std::string> docker_engine::images_with_label(const std::string& key, const std::string& value) const {
  const auto r = http_.request("GET", "/images/json?all=1&filters=" + label_filter(key, value));
  if (r.status != 200) http_failure("list images", r);
  std::vector<std::string> ids;
  for (const auto& image : parse_json("list images", r.body)) ids.push_back(image.at("Id").get<std::string>());
  return ids;
}

std::string docker_engine::create_container(const nlohmann::json& body, const std::string& name) const {
  const auto r = http_.request("POST", "/containers/create?name=" + url_encode(name), body.dump());
  if (r.status != 201) http_failure("create container " + name, r);
  return parse_json("create container", r.body).at("Id").get<std::string>();
}

void docker_engine::start_container(const std::string& id) const {
  const auto r = http_.request("POST", "/containers/" + id + "/start");
  if (r.status != 204 && r.status != 304) http_failure("start container " + id, r);
}

nlohmann::json docker_engine::inspect_container(const std::string& id) const {
  const auto r = http_.request("GET", "/containers/" + id + "/json");
  if (r.status != 200) http_failure("inspect container " + id, r);
  return parse_json("inspect container", r.body);
}

void docker_engine::remove_container(const std::string& id) const {
  if (id.empty()) return;  // already removed (a sandbox that could not be detached from its network)
  const auto r = http_.request("DELETE", "/containers/" + id + "?force=1&v=1");
  if (r.status != 204 && r.status != 200 && r.status != 404) http_failure("remove container " + id, r);
}

std::vector<std::string> docker_engine::containers_with_label(const std::string& key, const std::string& value) const {
  const auto r = http_.request("GET", "/containers/json?all=1&filters=" + label_filter(key, value));
  if (r.status != 200) http_failure("list containers", r);
  std::vector<std::string> ids;
  for (const auto& c : parse_json("list containers", r.body)) ids.push_back(c.at("Id").get<std::string>());
  return ids;
}

void docker_engine::connect_network(const std::string& network, const std::string& container) const {
  const nlohmann::json body{{"Container", container}};
  const auto r = http_.request("POST", "/networks/" + url_encode(network) + "/connect", body.dump());
  if (r.status != 200) http_failure("connect " + container.substr(0, 12) + " to network " + network, r);
}

void docker_engine::disconnect_network(const std::string& network, const std::string& container) const {
  const nlohmann::json body{{"Container", container}, {"Force", true}};
  const auto r = http_.request("POST", "/networks/" + url_encode(network) + "/disconnect", body.dump());
  if (r.status == 200) return;
  // Not attached (dockerd: "is not connected to"; Podman: "not connected to network"): nothing to undo.
  if (engine_message(r.body).find("not connected") != std::string::npos) return;
  http_failure("disconnect " + container.substr(0, 12) + " from network " + network, r);
}

std::vector<std::string> docker_engine::container_networks(const std::string& container) const {
  const auto info = inspect_container(container);
  std::vector<std::string> names;
  const auto settings = info.value("NetworkSettings", nlohmann::json::object());
  const auto networks = settings.is_object() ? settings.value("Networks", nlohmann::json::object()) : nlohmann::json();
  if (networks.is_object()) {
    for (const auto& [name, endpoint] : networks.items()) {
      if (name != "none") names.push_back(name);
    }
  }
  return names;
}

exec_outcome docker_engine::exec(const std::string& container, const exec_spec& spec) const {
  const auto started = clock::now();
  nlohmann::json create{{"AttachStdin", false}, {"AttachStdout", true}, {"AttachStderr", true},
                        {"Tty", false},         {"Cmd", spec.cmd},      {"Env", spec.env}};
  if (!spec.workdir.empty()) create["WorkingDir"] = spec.workdir;
  const auto created = http_.request("POST", "/containers/" + container + "/exec", create.dump());
  if (created.status != 201) http_failure("exec in " + container, created);
  const std::string exec_id = parse_json("exec", created.body).at("Id").get<std::string>();

  exec_outcome outcome;
  outcome.out = plugins::sandbox::capped_output(spec.max_output_bytes);
  outcome.err = plugins::sandbox::capped_output(spec.max_output_bytes);
  std::string pid_line;  // stderr up to the wrapper's first newline
  bool pid_done = false;
  long pid = 0;
  frame_demuxer demux([&](frame_demuxer::stream s, std::string_view bytes) {
    if (s == frame_demuxer::stream::stdout_) return outcome.out.append(bytes);
    if (!pid_done) {
      const auto nl = bytes.find('\n');
      pid_line.append(bytes.substr(0, nl));
      if (nl == std::string_view::npos && pid_line.size() < 64) return;
      pid_done = true;
      if (pid_line.rfind(pid_marker, 0) == 0) {
        pid = std::strtol(pid_line.c_str() + pid_marker.size(), nullptr, 10);
      } else {
        outcome.err.append(pid_line);  // not our marker (a custom cmd): keep it as output
        if (nl != std::string_view::npos) outcome.err.append("\n");
      }
      if (nl == std::string_view::npos) return;
      bytes.remove_prefix(nl + 1);
    }
    outcome.err.append(bytes);
  });
  const auto deadline = spec.timeout.count() > 0 ? started + spec.timeout : clock::time_point::max();
  unix_http::stream_options o;
  o.body = nlohmann::json{{"Detach", false}, {"Tty", false}}.dump();
  o.sink = [&](std::string_view chunk) { demux.feed(chunk); };
  o.should_stop = [&] {
    if (clock::now() >= deadline) return outcome.timed_out = true;
    if (spec.cancelled && spec.cancelled()) return outcome.cancelled = true;
    return false;
  };
  const auto r = http_.stream("POST", "/exec/" + exec_id + "/start", o);
  if (r.status != 200 && r.status != 101) http_failure("start exec in " + container, {r.status, r.error_body});
  if (r.stopped && pid > 0) {
    // Kill the command's whole process group from inside: works for any engine, local or not.
    exec_simple(container, {"kill", "-9", "-" + std::to_string(pid)});
  }
  // The stream ends when the process exits; the exit code may lag the stream by a moment.
  for (int attempt = 0; attempt < 200; ++attempt) {
    const auto info = http_.request("GET", "/exec/" + exec_id + "/json");
    if (info.status != 200) http_failure("inspect exec", info);
    const auto j = parse_json("inspect exec", info.body);
    if (!j.value("Running", false)) {
      outcome.exit_code = j.contains("ExitCode") && j["ExitCode"].is_number() ? j["ExitCode"].get<int>() : -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(attempt < 20 ? 5 : 50));
  }
  if ((outcome.timed_out || outcome.cancelled) && outcome.exit_code < 0) outcome.exit_code = 137;
  outcome.duration = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - started);
  return outcome;
}

std::pair<int, std::string> docker_engine::exec_simple(const std::string& container,
                                                       const std::vector<std::string>& cmd) const {
  exec_spec spec;
  spec.cmd = cmd;
  spec.timeout = std::chrono::seconds(30);
  spec.max_output_bytes = 64 * 1024;
  auto outcome = exec(container, spec);
  return {outcome.exit_code, outcome.out.render()};
}

void docker_engine::put_archive(const std::string& container, const std::string& path,
                                const std::filesystem::path& tar) const {
  unix_http::stream_options o;
  o.upload_file = tar;
  o.content_type = "application/x-tar";
  const auto r = http_.stream("PUT", "/containers/" + container + "/archive?path=" + url_encode(path), o);
  if (r.status != 200) http_failure("copy into " + container + ":" + path, {r.status, r.error_body});
}

std::uintmax_t docker_engine::get_archive(const std::string& container, const std::string& path,
                                          const std::filesystem::path& tar) const {
  std::ofstream out(tar, std::ios::binary | std::ios::trunc);
  if (!out) throw sdk::failed("cannot write " + tar.string());
  std::uintmax_t size = 0;
  unix_http::stream_options o;
  o.sink = [&](std::string_view chunk) {
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    size += chunk.size();
  };
  const auto r = http_.stream("GET", "/containers/" + container + "/archive?path=" + url_encode(path), o);
  if (r.status != 200) http_failure("copy out of " + container + ":" + path, {r.status, r.error_body});
  out.close();
  if (!out) throw sdk::failed("cannot write " + tar.string());
  return size;
}

}  // namespace r2r::plugins::sandbox::docker
