// SPDX-License-Identifier: MIT
#include "mode1_evidence.hpp"

#include <r2r/verify/text.hpp>

#include <algorithm>

namespace r2r::plugins::verifier::mode1_detail {
namespace {

const std::set<std::string> known_sections = {
    "collector", "tools", "device_nodes", "rocminfo", "query_gpu", "device_end", "privdrop", "pidns",
    "exit",      "sweep", "tracer",       "profiler", "probe",     "trace",      "samples",  "log"};

const bundle_section* find(const std::vector<bundle_section>& s, std::string_view name) {
  for (const auto& x : s)
    if (x.name == name) return &x;
  return nullptr;
}

/// Lines that look like section markers but are not this fence's headers, and headers after the log.
void scan_markers(std::string_view out, const std::string& fence, mode1_evidence& ev) {
  const std::string header = "@@R2R-" + fence + " ";
  bool first = true, in_log = false;
  for (const auto line : split_lines(out)) {
    if (first) {
      first = false;
      continue;
    }
    if (!line.starts_with("@@R2R-")) continue;
    if (line.starts_with(header) && !in_log) {
      if (split_ws(line.substr(header.size())).front() == "log") in_log = true;
      continue;
    }
    (in_log ? ev.log_forged : ev.forged)
        .push_back("a section marker line inside the evidence" + std::string(in_log ? " (in the workload log)" : "") +
                   ": '" + excerpt(line) + "'");
  }
}

/// A copied file's declared size against what arrived (a body may carry one added newline).
void check_size(const bundle_section& s, std::size_t arg, mode1_evidence& ev) {
  if (s.args.size() <= arg) {
    ev.unreadable.push_back(s.name + " " + s.file + ": the header has no size");
    return;
  }
  const auto declared = to_int(s.args[arg]);
  if (!declared || static_cast<long long>(s.body.size()) < *declared)
    ev.unreadable.push_back(s.name + " " + s.file + ": " + std::to_string(s.body.size()) + " of " + s.args[arg] +
                            " bytes arrived (truncated)");
}

}  // namespace

mode1_evidence read_evidence(const mode1_config& cfg, const mode1_capture& capture) {
  mode1_evidence ev;
  ev.host_ran = capture.host_sampler;
  ev.host_note = capture.host_sampler_note;
  const std::string& out = capture.collector.stdout_text;
  if (capture.collector.exit_code != 0)
    ev.forged.push_back("the collector's exec itself exited " + std::to_string(capture.collector.exit_code) +
                        (capture.collector.timed_out ? " (timed out)" : ""));
  if (capture.collector.truncated) ev.unreadable.push_back("the sandbox truncated the collector's output");
  ev.fence = fence_of(out);
  if (ev.fence.empty()) {
    ev.unreadable.push_back(
        "the collector output does not start with its fence line '@@R2R-FENCE <hex>' "
        "(not collect.sh/2 output, or cut before the fence)");
    return ev;
  }
  if (!capture.nonce.empty() && capture.nonce != ev.fence)
    ev.forged.push_back("the capture's nonce " + capture.nonce + " is not the fence the collector drew");
  scan_markers(out, ev.fence, ev);
  ev.sections = parse_bundle(out, ev.fence);

  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& s : ev.sections) {
    if (!known_sections.contains(s.name)) ev.forged.push_back("unknown section '" + excerpt(s.name) + "'");
    if (!seen.insert({s.name, s.file}).second)
      ev.forged.push_back("section '" + s.name + (s.file.empty() ? "" : " " + s.file) + "' appears twice");
  }
  const auto* col = find(ev.sections, "collector");
  if (col == nullptr || col->file != "2")
    ev.unreadable.push_back("no 'collector 2' section: not the output of this collect.sh");
  if (find(ev.sections, "device_end") == nullptr) {
    ev.unreadable.push_back("the device sections are incomplete (no device_end)");
    return ev;
  }

  // Privilege drop, namespace, exit.
  if (const auto* p = find(ev.sections, "privdrop")) {
    ev.privdrop = std::string(trim(p->body));
    const auto w = split_ws(ev.privdrop);
    ev.privdrop_ok = w.size() >= 2 && w[0] == "ok" && to_int(w[1]).value_or(0) > 0;
    if (ev.privdrop_ok && to_int(w[1]).value_or(-1) != cfg.workload_uid)
      ev.forged.push_back("the workload ran as uid " + std::string(w[1]) + ", not the configured " +
                          std::to_string(cfg.workload_uid));
  }
  if (const auto* p = find(ev.sections, "pidns")) ev.identity.pidns = std::string(trim(p->body));
  if (const auto* e = find(ev.sections, "exit")) {
    const auto w = split_ws(e->body);
    if (w.size() >= 5) {
      ev.have_exit = true;
      ev.run.exit_code = static_cast<int>(to_int(w[0]).value_or(-1));
      ev.run.seconds = to_double(w[1]).value_or(0);
      ev.root_pid = to_int(w[2]).value_or(-1);
      ev.t0 = to_double(w[3]).value_or(0);
      ev.t1 = to_double(w[4]).value_or(0);
    } else {
      ev.unreadable.push_back("the exit section is not 'rc seconds pid start end': '" + excerpt(e->body) + "'");
    }
  }
  if (const auto* t = find(ev.sections, "tracer")) ev.tracer = std::string(trim(t->body));
  if (const auto* p = find(ev.sections, "profiler")) ev.profiler = std::string(trim(p->body));
  if (const auto* l = find(ev.sections, "log")) {
    ev.run.log = l->body;
    const auto shown = l->args.empty() ? std::nullopt : to_int(l->args[0]);
    if (!shown || static_cast<long long>(l->body.size()) < *shown)
      ev.unreadable.push_back("the workload log arrived with " + std::to_string(l->body.size()) + " bytes of " +
                              (l->args.empty() ? std::string("?") : l->args[0]) + " (truncated)");
  }
  for (const char* need : {"privdrop", "pidns", "exit", "samples", "log"})
    if (find(ev.sections, need) == nullptr)
      ev.unreadable.push_back(std::string("no '") + need + "' section: the collector output is incomplete");

  // In-process evidence: tracer files and probes.
  std::vector<kernel_dispatch> dispatches;
  std::vector<kernel_stat> stats;
  std::set<long long> gpu_agents;
  for (const auto& s : ev.sections) {
    try {
      if (s.name == "trace" && (s.file.ends_with("kernel_trace.csv") || s.file == "results.csv")) {
        auto d = parse_kernel_trace_csv(s.body);
        dispatches.insert(dispatches.end(), d.begin(), d.end());
      } else if (s.name == "trace" && s.file.ends_with("stats.csv")) {
        check_size(s, 1, ev);
        auto st = parse_stats_csv(s.body);
        stats.insert(stats.end(), st.begin(), st.end());
      } else if (s.name == "trace" && s.file.ends_with("agent_info.csv")) {
        check_size(s, 1, ev);
        for (const auto& a : parse_agent_info_csv(s.body))
          if (a.type == "GPU") gpu_agents.insert(a.node_id);
      } else if (s.name == "probe") {
        check_size(s, 1, ev);
        ev.probes.push_back(parse_probe_json(s.body));
      }
    } catch (const parse_error& e) {
      ev.unreadable.push_back(s.name + " " + s.file + ": " + e.what());
    }
  }
  ev.dispatch_rows = static_cast<long long>(dispatches.size());
  for (const auto& d : dispatches) {
    if (!gpu_agents.empty() && d.agent && !gpu_agents.contains(*d.agent)) continue;
    ++ev.gpu_rows;
    ++ev.kernels[d.name];
  }
  ev.have_stats = !stats.empty();
  for (const auto& s : stats)
    if (!ev.kernels.contains(s.name)) ev.kernels[s.name] = s.calls;
  for (const auto& p : ev.probes) {
    if (!p.kernels) continue;
    for (const auto& [name, count] : *p.kernels) {
      ev.kernels[name] += count;
      ev.profiled += count;
    }
  }

  // The collector's process trees: the workload's identity, and that it never ran as another uid.
  if (const auto* s = find(ev.sections, "samples")) {
    for (const auto& sample : parse_samples(s->body)) {
      ++ev.sandbox_samples;
      if (!sample.tool.empty()) ev.sandbox_tool = sample.tool;
      for (const auto p : sample.tree) ev.identity.pids.insert(p);
      if (ev.privdrop_ok && sample.index >= 1) {
        for (const auto& [pid, uid] : sample.uids)
          if (uid >= 0 && uid != cfg.workload_uid)  // -1: the process left while it was read
            ev.forged.push_back("workload process " + std::to_string(pid) + " ran as uid " + std::to_string(uid) +
                                ", not the unprivileged uid " + std::to_string(cfg.workload_uid));
      }
      for (const auto& proc : sample.processes)
        if (sample.tree.contains(proc.pid)) ev.sandbox_listed.insert(proc.pid);
    }
  }
  if (ev.root_pid > 0) ev.identity.pids.insert(ev.root_pid);
  ev.share = measure_gpu_share(capture.host_samples, ev.identity, ev.t0, ev.t1);
  ev.mapped = workload_objects(capture.host_samples, ev.share.host_pids);
  ev.mapped.run_start = ev.t0;
  // De-duplicate repeated uid findings (one per pid is enough to read).
  std::sort(ev.forged.begin(), ev.forged.end());
  ev.forged.erase(std::unique(ev.forged.begin(), ev.forged.end()), ev.forged.end());
  return ev;
}

}  // namespace r2r::plugins::verifier::mode1_detail
