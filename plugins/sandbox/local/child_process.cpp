// SPDX-License-Identifier: MIT
#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <system_error>

namespace r2r::plugins::sandbox::local {
namespace {

using clock = std::chrono::steady_clock;

struct fd_pair {
  int read = -1;
  int write = -1;
};

fd_pair make_pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
  return {fds[0], fds[1]};
}

// In the child after fork: only async-signal-safe calls until exec.
[[noreturn]] void exec_child(const std::vector<char*>& argv, const std::vector<char*>& env, const fd_pair& out,
                             const fd_pair& err, const process_limits& limits) {
  setpgid(0, 0);
  const int null = open("/dev/null", O_RDONLY);
  if (null >= 0) dup2(null, 0);
  dup2(out.write, 1);
  dup2(err.write, 2);
  const std::array<std::pair<int, rlim_t>, 6> rl{{{RLIMIT_AS, limits.address_space_bytes},
                                                  {RLIMIT_NPROC, limits.processes},
                                                  {RLIMIT_CPU, limits.cpu_seconds},
                                                  {RLIMIT_FSIZE, limits.file_size_bytes},
                                                  {RLIMIT_NOFILE, limits.open_files},
                                                  {RLIMIT_CORE, 0}}};
  for (const auto& [resource, value] : rl) {
    if (value == RLIM_INFINITY) continue;
    const rlimit r{value, value};
    if (setrlimit(resource, &r) != 0) _exit(126);
  }
  execve(argv[0], argv.data(), env.data());
  _exit(127);
}

}  // namespace

process_result run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                           const process_limits& limits, std::chrono::milliseconds timeout, std::size_t max_output,
                           const std::function<bool()>& cancelled) {
  std::vector<char*> c_argv;
  for (const auto& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  std::vector<char*> c_env;
  for (const auto& e : env) c_env.push_back(const_cast<char*>(e.c_str()));
  c_env.push_back(nullptr);

  const fd_pair out = make_pipe();
  const fd_pair err = make_pipe();
  const auto started = clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    for (int fd : {out.read, out.write, err.read, err.write}) close(fd);
    throw std::system_error(e, std::generic_category(), "fork");
  }
  if (pid == 0) exec_child(c_argv, c_env, out, err, limits);
  setpgid(pid, pid);  // also here, so the group exists before any kill below
  close(out.write);
  close(err.write);

  process_result result;
  result.out = plugins::sandbox::capped_output(max_output);
  result.err = plugins::sandbox::capped_output(max_output);
  std::array<pollfd, 2> fds{{{out.read, POLLIN, 0}, {err.read, POLLIN, 0}}};
  const auto deadline = timeout.count() > 0 ? started + timeout : clock::time_point::max();
  clock::time_point killed_at{};
  bool killed = false;
  char buffer[64 * 1024];
  int open_fds = 2;
  while (open_fds > 0) {
    const auto now = clock::now();
    if (!killed && (now >= deadline || (cancelled && cancelled()))) {
      (now >= deadline ? result.timed_out : result.cancelled) = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      killed = true;
      killed_at = now;
    }
    // After a kill, a descendant that escaped the group could hold the pipes; stop waiting then.
    if (killed && now - killed_at > std::chrono::seconds(5)) break;
    if (poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) break;
    for (auto& p : fds) {
      if (p.fd < 0 || (p.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = read(p.fd, buffer, sizeof buffer);
      if (n > 0) {
        (p.fd == out.read ? result.out : result.err).append(std::string_view(buffer, static_cast<std::size_t>(n)));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(p.fd);
        p.fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  kill(-pid, SIGKILL);  // nothing of the group outlives the call
  result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - started);
  return result;
}

}  // namespace r2r::plugins::sandbox::local
