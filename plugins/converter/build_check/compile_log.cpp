// SPDX-License-Identifier: MIT
#include "compile_log.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace r2r::plugins::converter {
namespace {

/// The text between the first pair of quotes after `marker` on the same line.
std::vector<std::string> quoted_after(std::string_view text, std::string_view marker) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while ((at = text.find(marker, at)) != std::string_view::npos) {
    const std::size_t eol = text.find('\n', at);
    const std::string_view line = text.substr(at, eol == std::string_view::npos ? std::string_view::npos : eol - at);
    const std::size_t open = line.find('\'');
    const std::size_t close = open == std::string_view::npos ? open : line.find('\'', open + 1);
    if (close != std::string_view::npos) {
      std::string name(line.substr(open + 1, close - open - 1));
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
    }
    at += marker.size();
  }
  return out;
}

std::string first_error_line(std::string_view text) {
  const std::size_t at = text.find("error:");
  if (at == std::string_view::npos) {
    const std::size_t eol = text.find('\n');
    return std::string(text.substr(0, std::min<std::size_t>(eol, 300)));
  }
  std::size_t start = text.rfind('\n', at);
  start = start == std::string_view::npos ? 0 : start + 1;
  const std::size_t eol = text.find('\n', at);
  std::string line(text.substr(start, (eol == std::string_view::npos ? text.size() : eol) - start));
  if (line.size() > 300) line.resize(300);
  return line;
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

/// The lines of `text`.
template <typename F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t eol = text.find('\n', start);
    if (eol == std::string_view::npos) eol = text.size();
    f(text.substr(start, eol - start));
    start = eol + 1;
  }
}

/// A diagnostic's location is in the toolchain's headers, not the project's.
bool in_toolchain(std::string_view line) {
  return starts_with(line, "/usr/") || starts_with(line, "/opt/");
}

/// rocPRIM's config.hpp warns "unknown build target" for a gfx target it has no settings for
/// (HIP 6.4's rocPRIM 6.4.3 and gfx950); its block primitives then stop at an #error. Only when
/// the first error is in rocPRIM's own headers is that the cause: the warning also appears in
/// builds that fail on the project's own errors (or pass: every unit that includes rocPRIM).
bool rocprim_target_unknown(std::string_view out) {
  bool warned = false;
  bool first_error_in_rocprim = false;
  bool seen_error = false;
  for_each_line(out, [&](std::string_view line) {
    const bool rocprim = in_toolchain(line) && line.find("/rocprim/") != std::string_view::npos;
    if (rocprim && line.find("config.hpp:") != std::string_view::npos &&
        line.find("warning: \"unknown build target\"") != std::string_view::npos) {
      warned = true;
    }
    if (!seen_error && line.find(": error:") != std::string_view::npos) {
      seen_error = true;
      first_error_in_rocprim = rocprim;
    }
  });
  return warned && first_error_in_rocprim;
}

}  // namespace

std::string first_project_location(std::string_view out) {
  std::string where;
  bool error_in_toolchain = false;
  for_each_line(out, [&](std::string_view line) {
    if (!where.empty()) return;
    if (line.find(": error:") != std::string_view::npos && !error_in_toolchain) {
      if (!in_toolchain(line)) {
        where = "-";  // the first error is the project's own: nothing to add
        return;
      }
      error_in_toolchain = true;
      return;
    }
    if (!error_in_toolchain || in_toolchain(line)) return;
    if (line.find(": note: ") == std::string_view::npos) return;
    if (line.find("requested here") == std::string_view::npos && line.find("required from") == std::string_view::npos &&
        line.find("expanded from") == std::string_view::npos) {
      return;
    }
    // FILE:LINE:COL: note: ...
    const std::size_t note = line.find(": note: ");
    const std::string_view loc = line.substr(0, note);
    const std::size_t last = loc.rfind(':');
    where = std::string(last == std::string_view::npos ? loc : loc.substr(0, last));
  });
  return where == "-" ? std::string() : where;
}

bool target_unknown(std::string_view out) {
  return out.find("invalid target ID") != std::string_view::npos ||
         out.find("Invalid offload arch") != std::string_view::npos ||
         out.find("unsupported CUDA gpu architecture") != std::string_view::npos ||
         out.find("unknown target CPU") != std::string_view::npos ||
         out.find("Unsupported GPU architecture") != std::string_view::npos;
}

std::string rocm_library_of(std::string_view header) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 21> libraries{{
      {"hipblaslt/", "hipBLASLt"}, {"hipblas/", "hipBLAS"},     {"hipblas.h", "hipBLAS"},
      {"rocblas/", "rocBLAS"},     {"rocblas.h", "rocBLAS"},    {"hipfft/", "hipFFT"},
      {"hipfft.h", "hipFFT"},      {"rocfft/", "rocFFT"},       {"hipcub/", "hipCUB"},
      {"hipsolver/", "hipSOLVER"}, {"rocsolver/", "rocSOLVER"}, {"hipsparse/", "hipSPARSE"},
      {"rocsparse/", "rocSPARSE"}, {"hiprand/", "hipRAND"},     {"rocrand/", "rocRAND"},
      {"rocprim/", "rocPRIM"},     {"thrust/", "rocThrust"},    {"miopen/", "MIOpen"},
      {"rccl/", "RCCL"},           {"rocwmma/", "rocWMMA"},     {"roctracer/", "rocTracer"},
  }};
  for (const auto& [prefix, name] : libraries) {
    if (starts_with(header, prefix)) return std::string(name);
  }
  return {};
}

namespace {

/// The ROCm library whose installed header (under /usr/ or /opt/, where toolchains install them,
/// never the checked sources: those are under /r2r/src or a temporary directory) holds the "' file not found" error at
/// `marker`: "rocWMMA" for
/// "/usr/include/rocwmma/rocwmma.hpp:29:10: fatal error: 'internal/accessors.hpp' file not found".
std::string library_holding_error(std::string_view out, std::size_t marker) {
  const std::size_t bol = out.rfind('\n', marker);
  const std::string_view line = out.substr(bol == std::string_view::npos ? 0 : bol + 1);
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return {};
  const std::string_view file = line.substr(0, colon);
  constexpr std::string_view include_dir = "/include/";
  const std::size_t inc = file.rfind(include_dir);
  if (inc == std::string_view::npos || !(starts_with(file, "/usr/") || starts_with(file, "/opt/"))) return {};
  return rocm_library_of(file.substr(inc + include_dir.size()));
}

}  // namespace

compile_verdict classify_compile_failure(std::string_view out) {
  compile_verdict v;
  if (target_unknown(out)) {
    v.status = "not_checkable_here";
    v.failure_class = "target_unknown";
    v.message = "this hipcc does not know the target (" + first_error_line(out) +
                "); it is checked in a ROCm container with a newer toolchain, never reported as passed";
    return v;
  }
  if (rocprim_target_unknown(out)) {
    v.status = "not_checkable_here";
    v.failure_class = "target_unknown";
    v.message =
        "this toolchain's rocPRIM does not know the target (\"unknown build target\" in rocprim/config.hpp), "
        "so no hipCUB/rocPRIM block primitive compiles for it here; it is checked in a ROCm container whose "
        "rocPRIM knows it, never reported as passed";
    return v;
  }
  // clang prints: fatal error: 'torch/extension.h' file not found (the name precedes the marker).
  std::vector<std::string> headers;
  std::size_t first_marker = std::string_view::npos;
  for (std::size_t at = out.find("' file not found"); at != std::string_view::npos;
       at = out.find("' file not found", at + 1)) {
    const std::size_t open = out.rfind('\'', at - 1);
    if (open != std::string_view::npos) {
      if (headers.empty()) first_marker = at;
      headers.emplace_back(out.substr(open + 1, at - open - 1));
    }
  }
  if (!headers.empty()) {
    const std::string& h = headers.front();
    v.names = headers;
    if (starts_with(h, "torch/") || starts_with(h, "ATen/") || starts_with(h, "c10/") || h == "Python.h" ||
        starts_with(h, "pybind11/") || starts_with(h, "caffe2/")) {
      v.status = "checked_in_container";
      v.failure_class = "needs_pytorch";
      v.message = "needs the ROCm PyTorch headers (" + h +
                  "), which this machine does not have; the build is checked in the ROCm PyTorch container";
      return v;
    }
    if (const std::string lib = rocm_library_of(h); !lib.empty()) {
      v.status = "checked_in_container";
      v.failure_class = "missing_library";
      v.message = "needs " + lib + " (" + h +
                  "), which is not installed on this machine; ROCm images ship it, "
                  "so the build is checked in the container";
      return v;
    }
    if (const std::string lib = library_holding_error(out, first_marker); !lib.empty()) {
      v.status = "checked_in_container";
      v.failure_class = "missing_library";
      v.message = "this toolchain's " + lib + " is incomplete: its own header includes " + h +
                  ", which is not installed (a distribution package shipped it incomplete); "
                  "ROCm images ship the whole library, so the build is checked in the container";
      return v;
    }
    v.status = "failed";
    v.failure_class = "missing_header";
    v.message = "header " + h +
                " was not found: an unconverted CUDA include, a project include directory missing "
                "from include_dirs, or a dependency to install";
    return v;
  }
  std::vector<std::string> names = quoted_after(out, "undeclared identifier");
  for (const char* marker : {"unknown type name", "no template named", "no member named"}) {
    for (auto& n : quoted_after(out, marker)) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(std::move(n));
    }
  }
  if (!names.empty()) {
    v.status = "failed";
    v.failure_class = "undeclared_identifier";
    v.names = names;
    std::string listed;
    for (std::size_t i = 0; i < names.size() && i < 8; ++i) listed += (i ? ", " : "") + names[i];
    v.message = "undeclared names: " + listed +
                " (CUDA names without a HIP equivalent in this ROCm, or missing "
                "includes); see the converter's diagnostics for each";
    return v;
  }
  v.status = "failed";
  v.failure_class = "compile_error";
  v.message = first_error_line(out);
  if (out.find("BlockSize must be a multiple of hardware warpsize") != std::string_view::npos) {
    v.message =
        "a hipCUB/rocPRIM block primitive got a block size that is not a multiple of the wavefront "
        "(64 lanes on CDNA): CUDA code sized for 32-lane warps; give it a multiple of 64 threads "
        "(a warp-size hazard for the rewrite). " +
        v.message;
  }
  if (const std::string where = first_project_location(out); !where.empty()) {
    v.message += " (from " + where + ")";
  }
  return v;
}

}  // namespace r2r::plugins::converter
