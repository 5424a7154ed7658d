// SPDX-License-Identifier: MIT
// The Mode 1 capture: everything the verifier collected for one run, in a form `judge` can decide
// again without running anything (format "r2r.mode1.capture/1", schema
// plugin_api/schemas/verifier/capture.schema.json). `collector` is what the sandbox exec of
// scripts/collect.sh returned; `host_samples` is what the host-side sampler (host_sampler.hpp)
// saw outside the sandbox while that exec ran. The capture holds raw tool text, never conclusions,
// so a later judge with stricter checks reaches its own verdict.
#pragma once

#include <r2r/sdk/kinds/verifier.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::verifier {

inline constexpr const char* capture_format = "r2r.mode1.capture/1";

struct collector_output {
  int exit_code = -1;  // the exec's own exit status (collect.sh exits 0 unless it could not run)
  bool timed_out = false;
  bool truncated = false;   // the sandbox cut the output
  std::string stdout_text;  // raw bytes; base64 ("stdout_b64") on the wire
};

/// One host-side sample (see host_sampler.hpp for how each field is made).
struct host_process {
  long long pid = -1;            // host pid
  std::vector<long long> nspid;  // /proc/<pid>/status NSpid: host first, innermost last
  std::string pidns;             // readlink /proc/<pid>/ns/pid, e.g. "pid:[4026532201]"
  long long uid = -1;
  // Shared objects this process had mapped that were not reported for it in an earlier sample
  // (host /proc/<pid>/maps, written by the kernel: the workload cannot forge it, only really map
  // a file). The union over samples is what the process mapped while it was on the GPU.
  std::vector<std::string> objects;
  // Per object, its ctime (unix seconds) as the host stats it through /proc/<pid>/root; -1 when
  // it could not be read. The workload cannot set a ctime back, so an object written during the
  // run shows it.
  std::vector<double> object_ctimes;
  std::string objects_error;  // why /proc/<pid>/maps could not be read ("" when it was)
};
struct host_sample {
  double t = 0;                     // unix seconds
  std::string source;               // "nvidia-smi" | "kfd"
  std::string apps;                 // nvidia-smi --query-compute-apps csv (raw)
  std::string pmon;                 // nvidia-smi pmon -c 1 -s u (raw), may be empty
  std::string util;                 // nvidia-smi --query-gpu=utilization.gpu csv, or gpu_busy_percent lines
  std::string kfd;                  // "pid vram_bytes" lines from /sys/class/kfd/kfd/proc
  std::vector<host_process> procs;  // the processes named above, as the host sees them
  std::string error;                // a tool that failed or was missing
};

/// The scale-bearing files the plan names, read from the final workspace by a separate exec before
/// the workload ran (scale_as_planned.hpp). `ran` false: the plan named none or nothing was read.
struct scale_read {
  bool ran = false;
  bool ok = false;                                          // the read exec answered, whole
  std::map<std::string, std::optional<std::string>> files;  // file -> content (nullopt: missing)
};

struct mode1_capture {
  std::string format = capture_format;
  std::string vendor;  // amd | nvidia
  std::string nonce;   // the fence the collector drew after the workload exited ("" if none was found)
  collector_output collector;
  bool host_sampler = false;      // whether a host-side sampler ran (false: no host evidence at all)
  std::string host_sampler_note;  // why it did not run, or the tools it used
  double host_interval_s = 0;
  std::vector<host_sample> host_samples;
  r2r::plugins::verifier::scale_read scale_read;
  std::vector<sdk::verifier::ledger_entry> ledger;  // the run's ledger the verify call was given
};

void to_json(nlohmann::json& j, const host_process& p);
void from_json(const nlohmann::json& j, host_process& p);
void to_json(nlohmann::json& j, const host_sample& s);
void from_json(const nlohmann::json& j, host_sample& s);
void to_json(nlohmann::json& j, const mode1_capture& c);
/// Throws sdk::invalid_argument naming the field when the document is not a capture of this format.
void from_json(const nlohmann::json& j, mode1_capture& c);

/// The fence declared on the first line of the collector's stdout ("@@R2R-FENCE <hex>"), or "".
std::string fence_of(std::string_view collector_stdout);

}  // namespace r2r::plugins::verifier
