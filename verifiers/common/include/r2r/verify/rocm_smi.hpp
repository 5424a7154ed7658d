// SPDX-License-Identifier: MIT
// Parsers for rocm-smi output: --showpids (tab- or space-separated, several blocks, UNKNOWN
// values), --showproductname (text, --json, --csv) and the default concise table.
#pragma once

#include <r2r/verify/gpu_process.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier {

struct kfd_process : gpu_process {
  std::optional<long long> sdma;
  std::optional<long long> cu_occupancy;
};
/// Every row under every "KFD process information:" header. An idle GPU ("No KFD PIDs currently
/// running") gives an empty list. Throws parse_error when the text is not --showpids output.
std::vector<kfd_process> parse_rocm_smi_showpids(std::string_view text);

struct card_product {
  std::string card;  // "card0" or "GPU[0]"
  std::string series, model, vendor, sku, gfx_version;
};
/// Detects the form: JSON ("{"), CSV ("device,..." header) or the text form "GPU[n] : key: value".
std::vector<card_product> parse_rocm_smi_productname(std::string_view text);

struct concise_row {
  int device = -1;
  std::string vram_percent;
  std::string gpu_percent;
};
/// Rows of the "Concise Info" table (ROCm 5 and ROCm 6.2+ layouts).
std::vector<concise_row> parse_rocm_smi_concise(std::string_view text);

}  // namespace r2r::plugins::verifier
