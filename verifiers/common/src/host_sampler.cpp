// SPDX-License-Identifier: MIT
#include <r2r/verify/host_sampler.hpp>
#include <r2r/verify/nvidia_smi.hpp>
#include <r2r/verify/text.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace r2r::plugins::verifier {
namespace {

namespace fs = std::filesystem;

double now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// Runs an absolute-path tool with fixed arguments; stdout+stderr, at most 256 KiB.
std::string run_tool(const std::string& path, const std::string& args) {
  const std::string cmd = "'" + path + "' " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return "";
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0 && out.size() < (256u << 10)) out.append(buf, n);
  ::pclose(p);
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

host_process describe(const host_sampler_config& cfg, long long pid, object_memo* memo) {
  host_process hp;
  hp.pid = pid;
  const fs::path dir = fs::path(cfg.proc_root) / std::to_string(pid);
  // The text must outlive the views split_lines returns: a temporary in the range expression would
  // be destroyed before the loop body runs.
  const std::string status = slurp(dir / "status");
  for (const auto line : split_lines(status)) {
    if (line.starts_with("NSpid:")) {
      for (const auto w : split_ws(line.substr(6)))
        if (const auto v = to_int(w)) hp.nspid.push_back(*v);
    } else if (line.starts_with("Uid:")) {
      const auto w = split_ws(line.substr(4));
      if (!w.empty()) hp.uid = to_int(w[0]).value_or(-1);
    }
  }
  std::error_code ec;
  const auto ns = fs::read_symlink(dir / "ns" / "pid", ec);
  if (!ec) hp.pidns = ns.string();
  try {
    auto* seen = memo != nullptr ? &(*memo)[pid] : nullptr;
    for (auto& o : mapped_objects(cfg.proc_root, pid)) {
      if (seen != nullptr && !seen->insert(o).second) continue;
      struct stat st {};
      const std::string in_ns = (dir / "root").string() + o;  // the path in the process's mount namespace
      hp.object_ctimes.push_back(
          ::stat(in_ns.c_str(), &st) == 0 ? static_cast<double>(st.st_ctim.tv_sec) + st.st_ctim.tv_nsec / 1e9 : -1.0);
      hp.objects.push_back(std::move(o));
    }
  } catch (const std::exception& e) {
    hp.objects_error = e.what();
  }
  return hp;
}

std::set<long long> pmon_pids(std::string_view pmon) {
  std::set<long long> out;
  for (const auto line : split_lines(pmon)) {
    if (trim(line).empty() || trim(line).starts_with("#")) continue;
    const auto w = split_ws(line);
    if (w.size() > 1)
      if (const auto v = to_int(w[1])) out.insert(*v);
  }
  return out;
}

}  // namespace

std::vector<std::string> mapped_objects(const std::string& proc_root, long long pid) {
  constexpr std::size_t max_objects = 4000;  // a large PyTorch process maps about 300
  const fs::path maps = fs::path(proc_root) / std::to_string(pid) / "maps";
  std::ifstream in(maps);
  if (!in.good())
    throw std::runtime_error("cannot read " + maps.string() +
                             " (the process left, or the verifier lacks ptrace-read access: run it as root)");
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::string line;
  while (std::getline(in, line) && out.size() < max_objects) {
    // address perms offset dev inode path: the path is everything after the fifth field.
    std::size_t pos = 0;
    for (int field = 0; field < 5 && pos != std::string::npos; ++field) {
      pos = line.find_first_not_of(' ', pos);
      if (pos != std::string::npos) pos = line.find(' ', pos);
    }
    if (pos == std::string::npos) continue;
    const std::string path(trim(std::string_view(line).substr(pos)));
    if (!path.starts_with("/")) continue;
    const auto so = path.rfind(".so");
    if (so == std::string::npos || so < path.rfind('/')) continue;
    const auto rest = std::string_view(path).substr(so + 3);
    if (!rest.empty() && rest.front() != '.' && rest.front() != ' ') continue;  // "x.so", "x.so.6", "x.so (deleted)"
    if (seen.insert(path).second) out.push_back(path);
  }
  if (in.bad()) throw std::runtime_error("error reading " + maps.string());
  return out;
}

std::optional<std::string> host_tool(const host_sampler_config& cfg, const std::string& name) {
  for (const auto& d : cfg.tool_dirs) {
    const std::string p = d + "/" + name;
    if (!d.empty() && d.front() == '/' && ::access(p.c_str(), X_OK) == 0) return p;
  }
  return std::nullopt;
}

std::pair<bool, std::string> host_sampler_available(const host_sampler_config& cfg) {
  if (cfg.vendor == "amd") {
    std::error_code ec;
    if (fs::is_directory(cfg.kfd_root, ec)) return {true, "KFD sysfs " + cfg.kfd_root};
    return {false, "the host has no " + cfg.kfd_root + " (no amdgpu KFD driver visible to the verifier)"};
  }
  if (const auto t = host_tool(cfg, "nvidia-smi")) return {true, "nvidia-smi " + *t};
  std::string dirs;
  for (const auto& d : cfg.tool_dirs) dirs += (dirs.empty() ? "" : ":") + d;
  return {false, "no nvidia-smi in the host directories " + dirs};
}

host_sample take_host_sample(const host_sampler_config& cfg, object_memo* memo) {
  host_sample s;
  s.t = now_s();
  std::set<long long> pids;
  if (cfg.vendor == "amd") {
    s.source = "kfd";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cfg.kfd_root, ec)) {
      const auto pid = to_int(e.path().filename().string());
      if (!pid) continue;
      double vram = 0;
      std::error_code ec2;
      for (const auto& f : fs::directory_iterator(e.path(), ec2))
        if (f.path().filename().string().starts_with("vram_")) vram += to_double(trim(slurp(f.path()))).value_or(0);
      s.kfd += std::to_string(*pid) + " " + std::to_string(static_cast<long long>(vram)) + "\n";
      pids.insert(*pid);
    }
    if (ec) s.error = "cannot list " + cfg.kfd_root + ": " + ec.message();
    for (const auto& e : fs::directory_iterator(cfg.drm_root, ec)) {
      const auto busy = e.path() / "device" / "gpu_busy_percent";
      if (fs::exists(busy, ec)) s.util += e.path().filename().string() + " " + std::string(trim(slurp(busy))) + "\n";
    }
  } else {
    s.source = "nvidia-smi";
    const auto smi = host_tool(cfg, "nvidia-smi");
    if (!smi) {
      s.error = "nvidia-smi not found on the host";
      return s;
    }
    if (cfg.pmon) s.pmon = run_tool(*smi, "pmon -c 1 -s u");
    s.apps = run_tool(*smi, "--query-compute-apps=pid,process_name,used_memory --format=csv");
    s.util = run_tool(*smi, "--query-gpu=index,utilization.gpu --format=csv,noheader,nounits");
    try {
      for (const auto& p : parse_nvidia_smi_compute_apps(s.apps)) pids.insert(p.pid);
    } catch (const std::exception& e) {
      s.error = e.what();
    }
    for (const auto p : pmon_pids(s.pmon)) pids.insert(p);
  }
  for (const auto p : pids)
    if (p > 0) s.procs.push_back(describe(cfg, p, memo));
  return s;
}

host_sampler::host_sampler(host_sampler_config cfg) : cfg_(std::move(cfg)) {}
host_sampler::~host_sampler() {
  (void)stop();
}

void host_sampler::start() {
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void host_sampler::loop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    auto s = take_host_sample(cfg_, &memo_);
    lock.lock();
    samples_.push_back(std::move(s));
    cv_.wait_for(lock, std::chrono::duration<double>(cfg_.interval_s), [this] { return stopping_; });
  }
}

std::vector<host_sample> host_sampler::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mu_);
  return std::move(samples_);
}

}  // namespace r2r::plugins::verifier
