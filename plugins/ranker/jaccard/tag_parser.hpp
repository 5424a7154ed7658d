// SPDX-License-Identifier: MIT
// A ROCm image tag is a structured name, not one token: `rocm7.2_ubuntu24.04_py3.12_pytorch_release_2.7.1`,
// `v0.4.9.post2-rocm700-mi35x-20250715`, `rocm6.3-tf2.17-dev`. This splits it at `_` and `-` and
// reads the fields it carries (ROCm, Ubuntu, Python, framework versions, gfx targets).
#pragma once

#include <r2r/sdk/kinds/ranker.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::ranker {

/// The tag's parts, lower-cased, split at '_' and '-' (e.g. {"rocm7.2", "ubuntu24.04", ...}).
std::vector<std::string> tag_tokens(std::string_view tag);

/// Fields read from the name. Compact versions are expanded ("rocm700" -> "7.0.0", "py312" ->
/// "3.12"); "pytorch" maps to the framework key "torch", "tf" to "tensorflow". Fields the name
/// does not carry stay empty.
sdk::ranker::tag_fields parse_tag(std::string_view tag);

/// `base` with every empty field filled from `parsed` (the catalog wins where both say something).
sdk::ranker::tag_fields merge_fields(const sdk::ranker::tag_fields& base, const sdk::ranker::tag_fields& parsed);

}  // namespace r2r::plugins::ranker
