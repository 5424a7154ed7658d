// SPDX-License-Identifier: MIT
// The CUDA->HIP mapping data: rows generated from AMD HIPIFY's tables (names) and from the
// project's data/project_map.json (headers, link libraries, namespaces), by
// tools/generate_hipify_map.py into generated/hipify_map.inc. Nothing here is typed by hand.
//
// LIFETIME/THREADING: all data is static and immutable; lookups are safe from any thread. The
// name index is built once, on first use, behind a function-local static.
#pragma once

#include <r2r/convert/version.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace r2r::plugins::converter {

/// Which API a name belongs to (the table it came from).
enum class api : std::uint8_t {
  runtime,
  driver,
  device,
  rtc,
  complex,
  blas,
  rand,
  fft,
  sparse,
  solver,
  dnn,
  cub,
  nccl,
  thrust,
  libcudacxx,
  samples
};
/// "runtime", "driver", ... (the generator's names).
std::string_view api_name(api a) noexcept;
/// The library's display name: "CUDA runtime", "cuBLAS", ...
std::string_view api_display_name(api a) noexcept;

/// "function" rows come from function sections of the tables; "data" rows from type sections
/// (types, enum values and macros, which the tables group together).
enum class entity : std::uint8_t { function, data };

/// One CUDA name. Versions: 0 when the table gives none.
struct name_row {
  std::string_view cuda;
  std::string_view hip;          // usable HIP name (a HIP release is recorded); empty when none
  std::string_view listed;       // HIP name as the table lists it, even without a release
  std::string_view alternative;  // rocBLAS/rocRAND/... or MIOpen name from the ROC/MIOPEN column
  plugins::converter::api api;
  plugins::converter::entity entity;
  std::uint16_t section;  // index into section_names()
  version_code cuda_added, cuda_deprecated, cuda_removed;
  version_code hip_added, hip_deprecated, hip_removed;
  bool experimental;
  version_code alternative_added;
};

enum class header_action : std::uint8_t {
  rewrite,  // replace the include path with `hip`
  keep,     // the same path works on ROCm (e.g. thrust/ with rocThrust)
  manual    // no mechanical equivalent: report, leave unchanged
};

struct header_row {
  std::string_view cuda;  // exact include path, or a prefix ending in '/'
  std::string_view hip;
  plugins::converter::api api;
  header_action action;
  version_code since;  // first ROCm release with the HIP header; 0 when not version-checked
  std::string_view hint;
};

struct library_row {
  std::string_view cuda;        // link name: cublas (-lcublas)
  std::string_view hip;         // hipblas
  std::string_view cmake_cuda;  // CUDA::cublas
  std::string_view cmake_hip;   // roc::hipblas
  bool manual;                  // no mechanical port (cuDNN -> MIOpen)
};

/// A CUDA device intrinsic the tables do not list (project data; absent from HIP 5.2.3).
struct unlisted_row {
  std::string_view cuda;
  plugins::converter::api api;
  std::string_view hint;
};

struct namespace_row {
  std::string_view cuda;
  std::string_view hip;
  plugins::converter::api api;
};

/// Every name row, sorted by `cuda` (byte order).
std::span<const name_row> name_rows() noexcept;
std::span<const std::string_view> section_names() noexcept;
std::span<const header_row> header_rows() noexcept;
std::span<const header_row> header_prefix_rows() noexcept;
std::span<const library_row> library_rows() noexcept;
std::span<const namespace_row> namespace_rows() noexcept;
std::span<const unlisted_row> unlisted_rows() noexcept;

/// The row of a CUDA name, or nullptr. O(1): a hash index built on first use.
const name_row* find_name(std::string_view cuda_name) noexcept;

/// True when some row's name starts with these two bytes (a one-lookup prefilter the converter
/// uses before hashing; names shorter than two bytes use '\0' as the second byte).
bool may_be_name(char first, char second) noexcept;

/// The header row for an include path: an exact row first, then the longest prefix row.
const header_row* find_header(std::string_view include_path) noexcept;

const library_row* find_library(std::string_view cuda_link_name) noexcept;
const library_row* find_cmake_target(std::string_view cuda_cmake_target) noexcept;
const namespace_row* find_namespace(std::string_view cuda_namespace) noexcept;
const unlisted_row* find_unlisted(std::string_view cuda_name) noexcept;

/// What find_name, find_namespace and find_unlisted answer for one name, from one hash probe (the
/// rename pass asks all three of every identifier). A member is null where that lookup is.
struct name_lookup {
  const name_row* row = nullptr;
  const namespace_row* ns = nullptr;
  const unlisted_row* unlisted = nullptr;
};
name_lookup find_any_name(std::string_view name) noexcept;

/// True when `hip_name` is the HIP side of some row (used to prove idempotence in tests).
bool is_hip_name(std::string_view hip_name) noexcept;

}  // namespace r2r::plugins::converter
