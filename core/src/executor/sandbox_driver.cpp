// SPDX-License-Identifier: MIT
#include "sandbox_driver.hpp"

#include <chrono>

namespace r2r::executor {

namespace {

// Text of an output stream; binary output (base64 on the wire) is not shown, only its size.
std::string stream_text(const nlohmann::json& r, const char* field, const char* encoding, const char* bytes) {
  if (r.value(encoding, std::string("utf-8")) == "base64") {
    return "[binary output, " + std::to_string(r.value(bytes, std::int64_t{0})) + " bytes, not shown]";
  }
  return r.value(field, std::string());
}

}  // namespace

sandbox_driver::sandbox_driver(core::plugin_instance& sandbox, std::filesystem::path workspace, double timeout_s,
                               std::function<void(const std::string&, const raw_observation&)> on_exec,
                               nlohmann::json create_template)
    : sandbox_(sandbox),
      workspace_(std::move(workspace)),
      timeout_s_(timeout_s),
      on_exec_(std::move(on_exec)),
      create_template_(create_template.is_object() ? std::move(create_template) : nlohmann::json::object()) {}

sandbox_driver::~sandbox_driver() {
  destroy();
}

core::result<void> sandbox_driver::create(const std::string& image) {
  destroy();
  nlohmann::json request = create_template_;
  request["workspace"] = workspace_.string();
  request.erase("image");
  if (!image.empty()) request["image"] = image;
  auto r = sandbox_.call("create", request);
  if (!r) return tl::unexpected(r.error());
  id_ = r->at("sandbox_id").get<std::string>();
  sandbox_workspace_ = r->value("sandbox_workspace", std::string("/workspace"));
  image_ = image;
  checkpoints_.clear();
  return {};
}

void sandbox_driver::destroy() noexcept {
  if (id_.empty()) return;
  try {
    (void)sandbox_.call("destroy", {{"sandbox_id", id_}});
  } catch (...) {  // destroy is best effort; the plugin's own destructor cleans up too
  }
  id_.clear();
}

raw_observation sandbox_driver::exec(const std::string& command, bool install) {
  raw_observation o;
  const auto start = std::chrono::steady_clock::now();
  nlohmann::json request{{"sandbox_id", id_}, {"command", command}};
  if (timeout_s_ > 0) request["timeout_s"] = timeout_s_;
  if (install) request["install"] = true;
  auto r = id_.empty() ? core::result<nlohmann::json>(core::fail(core::phase::run, "no live sandbox"))
                       : sandbox_.call("exec", request);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r) {
    o.exit_code = -1;
    o.stderr_text = "the sandbox could not run the command: " + r.error().message;
  } else {
    o.exit_code = r->value("exit_code", -1);
    o.stdout_text = stream_text(*r, "stdout", "stdout_encoding", "stdout_bytes");
    o.stderr_text = stream_text(*r, "stderr", "stderr_encoding", "stderr_bytes");
    o.truncated = r->value("truncated", false);
    o.timed_out = r->value("timed_out", false);
  }
  if (on_exec_) on_exec_(command, o);
  return o;
}

core::result<void> sandbox_driver::copy_in(const std::filesystem::path& host_file, const std::string& dir) {
  const std::string target = dir.empty() || dir == "." ? sandbox_workspace_ : sandbox_workspace_ + "/" + dir;
  auto r = sandbox_.call("copy_in", {{"sandbox_id", id_}, {"host_path", host_file.string()}, {"sandbox_path", target}});
  if (!r) return tl::unexpected(r.error());
  return {};
}

core::result<std::string> sandbox_driver::checkpoint(const std::string& name) {
  auto r = sandbox_.call("checkpoint", {{"sandbox_id", id_}, {"name", name}});
  if (!r) return tl::unexpected(r.error());
  checkpoints_.insert(name);
  return r->value("image", std::string());
}

core::result<void> sandbox_driver::rollback(const std::string& name) {
  auto r = sandbox_.call("rollback", {{"sandbox_id", id_}, {"checkpoint", name}});
  if (!r) return tl::unexpected(r.error());
  return {};
}

}  // namespace r2r::executor
