// SPDX-License-Identifier: MIT
// The per-file loop of a converter that changes text (hipify, hipify-external): for every file of
// a request it classifies the path, loads the input (inline or root/path), reports bad input,
// calls the transform, makes the unified diff (against base_root/path when given), writes
// out_root/path and fills the response and its summary. One file's problem never stops the loop.
#pragma once

#include <r2r/convert/file_io.hpp>
#include <r2r/convert/hipify.hpp>
#include <r2r/sdk/kinds/converter.hpp>

#include <functional>
#include <string>
#include <vector>

namespace r2r::plugins::converter {

struct transform_options {
  std::string converter_id;
  std::vector<std::string> source_extensions;
  bool build_files = true;
  std::size_t max_file_bytes = std::size_t{8} << 20;
};

/// Converts one loaded, valid input of the given kind (source or build).
using transform_fn = std::function<conversion(const loaded_input& input, file_kind kind)>;

/// Sees every valid input of the request before the first transform (to collect project-wide
/// facts such as the macros the project defines).
using prepare_fn = std::function<void(const std::vector<const loaded_input*>& inputs)>;

/// Throws sdk::invalid_argument for a malformed request (bad paths or roots), sdk::cancelled when
/// `throw_if_cancelled` throws between files. All inputs are loaded before the transforms run.
sdk::converter::convert_response transform_files(const sdk::converter::convert_request& request,
                                                 const transform_options& options, const transform_fn& transform,
                                                 const std::function<void()>& throw_if_cancelled,
                                                 const prepare_fn& prepare = {});

/// Fills response.summary from the file results, hazards and builds (counts by status, by
/// diagnostic severity, and the sum of every per-file statistic).
void summarize(sdk::converter::convert_response& response);

}  // namespace r2r::plugins::converter
