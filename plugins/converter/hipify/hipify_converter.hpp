// SPDX-License-Identifier: MIT
// r2r.converter.hipify: CUDA -> HIP conversion of source and build files with the token-aware
// engine of r2r::plugins::converter (comments and literals untouched, includes and link names rewritten,
// kernel launches kept in the <<<...>>> form hipcc compiles), reporting every CUDA name it leaves.
// THREADING: the host serialises calls; the object is immutable after construction.
#pragma once

#include <r2r/convert/hipify.hpp>
#include <r2r/convert/transform_files.hpp>
#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/converter.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace r2r::plugins::converter {

class hipify_converter {
 public:
  struct config {
    std::string rocm_version;
    std::vector<std::string> source_extensions{".cu", ".cuh", ".hip", ".c",   ".cc",  ".cpp", ".cxx", ".c++", ".h",
                                               ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tpp", ".inc"};
    bool convert_build_files = true;
    std::size_t max_file_bytes = std::size_t{8} << 20;
    bool report_unknown_names = true;
    std::vector<std::string> ignore_names;
  };

  /// Throws sdk::invalid_argument when rocm_version is malformed.
  hipify_converter(const config& cfg, const sdk::host& host);

  sdk::converter::convert_response convert(const sdk::converter::convert_request& request, sdk::call_context& ctx);

  static sdk::method_table<hipify_converter> methods() { return sdk::converter::methods<hipify_converter>(); }

 private:
  /// Macro names #defined by the source files under `root` (read once per root and kept: the
  /// stages of a port call the converter in batches over the same tree).
  const std::set<std::string, std::less<>>& project_macros(const std::string& root, sdk::call_context& ctx);

  plugins::converter::hipify_options options_;
  plugins::converter::transform_options transform_;
  std::map<std::string, std::set<std::string, std::less<>>> macros_by_root_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, hipify_converter::config& c);

}  // namespace r2r::plugins::converter
