// SPDX-License-Identifier: MIT
// Mode 2 metric extraction and comparison (docs/verification.md, "Mode 2"). Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::verifiers::mode2 {

/// The last value printed for `name` or any alias in `log`: "name: 1.23", "name = 1.23",
/// "name is 1.23", "\"name\": 1.23", "1.23 name"; percent signs and scientific notation accepted;
/// names match case-insensitively with '_', '-' and ' ' treated alike. nullopt when never printed.
std::optional<double> extract_metric(std::string_view log, const std::vector<std::string>& names);

struct tolerance {
  std::string kind;  // relative | absolute
  double value = 0;
};
/// The default tolerance of a metric class: ratio 15 % rel, accuracy 3 points abs, loss 5 % rel,
/// throughput/latency 25 % rel, anything else 15 % rel.
tolerance default_tolerance(std::string_view metric_class);

struct comparison {
  bool within = false;
  double deviation = 0;  // |observed - target| (absolute) or |observed - target| / |target| (relative)
  std::string detail;
};
/// Reproduced only within tolerance on either side: a result better than the target beyond the
/// tolerance is "not reproduced" too (`direction` only words the detail).
comparison compare(double observed, double target, const tolerance& tol, std::string_view direction);

}  // namespace r2r::verifiers::mode2
