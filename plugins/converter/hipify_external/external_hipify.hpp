// SPDX-License-Identifier: MIT
// r2r.converter.hipify-external: runs AMD's hipify-perl or hipify-clang (ROCm images ship them in
// /opt/rocm/bin) on each file, with the same output contract as r2r.converter.hipify (text, diff,
// statistics, diagnostics). The tools print no diagnostics for what they leave behind, so the
// output is audited with the project's tables: every CUDA name still in it is reported, whether
// HIP has it (left_unconverted) or not (unsupported, rocm_too_old, ...). Without either tool the
// call fails with R2R_ERR_UNAVAILABLE and says where it looked.
// THREADING: the host serialises calls; the tool lookup is cached inside a call only.
#pragma once

#include <r2r/convert/hipify.hpp>
#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/converter.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::converter {

class external_hipify {
 public:
  struct config {
    std::string tool = "auto";  // auto (hipify-perl, then hipify-clang) | hipify-perl | hipify-clang
    std::vector<std::string> search_dirs{"/opt/rocm/bin"};
    std::vector<std::string> tool_args;   // extra options for the tool
    std::vector<std::string> clang_args;  // hipify-clang only: compile flags after `--`
    int timeout_seconds = 120;
    std::string rocm_version;  // for the audit of the output
    std::vector<std::string> source_extensions{".cu", ".cuh", ".hip", ".c",   ".cc",  ".cpp", ".cxx", ".c++", ".h",
                                               ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tpp", ".inc"};
    std::size_t max_file_bytes = std::size_t{8} << 20;
  };

  /// Throws sdk::invalid_argument for an unknown tool name or a malformed rocm_version.
  external_hipify(const config& cfg, const sdk::host& host);

  /// Throws sdk::unavailable when the tool is not installed.
  sdk::converter::convert_response convert(const sdk::converter::convert_request& request, sdk::call_context& ctx);

  static sdk::method_table<external_hipify> methods() { return sdk::converter::methods<external_hipify>(); }

 private:
  struct located_tool {
    std::string name;  // hipify-perl | hipify-clang
    std::string path;
    std::string version;
  };
  located_tool locate() const;
  plugins::converter::conversion run_tool(const located_tool& tool, const std::string& path, const std::string& text,
                                          const std::string& scratch, sdk::call_context& ctx) const;

  config config_;
  plugins::converter::hipify_options audit_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, external_hipify::config& c);

}  // namespace r2r::plugins::converter
