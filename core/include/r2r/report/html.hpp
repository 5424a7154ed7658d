// SPDX-License-Identifier: MIT
// report.html: one self-contained page (inline CSS, no script, no external resource) rendered from
// report.json, the trajectory and the diff. Every text from the run is HTML-escaped.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace r2r::report {

/// `&`, `<`, `>`, `"` and `'` as entities.
std::string html_escape(std::string_view text);

std::string render_html(const nlohmann::json& report, const std::vector<nlohmann::json>& trajectory,
                        std::string_view patch_diff);

}  // namespace r2r::report
