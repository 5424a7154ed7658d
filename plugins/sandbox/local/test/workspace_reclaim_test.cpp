// SPDX-License-Identifier: MIT
#include "workspace_reclaim.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace r2r::plugins::sandbox::local {
namespace {

// Attack on the scan itself, not on the sandbox: processes that exit while /proc is being read.
// The kernel fails a read of /proc/PID/cmdline with ESRCH once the process has released its
// memory; a scan that treats that as an error (std::ifstream's streambuf throws on it) makes
// `create` fail on any busy host. Children that exec and exit as fast as they can are churned
// beside repeated scans: every scan must return, and none may list a process that does not bind.
TEST(WorkspaceReclaim, ScanSurvivesProcessesExitingWhileItReadsProc) {
  std::atomic<bool> stop{false};
  std::thread churn([&stop] {
    while (!stop.load()) {
      const pid_t child = ::fork();
      if (child == 0) {
        ::execl("/bin/true", "true", static_cast<char*>(nullptr));
        ::_exit(127);
      }
      if (child > 0) ::waitpid(child, nullptr, 0);
    }
  });
  std::size_t listed = 0;
  for (int i = 0; i < 600; ++i) {
    EXPECT_NO_THROW(listed += processes_binding("/nonexistent/r2r-reclaim-scan", "/workspace").size());
  }
  stop.store(true);
  churn.join();
  EXPECT_EQ(listed, 0U);
}

}  // namespace
}  // namespace r2r::plugins::sandbox::local
