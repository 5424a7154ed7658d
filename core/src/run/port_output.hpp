// SPDX-License-Identifier: MIT
// The human summary of `repo2rocm port`: files, conversion, what is left for review, hazards, the
// build check per arch and the stages, from convert.json's content.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <ostream>

namespace r2r::run {

void print_port_summary(std::ostream& out, const nlohmann::json& report, const std::filesystem::path& source,
                        const std::filesystem::path& dir);

}  // namespace r2r::run
