// SPDX-License-Identifier: MIT
// r2r.verifier.mode2-metrics: Mode 2 (the paper's number). Requires a Mode 1 pass in `earlier`;
// reads the workload log from the request or from that Mode 1 result (never from the agent),
// extracts the plan's metric by its extractor (refusing ambiguous readings) and compares it with
// the plan's target, and, when the request
// carries a reference run, every metric of that reference (differential mode).
// THREADING: the host serialises calls; the object is immutable after construction.
#pragma once

#include "extractor.hpp"
#include "metrics.hpp"

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/verifier.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace r2r::plugins::verifier {

class mode2_verifier {
 public:
  struct config {
    std::map<std::string, std::vector<std::string>> aliases;  // metric name -> other names in logs
    double differential_tolerance = 0;                        // 0: the metric class's default for each reference metric
    bool require_mode1 = true;
    std::string sandbox_service = "sandbox";  // reads json/csv metric files from the request's sandbox
  };
  mode2_verifier(const config& cfg, const sdk::host& host);
  sdk::verifier::verify_response verify(const sdk::verifier::verify_request& request, sdk::call_context& ctx);
  static sdk::method_table<mode2_verifier> methods() { return sdk::verifier::methods<mode2_verifier>(); }

 private:
  std::vector<std::string> names_for(const std::string& metric) const;
  /// The plan metric's value by its extractor; throws std::invalid_argument for a malformed one.
  mode2::extraction extract_planned(const nlohmann::json& metric, const std::string& log,
                                    const sdk::verifier::verify_request& request, sdk::call_context& ctx) const;
  config config_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, mode2_verifier::config& c);

}  // namespace r2r::plugins::verifier
