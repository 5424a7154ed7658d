// SPDX-License-Identifier: MIT
#include <r2r/verify/gpu_share.hpp>
#include <r2r/verify/nvidia_smi.hpp>
#include <r2r/verify/text.hpp>

#include <map>
#include <optional>

namespace r2r::plugins::verifier {
namespace {

/// Host root (uid 0) is never the workload: collect.sh runs it unprivileged, and a workload that
/// kept root (no privilege drop) could have written the collector's records itself.
bool attributed(const host_process& p, const workload_identity& who) {
  return p.uid != 0 && !who.pidns.empty() && p.pidns == who.pidns && !p.nspid.empty() &&
         who.pids.contains(p.nspid.back());
}

/// pmon rows: host pid -> sm%. "-" counts as 0. nullopt when the text has no pmon header.
std::optional<std::map<long long, double>> pmon_sm(std::string_view text) {
  std::optional<std::size_t> pid_col, sm_col;
  std::map<long long, double> out;
  for (const auto line : split_lines(text)) {
    const auto t = trim(line);
    if (t.starts_with("#")) {
      if (pid_col) continue;
      const auto w = split_ws(t.substr(1));
      for (std::size_t i = 0; i < w.size(); ++i) {
        if (w[i] == "pid") pid_col = i;
        if (w[i] == "sm") sm_col = i;
      }
      continue;
    }
    if (!pid_col || !sm_col || t.empty()) continue;
    const auto w = split_ws(t);
    if (w.size() <= std::max(*pid_col, *sm_col)) continue;
    const auto pid = to_int(w[*pid_col]);
    if (!pid) continue;
    out[*pid] = std::max(out[*pid], to_double(w[*sm_col]).value_or(0));
  }
  if (!pid_col || !sm_col) return std::nullopt;
  return out;
}

/// Whether any utilisation figure in `util` is above zero ("0, 37" csv rows or "card0 37" lines).
bool busy(std::string_view util) {
  for (const auto line : split_lines(util)) {
    auto t = std::string(trim(line));
    for (auto& ch : t)
      if (ch == ',') ch = ' ';
    const auto w = split_ws(t);
    if (w.size() >= 2 && to_double(w.back()).value_or(0) > 0) return true;
  }
  return false;
}

}  // namespace

gpu_share measure_gpu_share(const std::vector<host_sample>& samples, const workload_identity& who, double t0, double t1,
                            double slack_s) {
  gpu_share g;
  bool used_pmon = false, used_util = false;
  for (const auto& s : samples) {
    if (t0 < t1 && (s.t < t0 - slack_s || s.t > t1 + slack_s)) continue;
    ++g.samples;
    std::set<long long> mine;
    for (const auto& p : s.procs)
      if (attributed(p, who)) mine.insert(p.pid);
    std::map<long long, double> vram;  // host pid -> bytes, for the attributed pids listed holding the GPU
    if (s.source == "kfd") {
      for (const auto line : split_lines(s.kfd)) {
        const auto w = split_ws(line);
        if (w.size() == 2)
          if (const auto pid = to_int(w[0]); pid && mine.contains(*pid)) vram[*pid] = to_double(w[1]).value_or(0);
      }
    } else {
      try {
        for (const auto& p : parse_nvidia_smi_compute_apps(s.apps))
          if (mine.contains(p.pid)) vram[p.pid] = p.vram_bytes.value_or(0);
      } catch (const std::exception& e) {
        g.problems.push_back(e.what());
      }
    }
    bool held = false;
    for (const auto& [pid, bytes] : vram) {
      held = true;
      g.host_pids.insert(pid);
      g.max_vram_bytes = std::max(g.max_vram_bytes, bytes);
    }
    const auto pm = s.pmon.empty() ? std::nullopt : pmon_sm(s.pmon);
    bool active = false;
    if (pm && !pm->empty()) {
      used_pmon = true;
      for (const auto& [pid, sm] : *pm)
        if (mine.contains(pid)) {
          held = true;
          g.host_pids.insert(pid);
          if (sm > 0) active = true;
        }
    } else if (held) {
      used_util = true;
      active = busy(s.util);
    }
    if (held) ++g.attributed;
    if (active) ++g.active;
  }
  g.share = g.samples > 0 ? static_cast<double>(g.active) / g.samples : 0;
  if (used_pmon && used_util)
    g.source = "nvidia-smi pmon sm% (utilization.gpu where pmon listed no process)";
  else if (used_pmon)
    g.source = "nvidia-smi pmon sm% of the workload's processes";
  else if (!samples.empty() && samples.front().source == "kfd")
    g.source = "KFD vram of the workload's processes with gpu_busy_percent > 0";
  else
    g.source = "nvidia-smi utilization.gpu while a workload process held the GPU";
  return g;
}

}  // namespace r2r::plugins::verifier
