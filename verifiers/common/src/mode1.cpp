// SPDX-License-Identifier: MIT
#include <r2r/verify/host_sampler.hpp>
#include <r2r/verify/mode1.hpp>
#include <r2r/verify/nvidia_smi.hpp>
#include <r2r/verify/rocminfo.hpp>
#include <r2r/verify/scale_as_planned.hpp>
#include <r2r/verify/text.hpp>

#include "embedded_scripts.hpp"
#include "mode1_evidence.hpp"
#include "output_encoding.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/kinds/sandbox.hpp>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace r2r::plugins::verifier {
namespace {

namespace v = sdk::verifier;

const bundle_section* find(const std::vector<bundle_section>& s, std::string_view name) {
  for (const auto& x : s)
    if (x.name == name) return &x;
  return nullptr;
}

std::string vendor_word(const mode1_config& cfg) {
  return cfg.vendor == "amd" ? "ROCm" : "NVIDIA";
}

/// Whether the device the workload needs is visible in the sandbox, and what was seen.
std::pair<bool, std::string> device_present(const mode1_config& cfg, const std::vector<bundle_section>& s,
                                            nlohmann::json& data) {
  const auto* nodes = find(s, "device_nodes");
  if (cfg.vendor == "amd") {
    if (nodes == nullptr || nodes->body.find("/dev/kfd") == std::string::npos ||
        nodes->body.find("cannot access '/dev/kfd'") != std::string::npos)
      return {false, "/dev/kfd is not present in the sandbox"};
    const auto* ri = find(s, "rocminfo");
    if (ri == nullptr || trim(ri->body).empty()) return {false, "rocminfo is not installed or printed nothing"};
    try {
      const auto report = parse_rocminfo(ri->body);
      const auto gpus = report.gpus();
      if (gpus.empty()) return {false, "rocminfo lists no GPU agent"};
      for (const auto& g : gpus)
        data.push_back({{"agent", g.number}, {"name", g.name}, {"marketing_name", g.marketing_name}});
      return {true, "rocminfo GPU agent " + gpus.front().name + " (" + gpus.front().marketing_name + ")"};
    } catch (const parse_error& e) {
      return {false, e.what()};
    }
  }
  const auto* q = find(s, "query_gpu");
  if (q == nullptr || trim(q->body).empty()) return {false, "nvidia-smi is not installed or printed nothing"};
  try {
    const auto t = parse_nvidia_smi_query_csv(q->body);
    const auto name = t.column({"name"});
    if (t.rows.empty() || !name) return {false, "nvidia-smi lists no GPU"};
    for (const auto& r : t.rows) data.push_back({{"name", r[*name]}});
    return {true, "nvidia-smi GPU " + t.rows.front()[*name]};
  } catch (const parse_error& e) {
    return {false, e.what()};
  }
}

}  // namespace

void from_json(const nlohmann::json& j, mode1_config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object");
  c.sandbox_service = j.value("sandbox_service", c.sandbox_service);
  c.timeout_s = j.value("timeout_s", c.timeout_s);
  c.sample_interval_s = j.value("sample_interval_s", c.sample_interval_s);
  c.tracer = j.value("tracer", c.tracer);
  if (const auto p = j.find("profile"); p != j.end()) {
    if (p->is_boolean())
      c.profile = p->get<bool>() ? "on" : "off";
    else if (p->is_string() && (*p == "auto" || *p == "on" || *p == "off"))
      c.profile = p->get<std::string>();
    else
      throw sdk::invalid_argument("profile: expected \"auto\", \"on\" or \"off\" (or true / false), found " +
                                  p->dump() + "; \"auto\" runs torch.profiler only when the plan needs kernel names");
  }
  c.max_trace_rows = j.value("max_trace_rows", c.max_trace_rows);
  c.max_log_bytes = j.value("max_log_bytes", c.max_log_bytes);
  c.custom_kernels = j.value("custom_kernels", c.custom_kernels);
  c.workload_uid = j.value("workload_uid", c.workload_uid);
  c.min_gpu_share = j.value("min_gpu_share", c.min_gpu_share);
  c.host_sampler = j.value("host_sampler", c.host_sampler);
  c.host_pmon = j.value("host_pmon", c.host_pmon);
  c.host_tool_dirs = j.value("host_tool_dirs", c.host_tool_dirs);
  if (c.workload_uid <= 0)
    throw sdk::invalid_argument("workload_uid: expected a non-zero uid (the workload must not run as root), found " +
                                std::to_string(c.workload_uid));
  if (c.min_gpu_share < 0 || c.min_gpu_share > 1)
    throw sdk::invalid_argument("min_gpu_share: expected a fraction between 0 and 1, found " +
                                std::to_string(c.min_gpu_share));
  for (const auto& d : c.host_tool_dirs)
    if (d.empty() || d.front() != '/')
      throw sdk::invalid_argument("host_tool_dirs: '" + d + "' is not an absolute host directory");
  if (j.contains("cpu_fallback_patterns")) c.cpu_fallback_patterns = j["cpu_fallback_patterns"];
  if (c.timeout_s <= 0) throw sdk::invalid_argument("timeout_s: expected a positive number of seconds");
  for (const auto& p : c.cpu_fallback_patterns) {
    try {
      std::regex r(p);
    } catch (const std::regex_error& e) {
      throw sdk::invalid_argument("cpu_fallback_patterns: '" + p + "' is not an ECMAScript regular expression (" +
                                  e.what() + "); fix or remove it");
    }
  }
}

mode1_expectations expectations_from_plan(const nlohmann::json& plan, const mode1_config& cfg) {
  mode1_expectations w;
  const auto wl = plan.find("workload");
  if (wl == plan.end() || !wl->is_object() || !wl->contains("command") || !(*wl)["command"].is_string() ||
      (*wl)["command"].get<std::string>().empty()) {
    throw sdk::invalid_argument(
        "plan.workload.command: expected the official workload command, found none. Mode 1 re-runs that command; "
        "complete the plan (repo2rocm plan) before verifying");
  }
  w.command = (*wl)["command"];
  w.custom_kernels = cfg.custom_kernels;
  const auto mentions_flash = [](const std::string& s) {
    const std::string l = lower(s);
    return l.find("flash_attn") != std::string::npos || l.find("flash-attn") != std::string::npos ||
           l.find("flash_attention") != std::string::npos || l.find("flash-attention") != std::string::npos;
  };
  for (const auto& kb : plan.value("kernel_builds", nlohmann::json::array())) {
    const std::string name = kb.value("name", std::string()), kind = kb.value("kind", std::string());
    if (mentions_flash(name))
      w.flash_attention = true;
    else if (kind == "setup_extension" || kind == "jit")
      w.custom_required = true;
    for (const auto& k : kb.value("kernels", std::vector<std::string>{})) w.custom_kernels.push_back(k);
  }
  for (const auto& hz : plan.value("hazards", nlohmann::json::array())) {
    if (mentions_flash(hz.value("kind", std::string())) || mentions_flash(hz.value("detail", std::string())))
      w.flash_attention = true;
  }
  if (!w.custom_kernels.empty()) w.custom_required = true;
  w.components = components_from_plan(plan, cfg.custom_kernels);
  w.scale_files = scale_files_from_plan(plan);
  return w;
}

const std::string& collect_script() {
  static const std::string s(embedded::collect_sh);
  return s;
}
const std::string& probe_source() {
  static const std::string s(embedded::sitecustomize_py);
  return s;
}

bool kernel_names_needed(const mode1_expectations& want) {
  return want.flash_attention || !want.components.builds.empty() || !want.custom_kernels.empty();
}

std::map<std::string, std::string> collect_env(const mode1_config& cfg, const std::string& command, bool names_needed) {
  const auto num = [](double d) {
    std::string s = std::to_string(d);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.ends_with('.')) s.pop_back();
    return s;
  };
  return {{"R2R_VENDOR", cfg.vendor},
          {"R2R_WORKLOAD_CMD", command},
          {"R2R_WORKLOAD_UID", std::to_string(cfg.workload_uid)},
          {"R2R_TIMEOUT_S", num(cfg.timeout_s)},
          {"R2R_INTERVAL_S", num(cfg.sample_interval_s)},
          {"R2R_TRACER", cfg.tracer},
          {"R2R_PROBE_PROFILE", cfg.profile == "on"    ? "1"
                                : cfg.profile == "off" ? "0"
                                                       : "auto"},
          {"R2R_NEED_KERNEL_NAMES", names_needed ? "1" : "0"},
          {"R2R_MAX_ROWS", std::to_string(cfg.max_trace_rows)},
          {"R2R_MAX_LOG_BYTES", std::to_string(cfg.max_log_bytes)},
          {"R2R_PROBE_SOURCE", probe_source()}};
}

sdk::verifier::verify_response judge_mode1(const mode1_config& cfg, const mode1_expectations& want,
                                           const mode1_capture& capture) {
  using namespace mode1_detail;
  v::verify_response r;
  static const char* check_names[] = {"evidence_integrity", "workload_exit",          "kernels_on_gpu",
                                      "no_cpu_fallback",    "accelerator_components", "scale_as_planned"};
  const mode1_evidence ev = read_evidence(cfg, capture);

  if (ev.fence.empty() || !ev.forged.empty()) {  // forged or unreadable output decides nothing else
    const auto integrity = check_evidence_integrity(cfg, capture, ev);
    r.checks.push_back(integrity);
    for (std::size_t i = 1; i < std::size(check_names); ++i)
      r.checks.push_back({check_names[i], "not_verified",
                          ev.fence.empty() ? "no readable collector output" : "the collector output is not intact"});
    r.verdict = integrity.status == "fail" ? "fail" : "not_verified";
    r.summary = "not verified: " + integrity.detail;
    return r;
  }
  nlohmann::json device_data = nlohmann::json::array();
  const auto [present, device_detail] = device_present(cfg, ev.sections, device_data);
  r.evidence.push_back({"device", device_detail, cfg.vendor == "amd" ? "rocminfo" : "nvidia-smi", device_data});
  if (!present) {
    r.verdict = "no_device";
    r.summary = "no " + vendor_word(cfg) + " device: not verified";
    for (const char* n : check_names) r.checks.push_back({n, "not_verified", "no device: " + device_detail});
    return r;
  }

  r.checks.push_back(check_evidence_integrity(cfg, capture, ev));
  r.checks.push_back(check_workload_exit(cfg, capture, ev));
  r.checks.push_back(check_kernels_on_gpu(cfg, ev));
  r.checks.push_back(check_no_cpu_fallback(cfg, ev));
  r.checks.push_back(check_accelerator_components(want, ev, r.ledger, r.evidence));
  r.checks.push_back(check_scale_as_planned(want, capture));

  v::workload_run run = ev.run;
  run.command = want.command;
  r.workload = run;
  r.evidence.push_back({"workload_exit",
                        "exit " + std::to_string(run.exit_code),
                        want.command,
                        {{"exit_code", run.exit_code}, {"seconds", run.seconds}, {"pid", ev.root_pid}}});
  r.evidence.push_back({"privilege_drop", ev.privdrop.empty() ? "none recorded" : ev.privdrop, "collect.sh", nullptr});
  if (ev.dispatch_rows > 0 || ev.have_stats)
    r.evidence.push_back({"kernel_trace",
                          std::to_string(ev.gpu_rows) + " dispatches on GPU agents (in-process tracer)",
                          ev.tracer,
                          {{"dispatch_rows", ev.dispatch_rows}, {"gpu_rows", ev.gpu_rows}}});
  for (const auto& p : ev.probes) {
    nlohmann::json d = {{"pid", p.pid},   {"torch", p.torch_version},       {"hip", p.hip},
                        {"cuda", p.cuda}, {"is_available", p.is_available}, {"allocated_bytes", p.allocated_bytes()}};
    if (!p.devices.empty()) d["device"] = p.devices.front().name, d["arch"] = p.devices.front().arch;
    if (p.kernels) d["kernels"] = p.kernels->size();
    r.evidence.push_back({"probe", "pid " + std::to_string(p.pid) + " (in-process)", "sitecustomize probe", d});
  }
  r.evidence.push_back({"gpu_process",
                        std::to_string(ev.sandbox_samples) +
                            " in-sandbox samples; workload pids listed: " + std::to_string(ev.sandbox_listed.size()),
                        ev.sandbox_tool.empty() ? "none" : ev.sandbox_tool,
                        {{"samples", ev.sandbox_samples},
                         {"pids", std::vector<long long>(ev.sandbox_listed.begin(), ev.sandbox_listed.end())}}});
  const auto& s = ev.share;
  r.evidence.push_back(
      {"gpu_share",
       std::to_string(s.active) + "/" + std::to_string(s.samples) + " host samples busy for the workload",
       ev.host_ran ? s.source : "host sampler did not run: " + ev.host_note,
       {{"share", s.share},
        {"min_share", cfg.min_gpu_share},
        {"samples", s.samples},
        {"attributed", s.attributed},
        {"active", s.active},
        {"host_pids", std::vector<long long>(s.host_pids.begin(), s.host_pids.end())},
        {"max_vram_bytes", s.max_vram_bytes},
        {"source", s.source}}});
  if (ev.host_ran && s.samples > 0) r.metrics["gpu_share"] = s.share;
  for (const auto& p : s.problems) r.evidence.push_back({"parse_problem", p, "host sampler", nullptr});

  bool any_fail = false, any_unverified = false;
  std::string failed;
  for (const auto& c : r.checks) {
    any_fail |= c.status == "fail";
    any_unverified |= c.status != "pass" && c.status != "fail";
    if (c.status != "pass") failed += (failed.empty() ? "" : ", ") + c.name;
  }
  r.verdict = any_fail ? "fail" : any_unverified ? "not_verified" : "pass";
  r.summary = r.verdict == "pass" ? "the workload ran on the " + vendor_word(cfg) + " GPU and every check passed"
                                  : "not verified: " + failed;
  return r;
}

mode1_verifier::mode1_verifier(const mode1_config& cfg, const sdk::host& host) : config_(cfg), host_(host) {}

sdk::verifier::verify_response mode1_verifier::verify(const sdk::verifier::verify_request& request,
                                                      sdk::call_context& ctx) {
  const mode1_expectations want = expectations_from_plan(request.plan, config_);
  if (!request.sandbox) {
    v::verify_response r;
    r.verdict = "error";
    r.summary = "no sandbox to run the workload in: not verified";
    r.checks.push_back({"workload_exit", "not_verified", "the request has no sandbox; pass the final container"});
    return r;
  }
  sdk::sandbox::exec_request exec;
  exec.sandbox_id = request.sandbox->id;
  exec.command = collect_script();
  exec.timeout_s = config_.timeout_s + 120;  // the script's own timeout fires first and keeps the evidence
  exec.max_output_bytes = std::int64_t{16} << 20;
  exec.env = collect_env(config_, want.command, kernel_names_needed(want));
  exec.workdir = request.sandbox->workdir;

  mode1_capture capture;
  capture.vendor = config_.vendor;
  capture.ledger = request.ledger;
  if (!want.scale_files.empty()) {  // before the workload runs: the files as the agent left them
    capture.scale_read.ran = true;
    capture.scale_read.files =
        read_scale_files(ctx, config_.sandbox_service, *request.sandbox, want.scale_files, capture.scale_read.ok);
  }
  host_sampler_config hcfg;
  hcfg.vendor = config_.vendor;
  hcfg.interval_s = config_.sample_interval_s;
  hcfg.tool_dirs = config_.host_tool_dirs;
  hcfg.pmon = config_.host_pmon;
  std::optional<host_sampler> sampler;
  if (config_.host_sampler) {
    const auto [ok, note] = host_sampler_available(hcfg);
    capture.host_sampler = ok;
    capture.host_sampler_note = note;
    capture.host_interval_s = hcfg.interval_s;
    if (ok) sampler.emplace(hcfg).start();
  } else {
    capture.host_sampler_note = "host_sampler is off in the verifier's config";
  }
  host_.info("mode1: running the plan's workload command in sandbox " + exec.sandbox_id);
  sdk::sandbox::exec_response reply;
  try {
    reply = ctx.call_service(config_.sandbox_service, "exec", nlohmann::json(exec)).get<sdk::sandbox::exec_response>();
  } catch (...) {
    if (sampler) (void)sampler->stop();
    throw;
  }
  if (sampler) capture.host_samples = sampler->stop();
  capture.collector.exit_code = reply.exit_code;
  capture.collector.timed_out = reply.timed_out;
  capture.collector.truncated = reply.truncated;
  capture.collector.stdout_text =
      reply.stdout_encoding == "base64" ? plugins::sandbox::base64_decode(reply.stdout_text) : reply.stdout_text;
  capture.nonce = fence_of(capture.collector.stdout_text);
  auto response = judge_mode1(config_, want, capture);
  response.capture = capture;
  return response;
}

sdk::verifier::verify_response mode1_verifier::judge(const sdk::verifier::judge_request& request, sdk::call_context&) {
  const mode1_expectations want = expectations_from_plan(request.plan, config_);
  const auto capture = request.capture.get<mode1_capture>();
  if (capture.vendor != config_.vendor) {  // a capture of the other vendor decides nothing here
    v::verify_response r;
    r.verdict = "error";
    r.summary = "this verifier judges " + config_.vendor + " captures, found a " + capture.vendor +
                " capture; judge it with that vendor's verifier";
    r.checks.push_back({"evidence_integrity", "not_verified", r.summary});
    r.capture = request.capture;
    return r;
  }
  auto response = judge_mode1(config_, want, capture);
  response.capture = request.capture;
  return response;
}

}  // namespace r2r::plugins::verifier
