// SPDX-License-Identifier: MIT
// Fuzzes trajectory.jsonl reading: the bundle's reader (parse_trajectory and what the report
// derives from it: usage, installs, the guards' ledger) and the executor's resume reader
// (read_trajectory, which also finds a torn last line).
#include "fuzz_support.hpp"

#include <r2r/executor/trajectory.hpp>
#include <r2r/report/ledger.hpp>
#include <r2r/report/trajectory.hpp>

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = r2r::fuzz::as_text(data, size);
  if (const auto lines = r2r::report::parse_trajectory(text, "trajectory.jsonl")) {
    (void)r2r::report::sum_usage(*lines);
    (void)r2r::report::successful_installs(*lines);
    (void)r2r::report::guard_ledger(*lines);
  }
  const auto file = r2r::fuzz::scratch_dir() / "trajectory.jsonl";
  r2r::fuzz::write_file(file, text);
  if (const auto read = r2r::executor::read_trajectory(file))
    if (read->valid_bytes + read->torn_bytes != size) std::abort();
  return 0;
}
