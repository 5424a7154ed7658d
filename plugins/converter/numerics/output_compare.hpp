// SPDX-License-Identifier: MIT
// Compares two driver outputs (driver_generator.hpp's JSON) of the same kernel: the inputs must be
// identical (otherwise the runs are not comparable), and each output element must match within the
// tolerance of its dtype. A float element matches when both are NaN, when both are the same
// infinity, or when |got - ref| <= abs, or |got - ref| <= rel * |ref|, or the distance in units in
// the last place is <= ulp. Integer elements match when |got - ref| <= abs (default 0: exact).
#pragma once

#include "kernel_harness.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::converter::numerics {

struct tolerance {
  double abs = 0;
  double rel = 0;
  std::int64_t ulp = 0;
};

/// f32: abs 1e-6, rel 1e-5, 4 ulp; f64: abs 1e-12, rel 1e-12, 4 ulp; integers: exact.
tolerance default_tolerance(dtype t);
/// The default, with fields of `overrides[to_string(t)]` ({"abs", "rel", "ulp"}) replacing it.
/// Throws std::invalid_argument for a negative or non-numeric field.
tolerance tolerance_for(dtype t, const nlohmann::json& overrides);

struct arg_comparison {
  std::string name;
  dtype type = dtype::f32;
  std::size_t count = 0;
  std::size_t mismatches = 0;
  double max_abs = 0;
  double max_rel = 0;
  std::int64_t max_ulp = 0;  // floats only
  std::optional<std::size_t> first_mismatch;
  std::string first_reference;  // the values at first_mismatch, as recorded
  std::string first_candidate;
};

struct comparison {
  bool passed = false;
  std::vector<arg_comparison> outputs;
  std::vector<std::string> problems;  // structural: different kernel, inputs, dtypes or counts
  /// One line per output and problem, for diagnostics and the CLI.
  std::string summary() const;
};

/// Never throws for data problems: a malformed document is a problem in the result.
/// Throws std::invalid_argument only for a bad `tolerance_overrides`.
comparison compare_outputs(const nlohmann::json& reference, const nlohmann::json& candidate,
                           const nlohmann::json& tolerance_overrides = nlohmann::json::object());

}  // namespace r2r::plugins::converter::numerics
