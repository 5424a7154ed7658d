// SPDX-License-Identifier: MIT
// One process holding a GPU, as the vendor SMI tools list it (rocm-smi --showpids, amd-smi
// process, nvidia-smi --query-compute-apps / the nvidia-smi Processes table).
#pragma once

#include <optional>
#include <string>

namespace r2r::plugins::verifier {

struct gpu_process {
  long long pid = -1;
  std::string name;                  // empty when the tool shows N/A or UNKNOWN
  std::string gpu;                   // GPU index, index list or UUID, as the tool prints it
  std::optional<double> vram_bytes;  // nullopt when the tool could not read it (UNKNOWN, N/A)
};

}  // namespace r2r::plugins::verifier
