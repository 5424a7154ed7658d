// SPDX-License-Identifier: MIT
#include "workspace_reclaim.hpp"

#include <r2r/sdk/error.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>
#include <thread>

namespace r2r::plugins::sandbox::local {
namespace fs = std::filesystem;

namespace {

/// The whole of a /proc file, or what was read before an error. A process can exit between the
/// directory listing and the read, and the kernel then fails read() with ESRCH: that is an empty
/// (or short) answer here, never an exception (std::ifstream's streambuf throws on it).
std::string read_proc_file(const fs::path& path) {
  std::string out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  ::close(fd);
  return out;
}

std::vector<std::string> command_line(const fs::path& proc_dir) {
  const std::string raw = read_proc_file(proc_dir / "cmdline");
  std::vector<std::string> args;
  std::string::size_type start = 0;
  while (start < raw.size()) {
    auto end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    args.push_back(raw.substr(start, end - start));
    start = end + 1;
  }
  return args;
}

/// 'Z' for a zombie, '\0' when the process is gone or unreadable.
char process_state(pid_t pid) {
  const std::string stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  // The command name is in parentheses and may hold spaces or ')': the state follows the last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return '\0';
  return stat[close + 2];
}

bool alive(pid_t pid) {
  const char s = process_state(pid);
  return s != '\0' && s != 'Z' && s != 'X';
}

}  // namespace

std::vector<pid_t> processes_binding(const fs::path& host_workspace, const std::string& sandbox_workspace) {
  std::vector<pid_t> out;
  const std::string host = host_workspace.string();
  const pid_t self = ::getpid();
  const uid_t uid = ::geteuid();
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == self) continue;
    struct stat st {};
    if (::stat(it->path().c_str(), &st) != 0 || st.st_uid != uid) continue;
    const auto args = command_line(it->path());
    for (std::size_t i = 0; i + 2 < args.size(); ++i) {
      if (args[i] == "--bind" && args[i + 1] == host && args[i + 2] == sandbox_workspace) {
        if (alive(pid)) out.push_back(pid);
        break;
      }
    }
  }
  return out;
}

std::vector<pid_t> reclaim_workspace(const fs::path& host_workspace, const std::string& sandbox_workspace,
                                     std::chrono::milliseconds wait) {
  const auto pids = processes_binding(host_workspace, sandbox_workspace);
  for (pid_t pid : pids) ::kill(pid, SIGKILL);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::vector<pid_t> left = pids;
  while (!left.empty()) {
    std::vector<pid_t> still;
    for (pid_t pid : left) {
      if (alive(pid)) still.push_back(pid);
    }
    left = std::move(still);
    if (left.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!left.empty()) {
    std::ostringstream list;
    for (std::size_t i = 0; i < left.size(); ++i) list << (i ? ", " : "") << left[i];
    throw sdk::failed("processes of an earlier sandbox still bind the workspace " + host_workspace.string() +
                      " and did not end on SIGKILL within " + std::to_string(wait.count()) + " ms (pids " + list.str() +
                      "); a new sandbox would share the workspace with them. Check them with `ps -p`, then retry.");
  }
  return pids;
}

}  // namespace r2r::plugins::sandbox::local
