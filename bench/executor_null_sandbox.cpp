// SPDX-License-Identifier: MIT
// A sandbox plugin for the executor overhead benchmark: every call returns at once. exec answers
// with a fixed 6 KB output (so compaction and redaction have work), checkpoints do nothing, and
// the workspace is the host directory given at create. Not for real use.
#include <r2r/sdk/plugin.hpp>

#include <string>

namespace {

struct null_sandbox {
  null_sandbox() {
    for (int i = 0; i < 120; ++i) output += "step " + std::to_string(i) + ": loss 0.123456 lr 0.001 ok\n";
    output += "Traceback (most recent call last):\nRuntimeError: HIP error: invalid device function\n";
  }
  nlohmann::json create(const nlohmann::json& r) {
    return {{"sandbox_id", "null1"},
            {"engine", "bwrap"},
            {"workspace", r.value("workspace", std::string())},
            {"sandbox_workspace", "/workspace"},
            {"env", nlohmann::json::object()}};
  }
  nlohmann::json exec(const nlohmann::json&) {
    return {{"exit_code", 1},
            {"stdout", output},
            {"stderr", output},
            {"stdout_encoding", "utf-8"},
            {"stderr_encoding", "utf-8"},
            {"stdout_bytes", output.size()},
            {"stderr_bytes", output.size()},
            {"truncated", false},
            {"timed_out", false},
            {"oom_killed", false},
            {"duration_ms", 0}};
  }
  nlohmann::json checkpoint(const nlohmann::json& r) { return {{"checkpoint", r.at("name")}, {"image", ""}}; }
  nlohmann::json rollback(const nlohmann::json& r) {
    return {{"sandbox_id", r.at("sandbox_id")}, {"checkpoint", r.at("checkpoint")}};
  }
  nlohmann::json copy(const nlohmann::json&) { return {{"bytes", 0}}; }
  nlohmann::json destroy(const nlohmann::json&) { return {{"removed", nlohmann::json::array()}}; }
  nlohmann::json info(const nlohmann::json&) {
    return {{"engine", "bwrap"}, {"version", "null"}, {"endpoint", "null"}, {"features", nlohmann::json::array()}};
  }
  nlohmann::json cleanup(const nlohmann::json&) { return {{"removed", nlohmann::json::array()}}; }
  static r2r::sdk::method_table<null_sandbox> methods() {
    return {r2r::sdk::method("create", &null_sandbox::create),
            r2r::sdk::method("exec", &null_sandbox::exec),
            r2r::sdk::method("checkpoint", &null_sandbox::checkpoint),
            r2r::sdk::method("rollback", &null_sandbox::rollback),
            r2r::sdk::method("copy_in", &null_sandbox::copy),
            r2r::sdk::method("copy_out", &null_sandbox::copy),
            r2r::sdk::method("destroy", &null_sandbox::destroy),
            r2r::sdk::method("info", &null_sandbox::info),
            r2r::sdk::method("cleanup", &null_sandbox::cleanup)};
  }
  std::string output;
};

}  // namespace

R2R_PLUGIN(null_sandbox, R2R_KIND_SANDBOX, "bench.sandbox.null", "1.0.0", "returns at once (benchmark only)",
           R"({"type":"object"})", "{}")
