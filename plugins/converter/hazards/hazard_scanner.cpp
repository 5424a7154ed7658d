// SPDX-License-Identifier: MIT
#include "hazard_scanner.hpp"

#include "scan_context.hpp"

#include <r2r/convert/lexer.hpp>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace r2r::plugins::converter {

hazard_scan scan_hazards(std::string_view path, std::string_view text) {
  hazard_scan out;
  // The helper blocks the idiom ports add (cuda_idioms.hpp, cg_idioms.hpp) are AMD code written for
  // wave64: not scanned.
  std::vector<std::pair<std::size_t, std::size_t>> blocks;
  for (const std::string_view guard : {std::string_view("R2R_CUDA_IDIOMS_H"), std::string_view("R2R_CG_IDIOMS_H")}) {
    const std::size_t begin = text.find("#ifndef " + std::string(guard));
    const std::size_t end =
        begin == std::string_view::npos ? begin : text.find("#endif  // " + std::string(guard), begin);
    if (end != std::string_view::npos) blocks.emplace_back(begin, end);
  }
  const auto in_block = [&](std::size_t at) {
    return std::any_of(blocks.begin(), blocks.end(), [&](const auto& b) { return at >= b.first && at <= b.second; });
  };
  plugins::converter::lexer lexer(text);
  std::vector<scan_token> tokens;
  tokens.reserve(text.size() / 4);
  for (;;) {
    const plugins::converter::token t = lexer.next();
    if (t.kind == plugins::converter::token_kind::end_of_file) break;
    if (t.kind == plugins::converter::token_kind::error) {
      out.failed = true;
      sdk::converter::diagnostic d;
      d.file = std::string(path);
      d.line = t.line;
      d.column = t.column;
      d.severity = "error";
      d.category = "bad_input";
      d.message = lexer.error_message() + "; the file was not scanned";
      d.hint = "fix the syntax (the compiler rejects it too), then scan again";
      out.diagnostics.push_back(std::move(d));
      return out;
    }
    if (t.kind == plugins::converter::token_kind::comment || t.in_skipped_block) continue;
    if (in_block(t.begin)) continue;
    tokens.push_back({t.kind, lexer.text_of(t), t.line, t.column, t.begin, t.in_directive});
  }
  scan_context ctx(path, text, std::move(tokens));
  scan_wave_rules(ctx);
  scan_feature_rules(ctx);
  scan_shared_memory_rules(ctx);
  out.hazards = ctx.take();
  std::sort(out.hazards.begin(), out.hazards.end(), [](const auto& a, const auto& b) {
    return std::tie(a.line, a.column, a.rule) < std::tie(b.line, b.column, b.rule);
  });
  return out;
}

}  // namespace r2r::plugins::converter
