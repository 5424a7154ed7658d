// SPDX-License-Identifier: MIT
// Scale-bearing values of one file, by the rules shared with the Mode 1 verifier
// (r2r/sdk/scale_values.hpp), so scale_as_planned compares like with like.
//
// The shared rules run a regex over the whole of each Python file, which was the largest single
// cost of planning a 20,000-file repository. A file is handed to them only when it could hold a
// scale value: its lower-cased text contains a fragment of every scale key of is_scale_key()
// (epoch, step, iter, batch, bs, seq, size, length, sample, subset, fraction, layer, d_model or
// d-model, embd,
// resolution) or an add_argument( / set_defaults( call (which also give config paths). Every key
// the rules accept contains one of those fragments, so the result is the same; only the time is not.
#include "scan_parts.hpp"

#include <r2r/sdk/scale_values.hpp>

#include <algorithm>
#include <cctype>

namespace r2r::planning::detail {
namespace {

bool could_hold_scale_values(std::string_view content) {
  std::string lower(content);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static constexpr std::string_view fragments[] = {
      "epoch",  "step",     "iter",  "batch",   "bs",      "seq",  "size",       "length",       "sample",
      "subset", "fraction", "layer", "d_model", "d-model", "embd", "resolution", "add_argument", "set_defaults"};
  return std::any_of(std::begin(fragments), std::end(fragments),
                     [&](std::string_view f) { return lower.find(f) != std::string::npos; });
}

}  // namespace

void scan_scale_values(scan_state& s, const std::string& rel, std::string_view content) {
  if (!could_hold_scale_values(content)) return;
  for (auto& v : sdk::scan_scale_values(rel, content))
    s.fp.scale_values.push_back({v.form, v.key, v.value, rel, v.line});
}

}  // namespace r2r::planning::detail
