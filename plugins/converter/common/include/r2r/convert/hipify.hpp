// SPDX-License-Identifier: MIT
// The token-aware CUDA->HIP conversion of one source file.
//
// Contract:
//   * identifiers are renamed by the generated mapping (mapping.hpp) only in code and directives,
//     never inside comments, string/character literals, raw strings or #error/#warning text, and
//     never after `.`/`->` (members) or after `X::` (names qualified by another scope);
//   * #include paths are rewritten by the header rows; a quoted include of a file that exists in
//     the project (the include_exists callback), or an include of a CUDA-samples helper header
//     (helper_cuda.h, ...) the project carries, is the project's own header and is left alone;
//   * kernel launches `k<<<grid, block, shmem, stream>>>(args)` are kept: hipcc (clang) compiles
//     the triple-chevron syntax, which keeps templates and default arguments intact;
//   * every CUDA name that is left in the output is reported: no HIP equivalent, a HIP name newer
//     than the target ROCm or removed in it, a library that needs a manual port, or a name that
//     looks like CUDA's but is in no table;
//   * the output is a pure function of (text, options): deterministic, and idempotent because no
//     HIP name in the tables is itself a CUDA name that maps elsewhere (checked by the generator).
// THREADING: convert_source is reentrant; it shares only immutable mapping data.
#pragma once

#include <r2r/convert/version.hpp>
#include <r2r/sdk/kinds/converter.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::converter {

struct hipify_options {
  version_code target_rocm = 0;  // 0: newest known; no version gating
  bool report_unknown_names = true;
  /// false: change nothing; report each CUDA name or include that has a HIP mapping as a
  /// `left_unconverted` warning (used to audit another tool's output).
  bool rewrite = true;
  std::set<std::string, std::less<>> ignore_names;  // never renamed or reported
  /// Names the project defines (macros found by collect_defined_names in the files of a request):
  /// never reported as unknown CUDA names. Macros #defined in the converted file itself are
  /// recognised without this.
  std::set<std::string, std::less<>> project_names;
  /// True when an include names a file of the project itself. A quoted include is passed without
  /// its quotes (relative to the including file's directory or the root); an angle-bracket include
  /// of a CUDA-samples helper is passed with its brackets (`<helper_cuda.h>`: found on a -I
  /// directory, so any project file ending in /helper_cuda.h). May be empty: then every CUDA
  /// header name is treated as CUDA's.
  std::function<bool(std::string_view include_path, std::string_view including_file)> include_exists;
};

struct conversion {
  std::string text;  // the output; equal to the input when `failed`
  bool changed = false;
  bool failed = false;  // the input could not be lexed; nothing was changed
  std::map<std::string, std::int64_t> stats;
  std::vector<sdk::converter::diagnostic> diagnostics;
};

/// Converts one C/C++/CUDA source file. `path` is used for diagnostics and include checks only.
conversion convert_source(std::string_view path, std::string_view text, const hipify_options& options);

/// Converts one build file (CMakeLists.txt, *.cmake, Makefile, *.mk): link flags -l<cuda lib>
/// and CUDA:: targets are rewritten; CUDA build constructs (enable_language(CUDA), nvcc flags,
/// CUDA_ARCHITECTURES ...) are reported, since a build system needs a deliberate HIP port.
conversion convert_build_file(std::string_view path, std::string_view text);

/// What kind of file a path is for the converters.
enum class file_kind { source, build, other };
file_kind classify_path(std::string_view path, const std::vector<std::string>& source_extensions);

/// Adds the names of the macros `text` #defines to `names` (a fast textual scan: a #define inside
/// a comment or string also counts, which only silences unknown-name reports).
void collect_defined_names(std::string_view text, std::set<std::string, std::less<>>& names);

/// True when `name` looks like a CUDA API name (cudaX, cuX, CU_/CUDA_ prefixes, cuBLAS & co.,
/// __nv_, __CUDA): the rule for names in no table.
bool looks_like_cuda_name(std::string_view name) noexcept;

}  // namespace r2r::plugins::converter
