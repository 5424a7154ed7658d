// SPDX-License-Identifier: MIT
// r2r.converter.build-check: the offline build check stage. Compiles each converted translation
// unit (.cu/.hip, and C++ files that contain HIP code) for every requested gfx target with a
// toolchain: the host's hipcc, or a HIP toolchain rootfs (scripts/toolchains/hip.sh) run through
// bubblewrap with only the rootfs, the sources and a scratch directory visible (rootfs_jail.hpp),
// and classifies failures (compile_log.hpp). Each build result names its toolchain.
// PyTorch-extension units (a unit or a project header it includes uses torch/ATen/c10/pybind11
// headers) are compiled as a ROCm build of torch.utils.cpp_extension does (torch_extension.hpp):
// PyTorch's hipify over a copy of the sources, then hipcc with the torch flags, in a toolchain
// rootfs that has PyTorch (hip.sh --with-torch); with no such rootfs they are compiled as before
// and end as checked_in_container / needs_pytorch. A target the
// toolchain cannot compile for is "not_checkable_here", never "passed". Without the toolchain the
// call fails with R2R_ERR_UNAVAILABLE.
// Files are compiled where they are (root) or, when given inline, in a private temporary
// directory that is removed before the call returns.
// THREADING: the host serialises calls; the toolchain cache is only touched inside a call.
#pragma once

#include "hipcc_toolchain.hpp"
#include "torch_extension.hpp"

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/converter.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::converter {

class build_checker {
 public:
  struct config {
    std::string toolchain = "host";  // host | rootfs | auto (rootfs when it is there, else host)
    std::string rootfs;              // empty: default_rootfs()
    std::string torch_rootfs;        // empty: `rootfs` when it has PyTorch, else default_torch_rootfs()
    std::string bwrap = "bwrap";
    std::string hipcc = "hipcc";
    std::vector<std::string> search_dirs{"/opt/rocm/bin"};
    std::vector<std::string> default_arch{"gfx90a", "gfx942", "gfx950"};
    std::vector<std::string> flags{"-std=c++17", "-O1"};
    std::vector<std::string> include_dirs;  // relative to the project root
    int timeout_seconds = 300;
    std::size_t max_log_bytes = 8192;
    std::size_t max_file_bytes = std::size_t{8} << 20;
  };

  build_checker(const config& cfg, const sdk::host& host);

  /// Throws sdk::unavailable when hipcc is not installed.
  sdk::converter::convert_response convert(const sdk::converter::convert_request& request, sdk::call_context& ctx);

  static sdk::method_table<build_checker> methods() { return sdk::converter::methods<build_checker>(); }

 private:
  hipcc_toolchain& toolchain();

  /// A rootfs toolchain with PyTorch, or nullptr (host toolchain, no bwrap, no torch rootfs).
  struct torch_toolchain {
    hipcc_toolchain hipcc;
    rootfs_jail jail;
    torch_install torch;
  };
  torch_toolchain* pytorch_toolchain();

  config config_;
  sdk::host host_;
  std::optional<hipcc_toolchain> toolchain_;
  std::optional<torch_toolchain> torch_;
  bool torch_looked_for_ = false;
};

void from_json(const nlohmann::json& j, build_checker::config& c);

/// Where CI and scripts/toolchains/hip.sh keep the HIP 6.4 rootfs: $R2R_STATE_DIR, else
/// $XDG_STATE_HOME/repo2rocm, else ~/.local/state/repo2rocm; then toolchains/hip-6.4.
std::string default_rootfs();

/// Where hip.sh --with-torch keeps the HIP 6.4 rootfs with PyTorch: default_rootfs() + "-torch".
std::string default_torch_rootfs();

/// True when a file is a translation unit to compile: .cu/.hip, or C++ source with HIP code.
bool is_translation_unit(std::string_view path, std::string_view text);

}  // namespace r2r::plugins::converter
