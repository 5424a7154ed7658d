// SPDX-License-Identifier: MIT
// Finds device-code hazards that a CUDA->HIP rename does not fix (wave64 assumptions, inline PTX,
// tensor-core and async-copy features, __CUDA_ARCH__ checks, shared memory above 64 KiB, texture
// references, cooperative-group tiles, device-property fields). Works on CUDA or HIP spelling, so
// it runs before or after hipify. Comments, literals (except asm templates) and `#if 0` blocks are
// not scanned, nor are the helper blocks the idiom ports add (#ifndef R2R_CUDA_IDIOMS_H or
// R2R_CG_IDIOMS_H ... #endif).
// THREADING: reentrant; shares only immutable rule texts.
#pragma once

#include <r2r/sdk/kinds/converter.hpp>

#include <string_view>
#include <vector>

namespace r2r::plugins::converter {

struct hazard_scan {
  bool failed = false;                          // the text could not be lexed (diagnostics say where)
  std::vector<sdk::converter::hazard> hazards;  // sorted by line, column, rule
  std::vector<sdk::converter::diagnostic> diagnostics;
};

hazard_scan scan_hazards(std::string_view path, std::string_view text);

}  // namespace r2r::plugins::converter
