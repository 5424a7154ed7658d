// SPDX-License-Identifier: MIT
// r2r-mode1-capture: Mode 1 collection without a sandbox service, for machines where the verifier
// plugin cannot run (the NVIDIA H200 lease) and for re-judging stored captures.
//   r2r-mode1-capture collect --vendor nvidia|amd --command CMD --out CAPTURE.json
//                             [--timeout S] [--interval S] [--profile 0|1|auto]
//                             [--names-needed 0|1] [--workload-uid UID] [--no-pmon]
//     runs `/bin/sh -c collect.sh` with the environment r2r.verifier.mode1-* gives the sandbox exec
//     (the current environment plus collect_env), with the host sampler around it, as verify does.
//   r2r-mode1-capture judge --plan PLAN.json --capture CAPTURE.json [--min-gpu-share F]
//     prints judge_mode1's response (without the capture) as JSON.
#include <r2r/verify/capture.hpp>
#include <r2r/verify/host_sampler.hpp>
#include <r2r/verify/mode1.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

namespace {

using namespace r2r::plugins::verifier;

int usage(const std::string& why) {
  std::cerr << "r2r-mode1-capture: " << why
            << "\nusage: r2r-mode1-capture collect --vendor nvidia|amd --command CMD --out FILE [--timeout S] "
               "[--interval S] [--profile 0|1|auto] [--names-needed 0|1] [--workload-uid UID] [--no-pmon]\n       "
               "r2r-mode1-capture judge --plan FILE --capture FILE "
               "[--min-gpu-share F]\n";
  return 2;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return nlohmann::json::parse(in);
}

/// Runs sh -c script with env added; returns exit status and stdout (at most cap bytes).
collector_output run_collector(const std::map<std::string, std::string>& env, std::size_t cap) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    ::execl("/bin/sh", "sh", "-c", collect_script().c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  collector_output out;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) {
    if (out.stdout_text.size() < cap)
      out.stdout_text.append(buf, std::min<std::size_t>(static_cast<std::size_t>(n), cap - out.stdout_text.size()));
    else
      out.truncated = true;
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("expected a subcommand");
  const std::string sub = argv[1];
  std::map<std::string, std::string> opt;
  bool pmon = true;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-pmon") {
      pmon = false;
    } else if (a.starts_with("--") && i + 1 < argc) {
      opt[a.substr(2)] = argv[++i];
    } else {
      return usage("unexpected argument '" + a + "'");
    }
  }
  try {
    if (sub == "collect") {
      if (!opt.contains("vendor") || !opt.contains("command") || !opt.contains("out"))
        return usage("collect needs --vendor, --command and --out");
      mode1_config cfg;
      cfg.vendor = opt["vendor"];
      if (opt.contains("timeout")) cfg.timeout_s = std::stod(opt["timeout"]);
      if (opt.contains("interval")) cfg.sample_interval_s = std::stod(opt["interval"]);
      if (opt.contains("workload-uid")) cfg.workload_uid = std::stoi(opt["workload-uid"]);
      if (opt.contains("profile"))
        cfg.profile = opt["profile"] == "0" ? "off" : opt["profile"] == "auto" ? "auto" : "on";
      const bool names_needed = !opt.contains("names-needed") || opt["names-needed"] != "0";
      host_sampler_config h;
      h.vendor = cfg.vendor;
      h.interval_s = cfg.sample_interval_s;
      h.pmon = pmon;
      mode1_capture c;
      c.vendor = cfg.vendor;
      const auto [ok, note] = host_sampler_available(h);
      c.host_sampler = ok;
      c.host_sampler_note = note;
      c.host_interval_s = h.interval_s;
      host_sampler sampler(h);
      if (ok) sampler.start();
      c.collector = run_collector(collect_env(cfg, opt["command"], names_needed), std::size_t{16} << 20);
      c.host_samples = sampler.stop();
      c.nonce = fence_of(c.collector.stdout_text);
      std::ofstream(opt["out"]) << nlohmann::json(c).dump(1) << "\n";
      std::cerr << "r2r-mode1-capture: collector exit " << c.collector.exit_code << ", " << c.host_samples.size()
                << " host samples, wrote " << opt["out"] << "\n";
      return 0;
    }
    if (sub == "judge") {
      if (!opt.contains("plan") || !opt.contains("capture")) return usage("judge needs --plan and --capture");
      const auto capture = read_json(opt["capture"]).get<mode1_capture>();
      mode1_config cfg;
      cfg.vendor = capture.vendor;
      if (opt.contains("min-gpu-share")) cfg.min_gpu_share = std::stod(opt["min-gpu-share"]);
      const auto r = judge_mode1(cfg, expectations_from_plan(read_json(opt["plan"]), cfg), capture);
      std::cout << nlohmann::json(r).dump(1) << "\n";
      return r.verdict == "pass" ? 0 : 3;
    }
    return usage("unknown subcommand '" + sub + "'");
  } catch (const std::exception& e) {
    std::cerr << "r2r-mode1-capture: " << e.what() << "\n";
    return 1;
  }
}
