// SPDX-License-Identifier: MIT
// Fuzzes the agentic rewrite's answer format and its application: the input is a source file and
// a model answer separated by a line "====". Edits accepted by parse_answer() are applied.
#include "fuzz_support.hpp"
#include "region_edit.hpp"

using namespace r2r::plugins::converter::agentic;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [text, answer] = r2r::fuzz::split_once(r2r::fuzz::as_text(data, size), "\n====\n");
  const auto line_count = static_cast<std::int64_t>(split_lines(text).size());
  std::vector<r2r::sdk::converter::hazard> hazards(2);
  hazards[0].line = 1 + static_cast<std::int64_t>(size % 7);
  hazards[1].line = line_count;
  const auto regions = hazard_regions(hazards, line_count, 3);
  const auto parsed = parse_answer(answer, regions);
  if (parsed.problem.empty()) (void)apply_edits(text, parsed.edits);
  return 0;
}
