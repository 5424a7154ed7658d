// SPDX-License-Identifier: MIT
#include "golden_file.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace r2r::test {
namespace {

std::string line_at(const std::string& text, std::size_t offset) {
  const std::size_t begin = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t from = begin == std::string::npos || offset == 0 ? 0 : begin + 1;
  const std::size_t end = text.find('\n', from);
  return text.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

}  // namespace

std::string read_golden(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("golden file " + file.string() + " cannot be read");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string golden_mismatch(const std::filesystem::path& golden, const std::string& actual) {
  std::string expected;
  try {
    expected = read_golden(golden);
  } catch (const std::exception&) {
    expected = "\x01<unreadable>";
  }
  if (expected == actual) return {};
  std::size_t at = 0;
  while (at < expected.size() && at < actual.size() && expected[at] == actual[at]) ++at;
  const auto line = 1 + std::count(actual.begin(), actual.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  // golden-actual/<component>/NAME, the component being the directory above test/golden.
  const std::filesystem::path out = std::filesystem::current_path() / "golden-actual" /
                                    golden.parent_path().parent_path().parent_path().filename() / golden.filename();
  std::error_code ec;
  std::filesystem::create_directories(out.parent_path(), ec);
  std::ofstream(out, std::ios::binary) << actual;
  return golden.string() + " differs at byte " + std::to_string(at) + " (line " + std::to_string(line) +
         ")\n  golden: " + line_at(expected, at) + "\n  actual: " + line_at(actual, at) + "\nthe actual text is in " +
         out.string() +
         "; read it and, if the change is intended and still says what the design requires, copy it over the "
         "golden file";
}

}  // namespace r2r::test
