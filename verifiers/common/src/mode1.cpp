// SPDX-License-Identifier: MIT
#include <r2r/verify/kernel_class.hpp>
#include <r2r/verify/mode1.hpp>
#include <r2r/verify/nvidia_smi.hpp>
#include <r2r/verify/rocminfo.hpp>
#include <r2r/verify/scale_as_planned.hpp>
#include <r2r/verify/text.hpp>

#include "embedded_scripts.hpp"
#include "output_encoding.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/kinds/sandbox.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <regex>
#include <set>

namespace r2r::verify {
namespace {

namespace v = sdk::verifier;

std::string random_nonce() {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 24; ++i) s += hex[gen() % 16];
  return s;
}

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

v::check make(std::string name, bool ok, std::string detail) {
  return {std::move(name), ok ? "pass" : "fail", std::move(detail)};
}

std::string top_names(const std::map<std::string, long long>& counts, std::size_t n) {
  std::vector<std::pair<long long, std::string>> v;
  for (const auto& [k, c] : counts) v.push_back({c, k});
  std::sort(v.rbegin(), v.rend());
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < n; ++i) {
    if (!out.empty()) out += "; ";
    out += v[i].second.substr(0, 80) + " x" + std::to_string(v[i].first);
  }
  return out;
}

}  // namespace

void from_json(const nlohmann::json& j, mode1_config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object");
  c.sandbox_service = j.value("sandbox_service", c.sandbox_service);
  c.timeout_s = j.value("timeout_s", c.timeout_s);
  c.sample_interval_s = j.value("sample_interval_s", c.sample_interval_s);
  c.tracer = j.value("tracer", c.tracer);
  c.profile = j.value("profile", c.profile);
  c.max_trace_rows = j.value("max_trace_rows", c.max_trace_rows);
  c.max_log_bytes = j.value("max_log_bytes", c.max_log_bytes);
  c.custom_kernels = j.value("custom_kernels", c.custom_kernels);
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

std::map<std::string, std::string> collect_env(const mode1_config& cfg, const std::string& command,
                                               const std::string& nonce) {
  const auto num = [](double d) {
    std::string s = std::to_string(d);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.ends_with('.')) s.pop_back();
    return s;
  };
  return {{"R2R_VENDOR", cfg.vendor},
          {"R2R_WORKLOAD_CMD", command},
          {"R2R_NONCE", nonce},
          {"R2R_TIMEOUT_S", num(cfg.timeout_s)},
          {"R2R_INTERVAL_S", num(cfg.sample_interval_s)},
          {"R2R_TRACER", cfg.tracer},
          {"R2R_PROBE_PROFILE", cfg.profile ? "1" : "0"},
          {"R2R_MAX_ROWS", std::to_string(cfg.max_trace_rows)},
          {"R2R_MAX_LOG_BYTES", std::to_string(cfg.max_log_bytes)},
          {"R2R_PROBE_SOURCE", probe_source()}};
}

sdk::verifier::verify_response evaluate_mode1(const mode1_config& cfg, const mode1_expectations& want,
                                              std::string_view output, std::string_view nonce, bool exec_timed_out) {
  v::verify_response r;
  const auto sections = parse_bundle(output, nonce);
  static const char* check_names[] = {"workload_exit", "kernels_on_gpu", "no_cpu_fallback", "accelerator_components",
                                      "scale_as_planned"};

  nlohmann::json device_data = nlohmann::json::array();
  const auto [present, device_detail] = device_present(cfg, sections, device_data);
  r.evidence.push_back({"device", device_detail, cfg.vendor == "amd" ? "rocminfo" : "nvidia-smi", device_data});
  if (!present) {
    r.verdict = "no_device";
    r.summary = "no " + vendor_word(cfg) + " device: not verified";
    for (const char* n : check_names) r.checks.push_back({n, "not_verified", "no device: " + device_detail});
    return r;
  }

  // Workload exit.
  const auto* exit_s = find(sections, "exit");
  const auto* log_s = find(sections, "log");
  v::workload_run run;
  run.command = want.command;
  run.log = log_s != nullptr ? log_s->body : "";
  long long root_pid = -1;
  if (exit_s != nullptr) {
    const auto w = split_ws(exit_s->body);
    if (w.size() >= 3) {
      run.exit_code = static_cast<int>(to_int(w[0]).value_or(-1));
      run.seconds = to_double(w[1]).value_or(0);
      root_pid = to_int(w[2]).value_or(-1);
    }
  }
  r.workload = run;
  const bool timed_out = exec_timed_out || run.exit_code == 124 || run.exit_code == 137;
  if (exit_s == nullptr) {
    r.checks.push_back({"workload_exit", "fail",
                        exec_timed_out ? "the sandbox exec timed out before the workload finished"
                                       : "the collection output has no exit section (truncated or killed)"});
  } else if (timed_out) {
    r.checks.push_back({"workload_exit", "fail",
                        "the workload did not finish within " + std::to_string(static_cast<long long>(cfg.timeout_s)) +
                            " s (exit " + std::to_string(run.exit_code) + ")"});
  } else {
    r.checks.push_back(make("workload_exit", run.exit_code == 0,
                            "exit code " + std::to_string(run.exit_code) + " after " +
                                std::to_string(static_cast<long long>(run.seconds)) + " s"));
  }
  r.evidence.push_back({"workload_exit",
                        "exit " + std::to_string(run.exit_code),
                        want.command,
                        {{"exit_code", run.exit_code}, {"seconds", run.seconds}, {"pid", root_pid}}});

  // Kernel evidence: tracer rows and the probe's profiler.
  std::string tracer = "none";
  if (const auto* t = find(sections, "tracer")) tracer = std::string(trim(t->body));
  std::vector<kernel_dispatch> dispatches;
  std::vector<kernel_stat> stats;
  std::set<long long> gpu_agents;
  std::vector<std::string> problems;
  std::vector<probe_report> probes;
  for (const auto& s : sections) {
    try {
      if (s.name == "trace" && (s.file.ends_with("kernel_trace.csv") || s.file == "results.csv")) {
        auto d = parse_kernel_trace_csv(s.body);
        dispatches.insert(dispatches.end(), d.begin(), d.end());
      } else if (s.name == "trace" && s.file.ends_with("stats.csv")) {
        auto st = parse_stats_csv(s.body);
        stats.insert(stats.end(), st.begin(), st.end());
      } else if (s.name == "trace" && s.file.ends_with("agent_info.csv")) {
        for (const auto& a : parse_agent_info_csv(s.body))
          if (a.type == "GPU") gpu_agents.insert(a.node_id);
      } else if (s.name == "probe") {
        probes.push_back(parse_probe_json(s.body));
      }
    } catch (const parse_error& e) {
      problems.push_back(e.what());
    }
  }
  std::map<std::string, long long> kernels;  // name -> dispatches on the GPU
  long long gpu_rows = 0;
  for (const auto& d : dispatches) {
    if (!gpu_agents.empty() && d.agent && !gpu_agents.contains(*d.agent)) continue;
    ++gpu_rows;
    ++kernels[d.name];
  }
  for (const auto& s : stats)
    if (!kernels.contains(s.name)) kernels[s.name] = s.calls;
  long long profiled = 0;
  for (const auto& p : probes) {
    if (!p.kernels) continue;
    for (const auto& [name, count] : *p.kernels) {
      kernels[name] += count;
      profiled += count;
    }
  }
  if (!dispatches.empty() || !stats.empty()) {
    r.evidence.push_back({"kernel_trace",
                          std::to_string(gpu_rows) + " dispatches on GPU agents; top: " + top_names(kernels, 5),
                          tracer,
                          {{"dispatch_rows", dispatches.size()}, {"gpu_rows", gpu_rows}}});
  }

  // Probe: the torch build and device use, per Python process of the workload.
  const std::string runtime = cfg.vendor == "amd" ? "HIP" : "CUDA";
  const auto right_runtime = [&](const probe_report& p) {
    return cfg.vendor == "amd" ? !p.hip.empty() : (!p.cuda.empty() && p.hip.empty());
  };
  const probe_report* gpu_probe = nullptr;
  const probe_report* cpu_probe = nullptr;
  for (const auto& p : probes) {
    nlohmann::json d = {{"pid", p.pid},   {"torch", p.torch_version},       {"hip", p.hip},
                        {"cuda", p.cuda}, {"is_available", p.is_available}, {"allocated_bytes", p.allocated_bytes()}};
    if (!p.devices.empty()) d["device"] = p.devices.front().name, d["arch"] = p.devices.front().arch;
    if (p.kernels) d["kernels"] = p.kernels->size();
    r.evidence.push_back({"probe", "pid " + std::to_string(p.pid), "sitecustomize probe", d});
    if (!p.torch_loaded) continue;
    if (right_runtime(p) && p.is_available && p.initialized && p.allocated_bytes() > 0) {
      if (gpu_probe == nullptr) gpu_probe = &p;
    } else if (!p.is_available || !right_runtime(p)) {
      if (cpu_probe == nullptr) cpu_probe = &p;
    }
  }

  // GPU process samples attributed to the workload's process tree.
  std::set<long long> seen_pids;
  std::string sample_tool;
  int samples_n = 0;
  if (const auto* s = find(sections, "samples")) {
    for (const auto& sample : parse_samples(s->body)) {
      ++samples_n;
      if (!sample.tool.empty()) sample_tool = sample.tool;
      if (!sample.error.empty()) problems.push_back(sample.error);
      for (const auto& proc : sample.processes)
        if (sample.tree.contains(proc.pid) || proc.pid == root_pid) seen_pids.insert(proc.pid);
    }
  }
  std::string pids;
  for (const auto p : seen_pids) pids += (pids.empty() ? "" : ",") + std::to_string(p);
  r.evidence.push_back(
      {"gpu_process",
       seen_pids.empty() ? std::to_string(samples_n) + " samples; no workload process listed"
                         : "workload pid(s) " + pids + " listed by " + sample_tool,
       sample_tool.empty() ? "none" : sample_tool,
       {{"samples", samples_n}, {"pids", std::vector<long long>(seen_pids.begin(), seen_pids.end())}}});

  // kernels_on_gpu
  if (gpu_rows > 0) {
    r.checks.push_back(
        make("kernels_on_gpu", true, std::to_string(gpu_rows) + " kernel dispatches on a GPU agent (" + tracer + ")"));
  } else if (gpu_probe != nullptr && profiled > 0) {
    r.checks.push_back(make("kernels_on_gpu", true,
                            std::to_string(profiled) + " device kernels recorded by torch.profiler in pid " +
                                std::to_string(gpu_probe->pid) + " (" + runtime + " build)"));
  } else if (gpu_probe != nullptr && !seen_pids.empty()) {
    r.checks.push_back(make("kernels_on_gpu", true,
                            runtime + " torch allocated " +
                                std::to_string(static_cast<long long>(gpu_probe->allocated_bytes())) +
                                " bytes on the device and the process was listed by " + sample_tool));
  } else {
    std::string why = "no kernel dispatch on a GPU agent";
    why += tracer == "none" ? " (no tracer ran)" : " in the " + tracer + " trace";
    why += gpu_probe == nullptr ? "; no probe shows " + runtime + " torch with device memory allocated"
                                : "; the probe's process was not listed by the GPU process sampler";
    r.checks.push_back(make("kernels_on_gpu", false, why));
  }

  // no_cpu_fallback
  std::string fallback_line;
  for (const auto& pat : cfg.cpu_fallback_patterns) {
    const std::regex re(pat);
    for (const auto line : split_lines(run.log)) {
      const std::string l(line);
      if (std::regex_search(l, re)) {
        fallback_line = excerpt(l);
        break;
      }
    }
    if (!fallback_line.empty()) break;
  }
  if (cpu_probe != nullptr) {
    std::string d = "pid " + std::to_string(cpu_probe->pid) + ": ";
    d += !right_runtime(*cpu_probe)
             ? "torch is not a " + runtime + " build (hip=" + cpu_probe->hip + ", cuda=" + cpu_probe->cuda + ")"
             : "torch.cuda.is_available() was False";
    r.checks.push_back(make("no_cpu_fallback", false, d));
  } else if (!fallback_line.empty()) {
    r.checks.push_back(make("no_cpu_fallback", false, "the workload log reports CPU execution: " + fallback_line));
  } else if (gpu_probe != nullptr) {
    r.checks.push_back(
        make("no_cpu_fallback", true,
             "pid " + std::to_string(gpu_probe->pid) + " ran " + runtime + " torch on " +
                 (gpu_probe->devices.empty() ? std::string("the GPU") : gpu_probe->devices.front().name)));
  } else if (probes.empty() && gpu_rows > 0) {
    r.checks.push_back(make("no_cpu_fallback", true, "not a Python workload; the kernel trace shows GPU dispatches"));
  } else {
    r.checks.push_back(make("no_cpu_fallback", false,
                            probes.empty() ? "no probe output and no GPU kernel trace: nothing shows GPU execution"
                                           : "no Python process of the workload allocated device memory"));
  }

  // accelerator_components
  std::map<kernel_family, long long> families;
  for (const auto& [name, count] : kernels) families[classify_kernel(name, want.custom_kernels)] += count;
  {
    std::vector<dispatched_kernel> ran;
    for (const auto& [name, count] : kernels) ran.push_back({name, count, ""});
    std::vector<loaded_code> code;
    for (const auto& s : sections) {
      if (s.name != "probe") continue;
      try {
        code.push_back(parse_probe_code(s.body));
      } catch (const parse_error& e) {
        problems.push_back(e.what());
      }
    }
    auto ac = check_accelerator_components(want.components, ran, code, !kernels.empty());
    r.checks.push_back(std::move(ac.check));
    r.ledger.insert(r.ledger.end(), ac.ledger.begin(), ac.ledger.end());
    if (!ac.evidence.empty())
      r.evidence.push_back({"accelerator_components",
                            std::to_string(ac.evidence.size()) + " planned component(s) judged", "plan kernel_builds",
                            ac.evidence});
  }
  nlohmann::json fam = nlohmann::json::object();
  for (const auto& [f, c] : families) fam[std::string(to_string(f))] = c;
  if (!families.empty()) r.evidence.push_back({"kernel_families", fam.dump(), "kernel name classifier", fam});

  // scale_as_planned: the verifier ran the plan's command verbatim.
  r.checks.push_back({"scale_as_planned", "pass", "ran the plan's workload command verbatim: " + want.command});

  for (const auto& p : problems) r.evidence.push_back({"parse_problem", p, "", nullptr});
  r.verdict = r.all_checks_passed() ? "pass" : "fail";
  std::string failed;
  for (const auto& c : r.checks)
    if (c.status != "pass") failed += (failed.empty() ? "" : ", ") + c.name;
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
  const auto scale_files = scale_files_from_plan(request.plan);
  bool scale_read = true;
  std::map<std::string, std::optional<std::string>> final_files;
  if (!scale_files.empty())
    final_files = read_scale_files(ctx, config_.sandbox_service, *request.sandbox, scale_files, scale_read);
  const std::string nonce = random_nonce();
  sdk::sandbox::exec_request exec;
  exec.sandbox_id = request.sandbox->id;
  exec.command = collect_script();
  exec.timeout_s = config_.timeout_s + 120;  // the script's own timeout fires first and keeps the evidence
  exec.max_output_bytes = std::int64_t{16} << 20;
  exec.env = collect_env(config_, want.command, nonce);
  exec.workdir = request.sandbox->workdir;
  host_.info("mode1: running the plan's workload command in sandbox " + exec.sandbox_id);
  const auto reply =
      ctx.call_service(config_.sandbox_service, "exec", nlohmann::json(exec)).get<sdk::sandbox::exec_response>();
  std::string out = reply.stdout_text;
  if (reply.stdout_encoding == "base64") out = sandbox_common::base64_decode(out);
  auto response = evaluate_mode1(config_, want, out, nonce, reply.timed_out);
  if (response.workload && reply.truncated)
    response.evidence.push_back({"parse_problem", "the sandbox truncated the collection output", "sandbox", nullptr});
  if (response.verdict == "pass" || response.verdict == "fail")
    replace_check(response, check_scale_as_planned(want.command, scale_files, final_files, scale_read, request.ledger),
                  vendor_word(config_));
  return response;
}

}  // namespace r2r::verify
