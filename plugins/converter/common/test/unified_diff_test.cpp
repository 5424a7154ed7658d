// SPDX-License-Identifier: MIT
// Diffs are checked by applying them with patch(1): the only judge that matters.
#include <r2r/convert/unified_diff.hpp>

#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace {

using r2r::plugins::converter::unified_diff;
namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

/// Applies `diff` to `before` with `patch -p1` in a temporary directory and returns the result.
std::string patch_text(const std::string& before, const std::string& diff) {
  const fs::path dir = fs::temp_directory_path() / ("r2r-diff-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "src");
  write(dir / "src" / "f.cu", before);
  write(dir / "p.diff", diff);
  const std::string cmd = "cd " + dir.string() + " && patch -s -p1 < p.diff > out.txt 2>&1";
  const int rc = std::system(cmd.c_str());
  std::string result = rc == 0 ? read(dir / "src" / "f.cu") : "PATCH FAILED: " + read(dir / "out.txt");
  fs::remove_all(dir);
  return result;
}

TEST(UnifiedDiff, EqualTextsGiveNoDiff) {
  EXPECT_EQ(unified_diff("src/f.cu", "a\nb\n", "a\nb\n"), "");
}

TEST(UnifiedDiff, ExactFormatOfOneChange) {
  const std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  const std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
  EXPECT_EQ(unified_diff("src/f.cu", before, after),
            "--- a/src/f.cu\n+++ b/src/f.cu\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
}

TEST(UnifiedDiff, MissingFinalNewline) {
  const std::string d = unified_diff("src/f.cu", "a\nb", "a\nc");
  EXPECT_NE(d.find("\\ No newline at end of file"), std::string::npos);
  EXPECT_EQ(patch_text("a\nb", d), "a\nc");
  EXPECT_EQ(patch_text("a\nb\n", unified_diff("src/f.cu", "a\nb\n", "a\nb")), "a\nb");
}

TEST(UnifiedDiff, InsertionsDeletionsAndEmptyFiles) {
  EXPECT_EQ(patch_text("", unified_diff("src/f.cu", "", "x\ny\n")), "x\ny\n");
  EXPECT_EQ(patch_text("x\ny\n", unified_diff("src/f.cu", "x\ny\n", "")), "");
  const std::string before = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
  const std::string after = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nnew\nl\nm\n";
  const std::string d = unified_diff("src/f.cu", before, after);
  EXPECT_EQ(patch_text(before, d), after);
  EXPECT_EQ(std::count(d.begin(), d.end(), '@') / 4, 2) << "far-apart changes make two hunks:\n" << d;
}

TEST(UnifiedDiff, RandomEditsRoundTripThroughPatch) {
  std::mt19937 rng(42);
  for (int round = 0; round < 20; ++round) {
    std::string before;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) before += "line " + std::to_string(rng() % 12) + "\n";
    std::string after;
    std::istringstream in(before);
    std::string line;
    while (std::getline(in, line)) {
      const auto r = rng() % 10;
      if (r == 0) continue;                                                 // delete
      if (r == 1) after += "inserted " + std::to_string(rng() % 5) + "\n";  // insert before
      after += r == 2 ? "changed\n" : line + "\n";
    }
    const std::string d = unified_diff("src/f.cu", before, after);
    EXPECT_EQ(patch_text(before, d), after) << "round " << round << "\n" << d;
  }
}

TEST(UnifiedDiff, FallbackBeyondTheEditLimitIsStillCorrect) {
  std::string before;
  std::string after;
  for (int i = 0; i < 300; ++i) before += "a" + std::to_string(i) + "\n", after += "b" + std::to_string(i) + "\n";
  r2r::plugins::converter::diff_options options;
  options.max_edit_distance = 10;
  EXPECT_EQ(patch_text(before, unified_diff("src/f.cu", before, after, options)), after);
}

}  // namespace
