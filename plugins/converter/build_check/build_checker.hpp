// SPDX-License-Identifier: MIT
// r2r.converter.build-check: the offline build check stage. Compiles each converted translation
// unit (.cu/.hip, and C++ files that contain HIP code) for every requested gfx target with a
// toolchain: the host's hipcc, or a HIP toolchain rootfs (scripts/toolchains/hip.sh) run through
// bubblewrap with only the rootfs, the sources and a scratch directory visible (rootfs_jail.hpp),
// and classifies failures (compile_log.hpp). Each build result names its toolchain. A target the
// toolchain cannot compile for is "not_checkable_here", never "passed". Without the toolchain the
// call fails with R2R_ERR_UNAVAILABLE.
// Files are compiled where they are (root) or, when given inline, in a private temporary
// directory that is removed before the call returns.
// THREADING: the host serialises calls; the toolchain cache is only touched inside a call.
#pragma once

#include "hipcc_toolchain.hpp"

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

  config config_;
  sdk::host host_;
  std::optional<hipcc_toolchain> toolchain_;
};

void from_json(const nlohmann::json& j, build_checker::config& c);

/// Where CI and scripts/toolchains/hip.sh keep the HIP 6.4 rootfs: $R2R_STATE_DIR, else
/// $XDG_STATE_HOME/repo2rocm, else ~/.local/state/repo2rocm; then toolchains/hip-6.4.
std::string default_rootfs();

/// True when a file is a translation unit to compile: .cu/.hip, or C++ source with HIP code.
bool is_translation_unit(std::string_view path, std::string_view text);

}  // namespace r2r::plugins::converter
