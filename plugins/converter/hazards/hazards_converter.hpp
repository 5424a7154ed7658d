// SPDX-License-Identifier: MIT
// r2r.converter.hazards: the hazard scan stage (after hipify). It changes no file; it fills the
// response's `hazards` with severity, location, why the code breaks on CDNA (wave64) or RDNA, and
// the fix, for the agentic rewrite and for people. Files it does not scan are "skipped"; files
// that cannot be read or lexed are "error" with a bad_input diagnostic.
// THREADING: the host serialises calls; the object is immutable after construction.
#pragma once

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/converter.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace r2r::plugins::converter {

class hazards_converter {
 public:
  struct config {
    std::vector<std::string> source_extensions{".cu", ".cuh", ".hip", ".c",   ".cc",  ".cpp", ".cxx", ".c++", ".h",
                                               ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tpp", ".inc"};
    std::size_t max_file_bytes = std::size_t{8} << 20;
    std::string min_severity = "note";  // note | warning | error
    std::vector<std::string> disabled_rules;
  };

  /// Throws sdk::invalid_argument for an unknown severity or rule id.
  hazards_converter(const config& cfg, const sdk::host& host);

  sdk::converter::convert_response convert(const sdk::converter::convert_request& request, sdk::call_context& ctx);

  static sdk::method_table<hazards_converter> methods() { return sdk::converter::methods<hazards_converter>(); }

 private:
  config config_;
  int min_rank_;
  std::set<std::string, std::less<>> disabled_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, hazards_converter::config& c);

}  // namespace r2r::plugins::converter
