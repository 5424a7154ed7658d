// SPDX-License-Identifier: MIT
// Hand-reviewed golden text files compared byte for byte. There is deliberately no "update" switch:
// a mismatch writes the actual text under the test's working directory (golden-actual/COMPONENT/NAME) so a
// person can diff it, read it and copy it over the golden file by hand.
#pragma once

#include <filesystem>
#include <string>

namespace r2r::test {

/// The bytes of `file`; throws std::runtime_error naming the file when it cannot be read.
std::string read_golden(const std::filesystem::path& file);

/// Empty when `actual` equals the bytes of `golden`; otherwise what differs (first differing line,
/// both sides) and where the actual text was written for review.
std::string golden_mismatch(const std::filesystem::path& golden, const std::string& actual);

}  // namespace r2r::test
