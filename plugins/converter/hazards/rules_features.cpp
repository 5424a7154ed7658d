// SPDX-License-Identifier: MIT
// NVIDIA-only features: inline PTX, WMMA/MMA, cp.async, TMA and clusters, __CUDA_ARCH__ checks,
// texture/surface references, device-property fields HIP lacks, __launch_bounds__.
#include "hazard_catalog.hpp"
#include "scan_context.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <unordered_set>

namespace r2r::plugins::converter {
namespace {

using plugins::converter::token_kind;

constexpr std::array<std::string_view, 8> cp_async_names = {"__pipeline_memcpy_async",
                                                            "__pipeline_commit",
                                                            "__pipeline_wait_prior",
                                                            "memcpy_async",
                                                            "pipeline_producer_commit",
                                                            "pipeline_consumer_wait_prior",
                                                            "make_pipeline",
                                                            "__pipeline_arrive_on"};

constexpr std::array<std::string_view, 8> tma_names = {"CUtensorMap",
                                                       "cuTensorMapEncodeTiled",
                                                       "cuTensorMapEncodeIm2col",
                                                       "__cluster_dims__",
                                                       "this_cluster",
                                                       "cluster_group",
                                                       "cudaLaunchAttributeClusterDimension",
                                                       "cp_async_bulk_tensor"};

constexpr std::array<std::string_view, 12> texture_reference_calls = {
    "cudaBindTexture",        "cudaBindTexture2D",       "cudaBindTextureToArray", "cudaUnbindTexture",
    "cudaBindSurfaceToArray", "hipBindTexture",          "hipBindTexture2D",       "hipBindTextureToArray",
    "hipUnbindTexture",       "cudaGetTextureReference", "hipGetTextureReference", "cudaBindTextureToMipmappedArray"};

constexpr std::array<std::string_view, 6> texture_fetches = {"tex1Dfetch", "tex1D",        "tex2D",
                                                             "tex3D",      "tex1DLayered", "tex2DLayered"};

template <std::size_t N>
bool in(const std::array<std::string_view, N>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

/// The content of a string-literal token without prefix, quotes or suffix.
std::string_view literal_body(std::string_view lit) {
  const std::size_t open = lit.find('"');
  const std::size_t close = lit.rfind('"');
  if (open == std::string_view::npos || close <= open) return {};
  std::string_view body = lit.substr(open + 1, close - open - 1);
  if (open > 0 && lit[open - 1] == 'R') {  // raw string: strip delim( ... )delim
    const std::size_t paren = body.find('(');
    const std::size_t end = body.rfind(')');
    if (paren != std::string_view::npos && end != std::string_view::npos && end > paren) {
      body = body.substr(paren + 1, end - paren - 1);
    }
  }
  return body;
}

/// Opcodes of the PTX in an asm template: the first word of each instruction.
std::vector<std::string> ptx_opcodes(const std::string& code) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < code.size()) {
    // Instructions are separated by ';', newlines (real or the "\n" escape) and '{' '}'.
    while (i < code.size() &&
           (code[i] == ';' || code[i] == ' ' || code[i] == '\t' || code[i] == '\n' || code[i] == '{' ||
            code[i] == '}' || (code[i] == '\\' && i + 1 < code.size() && (code[i + 1] == 'n' || code[i + 1] == 't')))) {
      i += code[i] == '\\' ? 2 : 1;
    }
    std::size_t start = i;
    if (i < code.size() && code[i] == '@') {  // predicate guard "@p"
      while (i < code.size() && code[i] != ' ' && code[i] != '\t') ++i;
      while (i < code.size() && (code[i] == ' ' || code[i] == '\t')) ++i;
      start = i;
    }
    while (i < code.size() && (std::isalnum(static_cast<unsigned char>(code[i])) || code[i] == '.' || code[i] == '_'))
      ++i;
    if (i > start && std::isalpha(static_cast<unsigned char>(code[start]))) {
      std::string op = code.substr(start, i - start);
      if (std::find(out.begin(), out.end(), op) == out.end()) out.push_back(std::move(op));
    }
    while (i < code.size() && code[i] != ';' && code[i] != '\n' &&
           !(code[i] == '\\' && i + 1 < code.size() && code[i + 1] == 'n'))
      ++i;
  }
  return out;
}

void inline_asm(scan_context& ctx, std::size_t i) {
  const std::string_view name = ctx.at(i).text;
  if (name != "asm" && name != "__asm__" && name != "__asm") return;
  std::size_t open = i + 1;
  while (ctx.is(open, "volatile") || ctx.is(open, "__volatile__") || ctx.is(open, "goto") || ctx.is(open, "inline"))
    ++open;
  if (!ctx.is(open, "(")) return;
  const std::size_t close = ctx.matching(open);
  if (close == std::string_view::npos) return;
  std::string code;
  for (std::size_t k = open + 1; k < close; ++k) {
    if (ctx.at(k).kind == token_kind::string_literal) code += literal_body(ctx.at(k).text);
    if (ctx.is(k, ":")) break;  // operands follow the template
  }
  if (code.find("rdtsc") != std::string::npos || code.find("cpuid") != std::string::npos) return;  // host x86
  const auto ops = ptx_opcodes(code);
  std::string listed;
  for (std::size_t k = 0; k < ops.size() && k < 6; ++k) listed += (k ? ", " : "") + ops[k];
  if (ops.size() > 6) listed += ", ...";
  const std::string what = "inline assembly (" + (listed.empty() ? std::string("no instructions found") : listed) + ")";
  if (code.find("mma.sync") != std::string::npos || code.find("wgmma") != std::string::npos ||
      code.find("ldmatrix") != std::string::npos || code.find("mma.") != std::string::npos) {
    ctx.report("mma-ptx", i, what + " uses NVIDIA tensor-core instructions");
  } else if (code.find("cp.async.bulk") != std::string::npos ||
             code.find("cp.reduce.async.bulk") != std::string::npos) {
    ctx.report("tma", i, what + " uses bulk tensor copies (TMA)");
  } else if (code.find("cp.async") != std::string::npos) {
    ctx.report("cp-async", i, what + " uses cp.async");
  } else {
    ctx.report("inline-ptx", i, what + " is PTX");
  }
}

std::string directive_of(const scan_context& ctx, std::size_t i) {
  std::size_t k = i;
  while (k > 0 && ctx.at(k).kind != token_kind::directive_hash) --k;
  return ctx.at(k).kind == token_kind::directive_hash && k + 1 < ctx.size() ? std::string(ctx.at(k + 1).text)
                                                                            : std::string();
}

void cuda_arch(scan_context& ctx, std::size_t i) {
  const std::string_view name = ctx.at(i).text;
  if (name.substr(0, 12) != "__CUDA_ARCH_") return;
  if (!ctx.at(i).in_directive) {
    ctx.report("cuda-arch-check", i, "`" + std::string(name) + "` is used in code; HIP does not define it");
    return;
  }
  const std::string directive = directive_of(ctx, i);
  if (directive == "define" || directive == "undef") return;
  std::size_t first = i;
  while (first > 0 && ctx.at(first - 1).kind != token_kind::directive_hash) --first;
  std::size_t last = i;
  while (last + 1 < ctx.size() && ctx.at(last + 1).kind != token_kind::directive_end) ++last;
  std::string condition(ctx.source(first, last));
  if (condition.size() > 160) condition = condition.substr(0, 160) + "...";
  ctx.report("cuda-arch-check", i,
             "`#" + condition + "` tests the CUDA architecture; on HIP " + std::string(name) + " is undefined");
}

/// `__CUDACC_VER_MAJOR__` and friends: nvcc's version, which HIP-Clang never defines. In code the
/// name is undeclared; in `#if` it is 0, so a version test takes its oldest-CUDA branch. A
/// `defined(...)` probe is false on HIP, which is what a CUDA-only block wants: not reported.
void cuda_version(scan_context& ctx, std::size_t i) {
  const std::string_view name = ctx.at(i).text;
  if (!ctx.at(i).in_directive) {
    ctx.report("cuda-version-check", i,
               "`" + std::string(name) + "` (nvcc's version) is used in code; HIP does not define it");
    return;
  }
  const std::string directive = directive_of(ctx, i);
  if (directive != "if" && directive != "elif") return;
  if ((i >= 1 && ctx.is(i - 1, "defined")) || (i >= 2 && ctx.is(i - 1, "(") && ctx.is(i - 2, "defined"))) return;
  ctx.report("cuda-version-check", i,
             "`#" + directive + "` tests nvcc's version; on HIP " + std::string(name) + " is undefined (0)");
}

void wmma_and_async(scan_context& ctx, std::size_t i) {
  const std::string_view name = ctx.at(i).text;
  if (name == "nvcuda" || (name == "wmma" && ctx.is(i + 1, "::"))) {
    ctx.report("wmma", i, "nvcuda::wmma tensor-core fragments are used");
  } else if (in(cp_async_names, name) && ctx.is(i + 1, "(")) {
    ctx.report("cp-async", i, "`" + std::string(name) + "` starts or waits for an asynchronous copy");
  } else if (in(tma_names, name)) {
    ctx.report("tma", i, "`" + std::string(name) + "` is a Hopper TMA or thread-block-cluster feature");
  }
}

void textures(scan_context& ctx, std::size_t i) {
  const std::string_view name = ctx.at(i).text;
  const bool member = i > 0 && (ctx.is(i - 1, ".") || ctx.is(i - 1, "->") || ctx.is(i - 1, "::"));
  if ((name == "texture" || name == "surface") && ctx.is(i + 1, "<") && !member) {
    ctx.report("texture-reference", i,
               "a " + std::string(name) + " reference `" + std::string(name) + "<...>` is declared");
  } else if (in(texture_reference_calls, name) && ctx.is(i + 1, "(")) {
    ctx.report("texture-reference", i, "`" + std::string(name) + "` binds a texture or surface reference");
  } else if (in(texture_fetches, name) && ctx.is(i + 1, "(") && !member) {
    ctx.report("texture-reference", i, "`" + std::string(name) + "(ref, ...)` reads through a texture reference");
  }
}

void headers(scan_context& ctx, std::size_t i) {
  const std::string_view h = ctx.at(i).text;
  const std::string_view inner = h.size() > 2 ? h.substr(1, h.size() - 2) : h;
  if (inner == "mma.h") ctx.report("wmma", i, "<mma.h> (nvcuda::wmma) is included");
  if (inner == "cuda_pipeline.h" || inner == "cuda/pipeline" || inner == "cuda/barrier" || inner == "cuda_awbarrier.h")
    ctx.report("cp-async", i, "<" + std::string(inner) + "> (asynchronous copies and barriers) is included");
}

}  // namespace

/// CUDA's CUdeviceptr is an integer (unsigned long long) and code adds byte offsets to it; HIP's
/// hipDeviceptr_t is `void*`, where `+`, `-` and `%` do not compile. Finds the file's variables and
/// members declared with either type (the scan ignores scopes) and reports each one in arithmetic.
void device_pointer_arithmetic(scan_context& ctx) {
  if (!ctx.mentions("CUdeviceptr") && !ctx.mentions("hipDeviceptr_t")) return;
  std::set<std::string_view> names;
  for (std::size_t i = 0; i + 1 < ctx.size(); ++i) {
    if ((ctx.is(i, "CUdeviceptr") || ctx.is(i, "hipDeviceptr_t")) && ctx.is_ident(i + 1) && !ctx.at(i).in_directive) {
      names.insert(ctx.at(i + 1).text);
    }
  }
  const auto arithmetic = [&](std::size_t k) {
    return ctx.is(k, "+") || ctx.is(k, "-") || ctx.is(k, "%") || ctx.is(k, "+=") || ctx.is(k, "-=");
  };
  for (std::size_t i = 1; i + 1 < ctx.size(); ++i) {
    if (!ctx.is_ident(i) || names.count(ctx.at(i).text) == 0) continue;
    // A declaration, a member of something else, or a cast operand: `(T*)p + n` adds to a typed
    // pointer, which both sides allow.
    if (ctx.is(i - 1, "CUdeviceptr") || ctx.is(i - 1, "hipDeviceptr_t") || ctx.is(i - 1, ".") || ctx.is(i - 1, "->") ||
        ctx.is(i - 1, ")"))
      continue;
    if (arithmetic(i + 1) || arithmetic(i - 1)) {
      ctx.report("device-pointer-arithmetic", i,
                 "`" + std::string(ctx.at(i).text) + "` (CUdeviceptr, an integer in CUDA) is used in arithmetic");
    }
  }
}

void scan_feature_rules(scan_context& ctx) {
  // Identifiers some rule looks at; every other identifier costs one hash lookup.
  static const std::unordered_set<std::string_view> interesting = [] {
    std::unordered_set<std::string_view> names{"asm",  "__asm__", "__asm",   "nvcuda",
                                               "wmma", "texture", "surface", "__launch_bounds__"};
    names.insert(cp_async_names.begin(), cp_async_names.end());
    names.insert(tma_names.begin(), tma_names.end());
    names.insert(texture_reference_calls.begin(), texture_reference_calls.end());
    names.insert(texture_fetches.begin(), texture_fetches.end());
    return names;
  }();
  static const std::unordered_set<std::string_view> prop_fields(missing_device_prop_fields().begin(),
                                                                missing_device_prop_fields().end());
  device_pointer_arithmetic(ctx);
  const bool uses_props = ctx.mentions("cudaDeviceProp") || ctx.mentions("hipDeviceProp_t");
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    const auto& t = ctx.at(i);
    if (t.kind == token_kind::header_name) {
      headers(ctx, i);
      continue;
    }
    if (t.kind != token_kind::identifier) continue;
    if (t.text.size() > 12 && t.text.substr(0, 12) == "__CUDA_ARCH_") {
      cuda_arch(ctx, i);
      continue;
    }
    if (t.text.size() > 13 && t.text.substr(0, 13) == "__CUDACC_VER_") {
      cuda_version(ctx, i);
      continue;
    }
    if (uses_props && i > 0 && (ctx.is(i - 1, ".") || ctx.is(i - 1, "->")) && prop_fields.count(t.text) != 0) {
      ctx.report("device-prop-field", i, "device-property field `" + std::string(t.text) + "` is read");
      continue;
    }
    if (interesting.count(t.text) == 0) continue;
    inline_asm(ctx, i);
    wmma_and_async(ctx, i);
    textures(ctx, i);
    if (t.text == "__launch_bounds__" && ctx.is(i + 1, "(")) {
      const auto args = ctx.arguments(i + 1, ctx.matching(i + 1));
      if (args.size() >= 2) {
        ctx.report("launch-bounds", i,
                   "__launch_bounds__ has a second argument `" + ctx.spelled(args[1].first, args[1].second) + "`");
      }
    }
  }
}

}  // namespace r2r::plugins::converter
