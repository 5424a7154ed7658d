// SPDX-License-Identifier: MIT
// One live sandbox per workspace: before a new sandbox binds a host workspace, every process that
// still binds it from an earlier sandbox (a bwrap exec of an executor that was SIGKILLed, whose
// namespace the kernel is still tearing down, or one that outlived its owner) is killed and
// waited for, so nothing of theirs writes into the workspace after create returns.
// THREADING: no shared state; safe from any thread. Reads /proc of the host.
#pragma once

#include <sys/types.h>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace r2r::plugins::sandbox::local {

/// Pids of this user's processes whose command line binds `host_workspace` at `sandbox_workspace`
/// (`--bind HOST SANDBOX`, the form bwrap_args writes), this process excluded. Processes that are
/// already zombies are not listed: a zombie bwrap has no live namespace left.
std::vector<pid_t> processes_binding(const std::filesystem::path& host_workspace, const std::string& sandbox_workspace);

/// Kills (SIGKILL) every process processes_binding lists and waits up to `wait` for each to be
/// gone or a zombie. Returns the pids it killed. Throws sdk::failed naming the pids when some are
/// still alive after `wait`.
std::vector<pid_t> reclaim_workspace(const std::filesystem::path& host_workspace, const std::string& sandbox_workspace,
                                     std::chrono::milliseconds wait);

}  // namespace r2r::plugins::sandbox::local
