// SPDX-License-Identifier: MIT
// The regions of a file that the agentic rewrite may change, and the strict answer format the
// model must use to change them. A region is the hazard's line with `context` lines either side
// (1-based, inclusive, overlapping windows merged). An answer is one or more blocks
//   @@ replace A-B
//   <replacement lines>
//   @@ end
// where A..B lies inside one region and blocks do not overlap; anything outside blocks is ignored.
// Pure functions of their inputs; no I/O.
#pragma once

#include <r2r/sdk/kinds/converter.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::converter::agentic {

struct line_range {
  std::int64_t first = 0;  // 1-based, inclusive
  std::int64_t last = 0;
};

/// The merged windows around each hazard line, clamped to [1, line_count].
std::vector<line_range> hazard_regions(const std::vector<sdk::converter::hazard>& hazards, std::int64_t line_count,
                                       std::int64_t context);

struct edit {
  line_range range;
  std::string replacement;  // whole lines, each ending in '\n' (empty: the lines are deleted)
};

struct parsed_answer {
  std::vector<edit> edits;  // sorted by range.first
  std::string problem;      // non-empty: the answer is not usable, and why (said to the model)
};

/// Parses `answer`; every edit must lie inside one of `regions` and edits must not overlap.
parsed_answer parse_answer(std::string_view answer, const std::vector<line_range>& regions);

/// `text` with the edits applied (line numbers refer to `text`).
std::string apply_edits(std::string_view text, const std::vector<edit>& edits);

/// Splits into lines without their '\n'.
std::vector<std::string> split_lines(std::string_view text);

}  // namespace r2r::plugins::converter::agentic
