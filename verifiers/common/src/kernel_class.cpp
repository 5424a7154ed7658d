// SPDX-License-Identifier: MIT
#include <r2r/verify/kernel_class.hpp>
#include <r2r/verify/text.hpp>

#include <cctype>
#include <regex>

namespace r2r::plugins::verifier {
namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool has(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

}  // namespace

std::string_view to_string(kernel_family f) {
  switch (f) {
    case kernel_family::flash_attention:
      return "flash_attention";
    case kernel_family::sdpa_fallback:
      return "sdpa_fallback";
    case kernel_family::blas:
      return "blas";
    case kernel_family::dnn:
      return "dnn";
    case kernel_family::collective:
      return "collective";
    case kernel_family::custom:
      return "custom";
    case kernel_family::other:
      return "other";
  }
  return "other";
}

bool contains_identifier(std::string_view name, std::string_view ident) {
  if (ident.empty()) return false;
  for (std::size_t at = name.find(ident); at != std::string_view::npos; at = name.find(ident, at + 1)) {
    const bool left = at == 0 || !ident_char(name[at - 1]);
    const std::size_t end = at + ident.size();
    const bool right = end == name.size() || !ident_char(name[end]);
    if (left && right) return true;
  }
  return false;
}

kernel_family classify_kernel(std::string_view name, const std::vector<std::string>& custom_names) {
  for (const auto& c : custom_names)
    if (contains_identifier(name, c)) return kernel_family::custom;
  const std::string l = lower(name);
  // Memory-efficient / math SDPA first: "fmha_cutlassF" is xformers/PyTorch mem-efficient attention.
  if (has(l, "efficient_attention") || has(l, "mem_efficient") || has(l, "fmha_cutlass") ||
      has(l, "attention_kernel_batched") || has(l, "cutlassf") || has(l, "cutlassb"))
    return kernel_family::sdpa_fallback;
  if (has(l, "flash_fwd") || has(l, "flash_bwd") || has(l, "flash_fprop") || has(l, "flash_bprop") ||
      has(l, "flashattn") || has(l, "flash_attn") || has(l, "fmha") || has(l, "_attn_fwd") || has(l, "attn_fwd") ||
      has(l, "flash_attention") || (has(l, "_fwd_kernel") && (has(l, "attn") || has(l, "attention"))))
    return kernel_family::flash_attention;
  if (name.starts_with("MIOpen") || has(l, "miopen") || has(l, "igemm_") || has(l, "cudnn") || has(l, "naive_conv") ||
      has(l, "batchnorm"))
    return kernel_family::dnn;
  if (name.starts_with("Cijk_") || has(l, "gemm") || has(l, "hipblaslt") || has(l, "rocblas") || has(l, "cublas") ||
      has(l, "sgemm") || has(l, "hgemm") || has(l, "tensile"))
    return kernel_family::blas;
  if (has(l, "rccl") || has(l, "nccl")) return kernel_family::collective;
  return kernel_family::other;
}

std::vector<std::string> global_function_names(std::string_view source) {
  static const std::regex global(
      R"(__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:static\s+)?(?:inline\s+)?[\w:<>,\s\*&]*?\b(\w+)\s*\()");
  std::vector<std::string> out;
  const std::string text(source);
  for (std::sregex_iterator it(text.begin(), text.end(), global), end; it != end; ++it) {
    const std::string n = (*it)[1];
    if (n != "void" && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

}  // namespace r2r::plugins::verifier
