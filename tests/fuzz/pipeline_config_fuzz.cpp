// SPDX-License-Identifier: MIT
// Fuzzes the pipeline file: JSON syntax, validation against pipeline.schema.json (valijson) and
// the structural reading of a valid file. Never throws: every problem comes back as a problem.
#include "fuzz_support.hpp"

#include <r2r/core/pipeline_config.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = r2r::core::parse_pipeline_text(r2r::fuzz::as_text(data, size), "/fuzz/pipeline.json");
  for (const auto& p : parsed.problems) (void)p.to_string();
  if (parsed.config)
    for (const auto& s : parsed.config->stages) (void)r2r::core::stage_kind(s.stage);
  return 0;
}
