// SPDX-License-Identifier: MIT
// Fuzzes the paper path (--paper): the PDF reader (poppler-cpp, then our layout), the Markdown and
// LaTeX readers on the same bytes, and result extraction and the tie on whatever loads. A load
// error is the documented failure; anything thrown or any crash is a finding.
#include "fuzz_support.hpp"

#include <r2r/paper/candidates.hpp>
#include <r2r/paper/target.hpp>

namespace {

void extract(const r2r::paper::load_result<r2r::paper::document>& doc) {
  if (!doc) return;
  const auto candidates = r2r::paper::extract_candidates(*doc);
  r2r::paper::tie_context ctx;
  ctx.add("python train.py --model resnet50 --dataset cifar10", "the command");
  const auto choice = r2r::paper::choose_target(candidates, ctx, candidates.empty() ? 0 : candidates.size() - 1);
  for (const auto& c : candidates) (void)r2r::paper::to_json(c).dump();
  (void)choice;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = r2r::fuzz::as_text(data, size);
  extract(r2r::paper::load_pdf(bytes, "fuzz.pdf"));
  extract(r2r::paper::load_text_source(bytes, "latex", "fuzz.tex"));
  extract(r2r::paper::load_text_source(bytes, "markdown", "fuzz.md"));
  return 0;
}
