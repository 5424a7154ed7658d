// SPDX-License-Identifier: MIT
// What the numerical gate needs to run one kernel: its signature (parsed from the source) and a
// harness spec (a small JSON file beside the kernel, `<file stem>.harness.json`) giving the launch
// shape, the element count and fill of each pointer argument and the value of each scalar.
// Pointer-to-const arguments are inputs; other pointers are outputs (zero-filled unless a fill is
// given). The spec format is documented in README.md.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::converter::numerics {

/// Element types the harness can fill, record and compare.
enum class dtype { f32, f64, i32, u32, i64, u64 };

std::string to_string(dtype t);
/// "f32" etc.; nullopt for anything else.
std::optional<dtype> parse_dtype(const std::string& name);
/// The dtype of a C++ scalar type spelling ("float", "unsigned int", "int64_t", ...); nullopt when unsupported.
std::optional<dtype> dtype_of_ctype(const std::string& ctype);
/// The C++ spelling used in generated drivers ("float", "unsigned int", "long long", ...).
std::string ctype_of(dtype t);
bool is_float(dtype t);

struct kernel_param {
  std::string name;
  dtype type = dtype::f32;
  bool pointer = false;
  bool is_const = false;  // pointee const: an input
};

struct kernel_signature {
  std::string name;
  std::vector<kernel_param> params;
};

/// Parses `__global__ void NAME(...)` from `source`. Throws std::invalid_argument (expected / found /
/// what to do) when the kernel is absent, templated, or has a parameter type the harness cannot fill.
kernel_signature parse_signature(const std::string& source, const std::string& kernel);

/// How a pointer argument's elements are produced. `uniform`: a deterministic generator (seed)
/// over [min, max] (integers: inclusive); `iota`: min, min+1, ...; `zero`: all zero.
struct fill_spec {
  std::string kind = "zero";
  std::uint64_t seed = 1;
  double min = 0;
  double max = 1;
};

struct arg_spec {
  std::string name;
  kernel_param param;
  std::int64_t count = 0;  // pointers: elements
  fill_spec fill;          // pointers
  double value = 0;        // scalars
};

struct harness_spec {
  std::string kernel;
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::array<std::int64_t, 3> block{1, 1, 1};
  std::vector<arg_spec> args;                           // in signature order
  nlohmann::json tolerance = nlohmann::json::object();  // per dtype, see output_compare.hpp
};

/// Binds the spec JSON to the kernel's signature. Throws std::invalid_argument naming the field
/// (expected / found / what to do) for a missing or extra argument, a bad count, fill or shape.
harness_spec bind_spec(const nlohmann::json& spec, const kernel_signature& signature);

}  // namespace r2r::plugins::converter::numerics
