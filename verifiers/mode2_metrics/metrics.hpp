// SPDX-License-Identifier: MIT
// Mode 2 metric comparison (docs/verification.md, "Mode 2"); extraction is in extractor.hpp. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier::mode2 {

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

}  // namespace r2r::plugins::verifier::mode2
