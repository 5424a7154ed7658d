// SPDX-License-Identifier: MIT
// Scale-bearing values of one file, by the rules shared with the Mode 1 verifier
// (r2r/sdk/scale_values.hpp), so scale_as_planned compares like with like.
#include "scan_parts.hpp"

#include <r2r/sdk/scale_values.hpp>

namespace r2r::planning::detail {

void scan_scale_values(scan_state& s, const std::string& rel, std::string_view content) {
  for (auto& v : sdk::scan_scale_values(rel, content))
    s.fp.scale_values.push_back({v.form, v.key, v.value, rel, v.line});
}

}  // namespace r2r::planning::detail
