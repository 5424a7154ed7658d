// SPDX-License-Identifier: MIT
#include "bundle_fixture.hpp"

#include "../unit/test_support.hpp"

#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_registry.hpp>
#include <r2r/report/manifest.hpp>
#include <r2r/report/signing.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace r2r::test {
namespace {

/// The judge answer of r2r.verifier.mode1-cuda (built beside the tests) for `capture`.
std::pair<std::string, nlohmann::json> judge_cuda(const nlohmann::json& plan, const nlohmann::json& capture) {
  auto registry = r2r::core::plugin_registry::load({{plugin_dir(), "test"}});
  if (!registry) throw std::runtime_error(registry.error().to_string());
  const auto* plugin = registry->find("r2r.verifier.mode1-cuda");
  if (plugin == nullptr) throw std::runtime_error("r2r.verifier.mode1-cuda is not built in " + plugin_dir().string());
  auto instance = r2r::core::plugin_instance::create(*plugin, nlohmann::json::object());  // as verify does
  if (!instance) throw std::runtime_error(instance.error().to_string());
  auto response = (*instance)->call("judge", {{"plan", plan}, {"mode", 1}, {"capture", capture}});
  if (!response) throw std::runtime_error(response.error().to_string());
  response->erase("capture");
  return {plugin->info.version, *response};
}

}  // namespace

nlohmann::json h200_capture(const std::string& name) {
  return nlohmann::json::parse(
      slurp(env_path("R2R_SOURCE_DIR") / "tests/data/h200/trust/captures" / (name + ".capture.json")));
}

std::string trajectory_line(int turn, const std::string& type, const std::string& command, const std::string& decision,
                            int exit_code, const std::string& ledger_json, const std::string& guard) {
  nlohmann::json rec = {
      {"turn", turn},
      {"timestamp", "2026-01-02T03:04:" + std::to_string(10 + turn) + "Z"},
      {"action", {{"type", type}, {"command", command}}},
      {"rationale", "fixture"},
      {"state", "running"},
      {"usage", {{"input_tokens", 1000 * turn}, {"output_tokens", 100 * turn}, {"cost_usd", 0.01 * turn}}},
      {"decision",
       {{"decision", decision},
        {"guard", guard},
        {"reason", decision == "deny" ? "denied by fixture" : ""},
        {"unlock", ""},
        {"ledger", nlohmann::json::parse(ledger_json)}}},
      {"observation",
       {{"exit_code", exit_code},
        {"stdout", ""},
        {"stderr", ""},
        {"truncated", false},
        {"timed_out", false},
        {"seconds", 0.5},
        {"error_signature", ""}}},
      {"evidence", nlohmann::json::array()}};
  return rec.dump() + "\n";
}

r2r::report::bundle_inputs make_bundle_inputs(const std::filesystem::path& dir, const bundle_fixture_options& o) {
  namespace fs = std::filesystem;
  const auto repo = dir / "repo";
  fs::create_directories(repo);
  std::ofstream(repo / "train.py") << "import os\nprint('training')\n";
  std::ofstream(repo / "README.md") << "# fixture\n";
  const auto tar = run_process("tar -C '" + repo.string() + "' -cf '" + (dir / "repo.tar").string() + "' .");
  if (tar.exit_code != 0) throw std::runtime_error("tar failed: " + tar.err);

  const std::string sha(40, 'a');
  nlohmann::json plan = {
      {"schema_version", 1},
      {"repository",
       {{"source", "https://example.org/org/fixture"}, {"url", "https://example.org/org/fixture"}, {"commit", sha}}},
      {"arch", "gfx942"},
      {"base_image", {{"ref", o.base_image}, {"source", "ranker"}, {"reasons", {"fixture image"}}}},
      {"candidates",
       {{{"ref", o.base_image},
         {"score", 1.0},
         {"reasons", nlohmann::json::array()},
         {"risks", nlohmann::json::array()}},
        {{"ref", "local/r2r-bundle-alt:test"},
         {"score", 0.5},
         {"reasons", nlohmann::json::array()},
         {"risks", nlohmann::json::array()}}}},
      {"install_steps",
       {{{"id", "deps"}, {"kind", "pip"}, {"command", "echo plan-step >> /tmp/r2r-steps.log"}, {"reason", "fixture"}}}},
      {"skipped_packages", nlohmann::json::array()},
      {"kernel_builds",
       {{{"kind", "package"},
         {"name", "flash-attn"},
         {"step", "deps"},
         {"note", "ROCm build"},
         {"file", "requirements.txt"},
         {"line", 1}},
        {{"kind", "setup_extension"},
         {"name", "fused_ops"},
         {"step", nullptr},
         {"note", "hipified"},
         {"file", "setup.py"},
         {"line", 3}}}},
      {"hazards", nlohmann::json::array()},
      {"workload",
       {{"command", o.workload},
        {"kind", "train"},
        {"launcher", "shell"},
        {"source", "readme"},
        {"reason", "fixture"},
        {"file", "README.md"},
        {"line", 1}}},
      {"rejected_commands", nlohmann::json::array()},
      {"env", {{"PYTORCH_ROCM_ARCH", "gfx942"}}},
      {"validation", nlohmann::json::array()},
      {"metric", nullptr},
      {"metric_note", ""}};

  std::string trajectory =
      trajectory_line(1, "run", "ls", "allow", 0) +
      trajectory_line(2, "install", "echo executor-install >> /tmp/r2r-steps.log", "allow", 0) +
      trajectory_line(3, "install", "echo failed-install >> /tmp/r2r-steps.log", "allow", 1) +
      trajectory_line(4, "run", "FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE python train.py", "allow", 0,
                      R"([{"component": "flash-attn", "level": "D1", "note": "Triton AMD backend of flash-attn"}])",
                      "r2r.guard.accelerator-swap");
  int turn = 5;
  for (const auto& c : o.extra_commands) trajectory += trajectory_line(turn++, "run", c, "allow", 0);
  std::ofstream(dir / "trajectory.jsonl") << trajectory;
  std::ofstream(dir / "commands.log") << "sandbox\t0\t0.10\tls\nsandbox\t0\t0.50\tpython train.py\n";

  const std::string executed = o.executed_workload.empty() ? o.workload : o.executed_workload;
  // Mode 1's five checks, as r2r.verifier.mode1-rocm names them.
  nlohmann::json checks = nlohmann::json::array();
  for (const char* name :
       {"workload_exit", "kernels_on_gpu", "no_cpu_fallback", "accelerator_components", "scale_as_planned"})
    checks.push_back(
        {{"name", name}, {"status", o.verdict == "pass" ? "pass" : "not_verified"}, {"detail", "fixture"}});
  nlohmann::json response = {
      {"verdict", o.verdict},
      {"summary", "fixture verifier"},
      {"checks", checks},
      {"evidence",
       {{{"kind", "kernel_trace"}, {"detail", "42 kernels on gfx942"}, {"source", "rocprofv3 --kernel-trace"}},
        {{"kind", "probe"},
         {"detail", "torch sees gfx942"},
         {"source", "python -c probe"},
         {"data", {{"rocm_version", "6.2.0"}, {"torch_version", "2.5.1+rocm6.2"}}}}}},
      {"workload", {{"command", executed}, {"exit_code", 0}, {"seconds", 12.5}, {"log", "ok"}}},
      {"ledger", nlohmann::json::array()}};
  if (o.verdict == "no_device") {
    response["evidence"] = nlohmann::json::array();
    response.erase("workload");
  }

  r2r::report::bundle_inputs in;
  if (o.judged) {
    const bool pass = o.verdict == "pass";
    plan["workload"]["command"] = pass ? "python3 honest.py 20" : "python3 cpu_cheat_train.py --steps 100";
    plan["kernel_builds"] = nlohmann::json::array();
    const auto capture = h200_capture(pass ? "honest" : "cpu-cheat");
    auto [version, judged] = judge_cuda(plan, capture);
    in.verifiers = {{"r2r.verifier.mode1-cuda", version, judged, capture}};
  }
  in.plan = plan;
  in.repo_archive = dir / "repo.tar";
  in.patch_diff =
      "--- a/train.py\n+++ b/train.py\n@@ -1,2 +1,3 @@\n+# ported by repo2rocm\n import os\n print('training')\n";
  in.trajectory = dir / "trajectory.jsonl";
  in.commands_log = dir / "commands.log";
  in.host_commands = {{"repo2rocm plan https://example.org/org/fixture --arch gfx942", 0, 1.5},
                      {"docker build -t r2r-run:1 plan/", 0, 30.25}};
  if (!o.judged) in.verifiers = {{"r2r.verifier.fixture", "1.0.0", response, nullptr}};
  in.mode = 1;
  in.repo2rocm_version = "0.1.0";
  in.plugins = {{"r2r.guard.accelerator-swap", "1.0.0"}, {"r2r.verifier.fixture", "1.0.0"}};
  in.image_used = o.base_image;
  in.environment_freeze = std::vector<std::string>{"torch==2.5.1+rocm6.2", "numpy==1.26.4"};
  in.wall_seconds = 95.5;
  in.state_dir = dir / "state";  // the host's bundle key is made here on first use
  return in;
}

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void reseal(const std::filesystem::path& bundle) {
  const auto entries = r2r::report::hash_directory(bundle);
  ASSERT_TRUE(entries) << entries.error().to_string();
  std::ofstream(bundle / "MANIFEST.sha256", std::ios::trunc) << r2r::report::render_manifest(*entries);
}

void resign(const std::filesystem::path& bundle, const std::filesystem::path& state_dir) {
  reseal(bundle);
  const auto key = r2r::report::host_signing_key(state_dir);
  ASSERT_TRUE(key) << key.error().to_string();
  const auto sig = r2r::report::sign_manifest(*key, slurp(bundle / "MANIFEST.sha256"));
  ASSERT_TRUE(sig) << sig.error().to_string();
  std::ofstream(bundle / "MANIFEST.sig", std::ios::trunc) << *sig;
}

void edit_json(const std::filesystem::path& file, const std::function<void(nlohmann::json&)>& edit) {
  auto doc = nlohmann::json::parse(slurp(file));
  edit(doc);
  std::ofstream(file, std::ios::trunc) << doc.dump(2) << "\n";
}

process_result verify_bundle_cli(const std::filesystem::path& bundle, const std::string& args) {
  return run_process((env_path("R2R_BIN_DIR") / "repo2rocm").string() + " verify '" + bundle.string() + "' " + args);
}

}  // namespace r2r::test
