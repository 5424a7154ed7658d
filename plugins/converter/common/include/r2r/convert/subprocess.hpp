// SPDX-License-Identifier: MIT
// Runs an external tool (hipify-perl, hipify-clang, hipcc) with captured output, a deadline and
// cooperative cancellation. The child runs in its own process group, so a timeout or a cancel
// kills the whole tree (hipcc starts clang, which starts lld). stdin is /dev/null.
// THREADING: safe to call from any thread (posix_spawn, no fork of a multithreaded host).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::converter {

struct process_options {
  std::vector<std::string> argv;  // argv[0] is an absolute path (see find_program)
  std::string working_directory;  // empty: the caller's
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};
  std::size_t max_output = std::size_t{1} << 20;  // per stream; the rest is dropped
  std::function<bool()> cancelled;                // polled about every 100 ms; may be empty
};

struct process_result {
  bool started = false;
  std::string start_error;  // why it did not start
  int exit_code = -1;       // when it exited
  int signal = 0;           // when a signal ended it
  bool timed_out = false;
  bool cancelled = false;
  std::string out;
  std::string err;
  double seconds = 0;

  bool ok() const noexcept { return started && exit_code == 0 && !timed_out && !cancelled; }
};

process_result run_process(const process_options& options);

/// The absolute path of an executable `name`: each of `dirs` first, then $PATH. nullopt when absent.
std::optional<std::string> find_program(std::string_view name, const std::vector<std::string>& dirs = {});

/// Quotes argv for a log line (shell-style, single quotes where needed).
std::string command_line(const std::vector<std::string>& argv);

}  // namespace r2r::plugins::converter
