// SPDX-License-Identifier: MIT
// Fenced code blocks of a Markdown document (CommonMark fences: a run of at least three backticks
// or tildes opens a block; a run of the same character, at least as long and with nothing after it
// but spaces, closes it; an unclosed block runs to the end of the document). Unlike CommonMark, a
// fence may be indented by any amount, because READMEs nest blocks inside list items.
// Contract: pure functions; the returned views point into the caller's text and live as long as it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace r2r::text {

struct fenced_block {
  std::string info;                     // the info string after the opening fence, trimmed
  std::string language;                 // its first word, lower-case, without pandoc's "{." / "}"
  int open_line = 0;                    // 1-based line of the opening fence
  int close_line = 0;                   // 1-based line of the closing fence; 0 when unclosed
  std::vector<std::string_view> lines;  // the content lines, line open_line + 1 + i, untrimmed
};

/// Every fenced block of `markdown`, in order. Lines end at "\n" ("\r\n" accepted).
std::vector<fenced_block> fenced_blocks(std::string_view markdown);

/// The lines of `text` without their terminators; element i is line i + 1.
std::vector<std::string_view> split_lines(std::string_view text);

/// `s` without leading and trailing spaces, tabs and carriage returns.
std::string_view trim(std::string_view s);

}  // namespace r2r::text
