// SPDX-License-Identifier: MIT
#include <r2r/convert/subprocess.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::converter;
using namespace std::chrono_literals;

TEST(Subprocess, CapturesOutputAndExitCode) {
  const auto sh = find_program("sh");
  ASSERT_TRUE(sh);
  process_options o;
  o.argv = {*sh, "-c", "echo out; echo err >&2; exit 3"};
  const auto r = run_process(o);
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.ok());
}

TEST(Subprocess, TimeoutKillsTheProcessTree) {
  process_options o;
  o.argv = {*find_program("sh"), "-c", "sleep 30 & sleep 30; echo never"};
  o.timeout = 300ms;
  const auto r = run_process(o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_LT(r.seconds, 10);
  EXPECT_EQ(r.out, "");
}

TEST(Subprocess, CancellationStopsIt) {
  process_options o;
  o.argv = {*find_program("sh"), "-c", "sleep 30"};
  int polls = 0;
  o.cancelled = [&polls] { return ++polls > 2; };
  const auto r = run_process(o);
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.ok());
}

TEST(Subprocess, WorkingDirectoryOutputCapAndMissingProgram) {
  process_options o;
  o.argv = {*find_program("sh"), "-c", "pwd; yes | head -c 100000"};
  o.working_directory = "/tmp";
  o.max_output = 1000;
  const auto r = run_process(o);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out.rfind("/tmp\n", 0), 0u);
  EXPECT_EQ(r.out.size(), 1000u);
  EXPECT_FALSE(find_program("r2r-no-such-program-anywhere"));
  process_options bad;
  bad.argv = {"/nonexistent/tool"};
  const auto failed = run_process(bad);
  EXPECT_FALSE(failed.started);
  EXPECT_THAT(failed.start_error, ::testing::HasSubstr("/nonexistent/tool"));
}

TEST(Subprocess, CommandLineQuoting) {
  EXPECT_EQ(command_line({"hipcc", "-c", "a b.hip", "it's"}), "hipcc -c 'a b.hip' 'it'\\''s'");
}

}  // namespace
