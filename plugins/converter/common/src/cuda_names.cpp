// SPDX-License-Identifier: MIT
// Classification of paths and of names that are in no mapping table.
#include <r2r/convert/hipify.hpp>

#include <array>
#include <cctype>

namespace r2r::plugins::converter {
namespace {

bool starts_with(std::string_view s, std::string_view p) noexcept {
  return s.substr(0, p.size()) == p;
}
bool upper_or_underscore(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || c == '_';
}

}  // namespace

bool looks_like_cuda_name(std::string_view name) noexcept {
  // Every rule below needs more than two characters starting "cu", "nv", "CU", "NV", "__n" or
  // "__C": most identifiers (const, __global__, float) are rejected here.
  if (name.size() < 3) return false;
  const char f = name[0], s = name[1];
  const bool candidate = (f == 'c' && s == 'u') || (f == 'n' && s == 'v') || (f == 'C' && s == 'U') ||
                         (f == 'N' && s == 'V') || (f == '_' && s == '_' && (name[2] == 'n' || name[2] == 'C'));
  if (!candidate) return false;
  // Lower-case library prefixes followed by an upper-case letter or '_' (cublasLtFoo, curand_init);
  // "cuda" and "nvtx" need an upper-case letter (cudaMalloc, not the project's cuda_ok), and "cu"
  // alone too (cuMemAlloc, cuComplex; not cu_ptr).
  static constexpr std::array<std::string_view, 7> libraries = {"cublas",   "curand", "cufft", "cusparse",
                                                                "cusolver", "cudnn",  "nvrtc"};
  for (const auto p : libraries) {
    if (starts_with(name, p) && name.size() > p.size() && upper_or_underscore(name[p.size()])) return true;
  }
  for (const std::string_view p : {std::string_view("cuda"), std::string_view("nvtx")}) {
    if (starts_with(name, p) && name.size() > p.size() && name[p.size()] >= 'A' && name[p.size()] <= 'Z') return true;
  }
  if (name.size() > 2 && name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z') return true;
  // Driver API types: CUdevice, CUstream, CUtensorMap.
  if (name.size() > 2 && name[0] == 'C' && name[1] == 'U' && name[2] >= 'a' && name[2] <= 'z') return true;
  static constexpr std::array<std::string_view, 13> upper = {"CU_",    "CUDA_",     "CUDART_",   "CUBLAS_", "CURAND_",
                                                             "CUFFT_", "CUSPARSE_", "CUSOLVER_", "CUDNN_",  "NVRTC_",
                                                             "CUB_",   "__nv_",     "__CUDA"};
  for (const auto p : upper) {
    if (starts_with(name, p) && name.size() > p.size()) return true;
  }
  return name == "nvcuda";
}

void collect_defined_names(std::string_view text, std::set<std::string, std::less<>>& names) {
  std::size_t at = 0;
  while ((at = text.find("define", at)) != std::string_view::npos) {
    // `#` then optional blanks, then "define", then blanks, then the name.
    std::size_t hash = at;
    while (hash > 0 && (text[hash - 1] == ' ' || text[hash - 1] == '\t')) --hash;
    at += 6;
    if (hash == 0 || text[hash - 1] != '#') continue;
    std::size_t begin = at;
    if (begin >= text.size() || (text[begin] != ' ' && text[begin] != '\t')) continue;
    while (begin < text.size() && (text[begin] == ' ' || text[begin] == '\t')) ++begin;
    std::size_t end = begin;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    if (end > begin) names.emplace(text.substr(begin, end - begin));
  }
}

file_kind classify_path(std::string_view path, const std::vector<std::string>& source_extensions) {
  const std::size_t slash = path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (base == "CMakeLists.txt" || base == "Makefile" || base == "makefile" || base == "GNUmakefile") {
    return file_kind::build;
  }
  const std::size_t dot = base.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return file_kind::other;
  const std::string_view ext = base.substr(dot);
  if (ext == ".cmake" || ext == ".mk") return file_kind::build;
  for (const auto& e : source_extensions) {
    if (ext == e) return file_kind::source;
  }
  return file_kind::other;
}

}  // namespace r2r::plugins::converter
