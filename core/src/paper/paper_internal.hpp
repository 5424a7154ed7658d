// SPDX-License-Identifier: MIT
// Pieces shared by the paper library's sources; not installed.
#pragma once

#include <r2r/paper/candidates.hpp>

#include <string>
#include <vector>

namespace r2r::paper::detail {

/// The dataset after " on (the) " in a caption or sentence ("on ImageNet" -> "ImageNet"); "" none.
std::string dataset_in(const std::string& text);
/// test, val or "" from "test set", "validation", "dev set".
std::string split_in(const std::string& text);
/// Sets the class, direction and tolerance of `c.metric` (metrics.hpp).
void fill_class(candidate& c);
std::vector<candidate> table_candidates(const table& t);
/// Result sentences of the lines that are not table rows (`skip[i]` true for table lines).
std::vector<candidate> sentence_candidates(const document& doc, const std::vector<bool>& skip);

}  // namespace r2r::paper::detail
