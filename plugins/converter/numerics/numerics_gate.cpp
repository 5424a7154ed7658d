// SPDX-License-Identifier: MIT
#include "numerics_gate.hpp"

#include "driver_generator.hpp"

#include <r2r/convert/subprocess.hpp>

#include <fstream>
#include <sstream>
#include <system_error>

namespace r2r::plugins::converter::numerics {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void write(const fs::path& path, const std::string& text) {
  std::ofstream o(path, std::ios::binary);
  o << text;
  if (!o.flush()) throw std::runtime_error("cannot write " + path.string());
}

std::string first_line(const plugins::converter::process_result& r) {
  std::string text = r.start_error + r.err + r.out;
  if (r.timed_out) text = "timed out; " + text;
  const auto nl = text.find('\n');
  if (nl != std::string::npos) text = text.substr(0, nl);
  return text.size() > 300 ? text.substr(0, 300) + "..." : text;
}

plugins::converter::process_result run(std::vector<std::string> argv, const fs::path& dir, std::chrono::seconds timeout,
                                       const std::function<bool()>& cancelled) {
  plugins::converter::process_options o;
  o.argv = std::move(argv);
  o.working_directory = dir.string();
  o.timeout = timeout;
  o.cancelled = cancelled;
  return plugins::converter::run_process(o);
}

std::optional<json> read_output(const fs::path& path, std::string& problem) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    problem = "the driver wrote no output";
    return std::nullopt;
  }
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    problem = std::string("the driver output is not JSON: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace

device_tools probe_devices(const std::string& nvcc, const std::string& hipcc, const std::vector<std::string>& dirs) {
  device_tools t;
  t.nvcc = plugins::converter::find_program(nvcc, dirs);
  t.hipcc = plugins::converter::find_program(hipcc, dirs);
  if (const auto smi = plugins::converter::find_program("nvidia-smi", dirs)) {
    plugins::converter::process_options o;
    o.argv = {*smi, "-L"};
    o.timeout = std::chrono::seconds(20);
    const auto r = plugins::converter::run_process(o);
    t.nvidia_gpu = r.ok() && r.out.rfind("GPU ", 0) == 0;
  }
  std::error_code ec;
  if (fs::exists("/dev/kfd", ec)) {
    if (const auto rocminfo = plugins::converter::find_program("rocminfo", dirs)) {
      plugins::converter::process_options o;
      o.argv = {*rocminfo};
      o.timeout = std::chrono::seconds(30);
      const auto r = plugins::converter::run_process(o);
      t.rocm_device = r.ok() && r.out.find("Name:                    gfx") != std::string::npos;
    }
  }
  return t;
}

std::string gate_result::summary() const {
  std::string s = "numerics: " + verdict + "; reference: " + reference + "; rewrite: ";
  for (std::size_t i = 0; i < candidate.size(); ++i) s += (i ? ", " : "") + candidate[i];
  if (compared) {
    std::string c = compared->summary();
    for (auto& ch : c)
      if (ch == '\n') ch = ';';
    s += "; comparison: " + c;
  }
  return s;
}

gate_result decide(std::string reference_status, const std::optional<json>& reference,
                   std::vector<std::string> candidate_status, const std::optional<json>& candidate,
                   const json& tolerance) {
  gate_result g;
  g.reference = std::move(reference_status);
  g.candidate = std::move(candidate_status);
  if (reference && candidate) {
    g.compared = compare_outputs(*reference, *candidate, tolerance);
    g.verdict = g.compared->passed ? "pass" : "fail";
  } else {
    g.verdict = "unchecked";
  }
  return g;
}

gate_result run_gate(const gate_input& in, const device_tools& tools, const fs::path& scratch,
                     std::chrono::seconds timeout, const std::function<bool()>& cancelled) {
  const std::string kernel = in.spec.value("kernel", std::string());
  const harness_spec hip_spec = bind_spec(in.spec, parse_signature(in.rewritten_text, kernel));
  const json tolerance = in.spec.value("tolerance", json::object());

  // The CUDA original on NVIDIA.
  std::string reference_status;
  std::optional<json> reference;
  if (in.original_text.empty()) {
    reference_status = "reference not run: no CUDA original";
  } else if (!tools.nvcc) {
    reference_status = "reference not run: nvcc not found";
  } else if (!tools.nvidia_gpu) {
    reference_status = "reference not run: no NVIDIA GPU";
  } else {
    const harness_spec cuda_spec = bind_spec(in.spec, parse_signature(in.original_text, kernel));
    const fs::path dir = scratch / "reference";
    fs::create_directories(dir);
    write(dir / fs::path(in.original_name).filename(), in.original_text);
    write(dir / "driver.cu", generate_driver(cuda_spec, fs::path(in.original_name).filename().string(), dialect::cuda));
    std::vector<std::string> argv{*tools.nvcc, "-std=c++17", "-O2", "-arch=native"};
    for (const auto& d : in.include_dirs) argv.push_back("-I" + d);
    argv.insert(argv.end(), {"-o", (dir / "driver").string(), (dir / "driver.cu").string()});
    const auto built = run(argv, dir, timeout, cancelled);
    if (!built.ok()) {
      reference_status = "reference failed: nvcc: " + first_line(built);
    } else {
      const auto ran = run({(dir / "driver").string(), (dir / "out.json").string()}, dir, timeout, cancelled);
      std::string problem;
      if (ran.ok()) reference = read_output(dir / "out.json", problem);
      reference_status = ran.ok() && reference ? "ran on " + reference->value("device", std::string("NVIDIA GPU"))
                                               : "reference failed: " + (ran.ok() ? problem : first_line(ran));
    }
  }

  // The HIP rewrite: compiled for every arch; run only on a ROCm device.
  std::vector<std::string> candidate_status;
  std::optional<json> candidate;
  const fs::path dir = scratch / "rewrite";
  fs::create_directories(dir);
  write(dir / fs::path(in.rewritten_name).filename(), in.rewritten_text);
  write(dir / "driver.hip", generate_driver(hip_spec, fs::path(in.rewritten_name).filename().string(), dialect::hip));
  for (const auto& arch : in.archs) {
    if (!tools.hipcc) {
      candidate_status.push_back("not compiled for " + arch + ": hipcc not found");
      continue;
    }
    const fs::path exe = dir / ("driver-" + arch);
    std::vector<std::string> argv{*tools.hipcc, "--offload-arch=" + arch, "-std=c++17", "-O2"};
    for (const auto& d : in.include_dirs) argv.push_back("-I" + d);
    argv.insert(argv.end(), {"-x", "hip", "-o", exe.string(), (dir / "driver.hip").string()});
    const auto built = run(argv, dir, timeout, cancelled);
    if (!built.ok()) {
      candidate_status.push_back("driver failed to compile for " + arch + ": " + first_line(built));
      continue;
    }
    if (!tools.rocm_device) {
      candidate_status.push_back("compiled for " + arch + ", numerics unchecked: no ROCm device");
      continue;
    }
    const auto ran = run({exe.string(), (dir / ("out-" + arch + ".json")).string()}, dir, timeout, cancelled);
    std::string problem;
    std::optional<json> out;
    if (ran.ok()) out = read_output(dir / ("out-" + arch + ".json"), problem);
    if (!out) {
      candidate_status.push_back("failed on " + arch + ": " + (ran.ok() ? problem : first_line(ran)));
      continue;
    }
    candidate_status.push_back("ran on " + arch);
    if (!candidate) candidate = out;  // the local device's arch; others can only have been compiled
  }
  return decide(std::move(reference_status), reference, std::move(candidate_status), candidate, tolerance);
}

}  // namespace r2r::plugins::converter::numerics
