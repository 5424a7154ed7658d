// SPDX-License-Identifier: MIT
#include <r2r/convert/subprocess.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace r2r::plugins::converter {
namespace {

struct fd_pair {
  int read = -1;
  int write = -1;
  ~fd_pair() {
    if (read >= 0) ::close(read);
    if (write >= 0) ::close(write);
  }
};

bool executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<std::string> find_program(std::string_view name, const std::vector<std::string>& dirs) {
  if (name.find('/') != std::string_view::npos) {
    const std::string path(name);
    return executable(path) ? std::optional<std::string>(path) : std::nullopt;
  }
  std::vector<std::string> search = dirs;
  if (const char* env = std::getenv("PATH")) {
    std::string_view rest(env);
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      search.emplace_back(rest.substr(0, colon));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  for (const auto& dir : search) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + std::string(name);
    if (executable(candidate)) return candidate;
  }
  return std::nullopt;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_./=:,+@%") == std::string::npos;
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (const char c : arg) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    out += '\'';
  }
  return out;
}

process_result run_process(const process_options& options) {
  process_result result;
  const auto start = std::chrono::steady_clock::now();
  if (options.argv.empty()) {
    result.start_error = "no command";
    return result;
  }
  fd_pair out;
  fd_pair err;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    result.start_error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  out.read = fds[0], out.write = fds[1];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    result.start_error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  err.read = fds[0], err.write = fds[1];

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write, 1);
  posix_spawn_file_actions_adddup2(&actions, err.write, 2);
  if (!options.working_directory.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, options.working_directory.c_str());
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  std::vector<char*> argv;
  for (const auto& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(out.write), out.write = -1;
  ::close(err.write), err.write = -1;
  if (rc != 0) {
    result.start_error = options.argv[0] + ": " + std::strerror(rc);
    return result;
  }
  result.started = true;

  const auto deadline = start + options.timeout;
  pollfd polls[2] = {{out.read, POLLIN, 0}, {err.read, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_streams = 2;
  bool killed = false;
  char buffer[65536];
  while (open_streams > 0) {
    const auto now = std::chrono::steady_clock::now();
    if (!killed && now >= deadline) {
      result.timed_out = true;
    } else if (!killed && options.cancelled && options.cancelled()) {
      result.cancelled = true;
    }
    if (!killed && (result.timed_out || result.cancelled)) {
      ::kill(-pid, SIGKILL);
      killed = true;
    }
    const int ready = ::poll(polls, 2, 100);
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (polls[i].fd < 0 || (polls[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t got = ::read(polls[i].fd, buffer, sizeof buffer);
      if (got > 0) {
        const std::size_t room = options.max_output > sinks[i]->size() ? options.max_output - sinks[i]->size() : 0;
        sinks[i]->append(buffer, std::min<std::size_t>(room, static_cast<std::size_t>(got)));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        polls[i].fd = -1;
        --open_streams;
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace r2r::plugins::converter
