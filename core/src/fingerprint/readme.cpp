// SPDX-License-Identifier: MIT
// The README: commands of its fenced shell blocks (read by support/text, the one README command
// parser) as workloads and install lines, assets (Hugging Face models/datasets, Google Drive, wget/curl downloads) and
// metric claims
// (`accuracy: 92.3`, `2.1x speedup`, `perplexity of 5.6`) outside code blocks.
#include "scan_parts.hpp"
#include "text_util.hpp"

#include <r2r/support/text/fences.hpp>
#include <r2r/support/text/readme_commands.hpp>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <regex>

namespace r2r::planning::detail {
namespace {

void scan_assets(scan_state& s, const std::string& rel, std::string_view t, int ln) {
  static const std::regex hf_url(R"(huggingface\.co/(datasets/)?([A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+))");
  static const std::regex gdrive(R"(drive\.google\.com/(?:drive/folders/|file/d/|open\?id=|uc\?id=)([A-Za-z0-9_\-]+))");
  static const std::regex fetch_url(R"((?:wget|curl|aria2c)\s[^\n]*?(https?://[^\s"'<>)\]]+))");
  static const std::regex hf_cli(R"(huggingface-cli\s+download\s+([A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+))");
  std::match_results<std::string_view::const_iterator> m;
  if (text::contains(t, "huggingface.co/")) {
    auto begin = t.begin();
    while (std::regex_search(begin, t.end(), m, hf_url)) {
      const std::string id = m[2].str();
      const std::string owner = id.substr(0, id.find('/'));
      if (owner != "docs" && owner != "spaces" && owner != "blog" && owner != "papers") {
        s.fp.assets.push_back({m[1].matched ? "hf_dataset" : "hf_model", id, std::string(t.substr(0, 200)), rel, ln});
      }
      begin = m[0].second;
    }
  }
  if (text::contains(t, "drive.google.com") && std::regex_search(t.begin(), t.end(), m, gdrive)) {
    s.fp.assets.push_back({"gdrive", m[1].str(), std::string(t.substr(0, 200)), rel, ln});
  }
  if ((text::contains(t, "wget") || text::contains(t, "curl") || text::contains(t, "aria2c")) &&
      std::regex_search(t.begin(), t.end(), m, fetch_url)) {
    const std::string url = m[1].str();
    if (!text::contains(url, "pypi.org") && !text::contains(url, "github.com") && !text::contains(url, "sh.rustup")) {
      s.fp.assets.push_back({"download_url", url, std::string(t.substr(0, 200)), rel, ln});
    }
  }
  if (text::contains(t, "huggingface-cli") && std::regex_search(t.begin(), t.end(), m, hf_cli)) {
    s.fp.assets.push_back({"hf_model", m[1].str(), std::string(t.substr(0, 200)), rel, ln});
  }
}

// The number of a metric claim; nothing when it is too large for a double (no real claim is,
// and std::stod would throw out of the scanner).
std::optional<double> claimed_value(const std::string& digits) {
  const double v = std::strtod(digits.c_str(), nullptr);
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

void scan_metrics(scan_state& s, const std::string& rel, std::string_view t, int ln) {
  static const std::string names =
      R"((top-?1 accuracy|top-?5 accuracy|accuracy|acc|top-?1|top-?5|f1|bleu|rouge-l|rouge|miou|map|auc|loss|perplexity|ppl|speedup|speed-up|throughput|latency|fid|psnr|ssim|wer))";
  static const std::regex after(
      R"(\b)" + names + R"(\b\s*(?:of|:|=|is|reaches|achieves|of about|~)?\s*(\d+(?:\.\d+)?)\s*(%|x|×)?)",
      std::regex::icase);
  static const std::regex before(R"((\d+(?:\.\d+)?)\s*(%|x|×)?\s+)" + names + R"(\b)", std::regex::icase);
  bool has_digit = false;
  for (char c : t) has_digit = has_digit || std::isdigit(static_cast<unsigned char>(c));
  if (!has_digit) return;
  const std::string line(t);
  std::smatch m;
  auto canonical = [](std::string n) {
    n = text::lower(n);
    if (n == "acc" || n == "top1" || n == "top-1" || n == "top-1 accuracy" || n == "top1 accuracy")
      return std::string("accuracy");
    if (n == "top5" || n == "top-5 accuracy" || n == "top5 accuracy") return std::string("top-5");
    if (n == "ppl") return std::string("perplexity");
    if (n == "speed-up") return std::string("speedup");
    return n;
  };
  std::string::const_iterator begin = line.begin();
  bool found = false;
  while (std::regex_search(begin, line.cend(), m, after)) {
    if (const auto v = claimed_value(m[2].str()))
      s.fp.metrics.push_back({canonical(m[1].str()), *v, m[3].matched ? m[3].str() : "", line.substr(0, 240), rel, ln});
    found = true;
    begin = m[0].second;
  }
  if (found) return;
  begin = line.begin();
  while (std::regex_search(begin, line.cend(), m, before)) {
    if (const auto v = claimed_value(m[1].str()))
      s.fp.metrics.push_back({canonical(m[3].str()), *v, m[2].matched ? m[2].str() : "", line.substr(0, 240), rel, ln});
    begin = m[0].second;
  }
}

}  // namespace

void scan_readme(scan_state& s, const std::string& rel, std::string_view content) {
  const auto lines = text::lines(content);
  std::vector<bool> fenced(lines.size() + 2, false);  // by 1-based line: inside a block or a fence line
  for (const auto& b : ::r2r::text::fenced_blocks(content)) {
    const int last = b.close_line != 0 ? b.close_line : static_cast<int>(lines.size());
    for (int ln = b.open_line; ln <= last && ln < static_cast<int>(fenced.size()); ++ln) fenced[ln] = true;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    const std::string_view t = text::trim(lines[i]);
    scan_assets(s, rel, t, ln);
    if (!fenced[ln]) scan_metrics(s, rel, t, ln);
  }
  for (const auto& c : ::r2r::text::readme_commands(content)) {
    scan_install_command(s, c.command, "readme", rel, c.line);
    if (auto e = command_entry_point(s, c.command, "readme", rel, c.line)) s.fp.entry_points.push_back(std::move(*e));
  }
}

}  // namespace r2r::planning::detail
