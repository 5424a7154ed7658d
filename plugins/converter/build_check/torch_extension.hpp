// SPDX-License-Identifier: MIT
// Compiling a torch.utils.cpp_extension source the way a ROCm build of PyTorch does: PyTorch's own
// hipify runs over the sources first (CUDAExtension: is_pytorch_extension=True, out of place:
// k.cu -> k.hip, k.cuh -> k_hip.cuh), then hipcc compiles the result with the torch include
// directories and the flags CUDAExtension passes on ROCm.
//
// The torch comes from a HIP toolchain rootfs built with `scripts/toolchains/hip.sh VERSION DIR
// --with-torch`: sid's CPU PyTorch plus the ROCm-side headers (ATen/hip, c10/hip) that
// scripts/toolchains/torch_hip_headers.py made with PyTorch's hipify under /opt/r2r-torch-hip.
// Pure functions except read_torch_install (reads the rootfs) and run_pytorch_hipify (runs python3
// in the rootfs jail).
#pragma once

#include "rootfs_jail.hpp"

#include <r2r/convert/subprocess.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::converter {

/// True when `text` includes a PyTorch or pybind header (<torch/...>, <ATen/...>, <c10/...>,
/// <pybind11/...>, quoted or angled) in an #include line.
bool includes_pytorch_header(std::string_view text);

/// The targets of the quoted includes of `text` (`#include "x.h"`), in order.
std::vector<std::string> quoted_includes(std::string_view text);

/// What a torch toolchain rootfs holds: its PyTorch version and the guest include directories a
/// ROCm cpp_extension build uses (generated hip headers, torch/include, the C++ API, Python.h).
struct torch_install {
  std::string version;                    // "2.14.1"
  std::vector<std::string> include_dirs;  // guest paths, in search order
};

/// The PyTorch of a rootfs (<rootfs>/.r2r-torch and /opt/r2r-torch-hip/include_dirs.txt), or
/// nullopt when it has none.
std::optional<torch_install> read_torch_install(const std::string& rootfs);

/// The flags torch.utils.cpp_extension passes to hipcc on ROCm (COMMON_HIP_FLAGS,
/// COMMON_HIPCC_FLAGS, the extension name and the C++ standard PyTorch 2.10+ requires), then
/// -isystem for each torch include directory. `extension` is made a C identifier.
std::vector<std::string> torch_compile_flags(const std::string& extension, const torch_install& torch);

/// `hipified` with a `#line 1 "<original_guest_path>"` after the lines PyTorch's hipify put above
/// the original's first line (its banner, a hip_runtime include), so the compiler reports the
/// original file and line. PyTorch's hipify renames within lines and only adds lines at the top;
/// when the line counts say otherwise the text is returned unchanged (diagnostics then name the
/// hipified file).
std::string map_hipified_lines(const std::string& hipified, std::string_view original,
                               const std::string& original_guest_path);

struct pytorch_hipify_result {
  bool ok = false;
  std::map<std::string, std::string> hipified;  // guest path of a source or header -> guest path of its output
  std::string output;                           // what python3 printed, for a failure
  std::string command;
  bool cancelled = false;
};

/// Runs PyTorch's hipify inside `jail` over `project` (a writable guest directory, hipified in
/// place and out of place as CUDAExtension does) for `units` (guest paths beneath it), resolving
/// includes in `header_dirs` (guest).
pytorch_hipify_result run_pytorch_hipify(const rootfs_jail& jail, const std::string& project,
                                         const std::vector<std::string>& header_dirs,
                                         const std::vector<std::string>& units, std::chrono::seconds timeout,
                                         const std::function<bool()>& cancelled);

}  // namespace r2r::plugins::converter
