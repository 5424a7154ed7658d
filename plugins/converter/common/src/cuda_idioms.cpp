// SPDX-License-Identifier: MIT
// port_cuda_idioms: one lexer pass; a call is rewritten from its argument texts (split at
// top-level commas), which are ported recursively, so nested idioms are handled and everything
// else in the arguments (comments, literals, line breaks) is kept byte for byte.
#include "cuda_idioms_shared.hpp"

#include <r2r/convert/cuda_idioms.hpp>
#include <r2r/convert/lexer.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <stdexcept>

namespace r2r::plugins::converter {
namespace {

using sdk::converter::diagnostic;

constexpr std::string_view helper_block =
    "#ifndef R2R_CUDA_IDIOMS_H\n"
    "#define R2R_CUDA_IDIOMS_H  // added by repo2rocm port: CUDA warp idioms with 32-lane semantics\n"
    "#include <hip/hip_runtime.h>\n"
    "#include <type_traits>\n"
    "// The 32 ballot bits of this lane's 32-lane half of the wavefront: CUDA's warp on wave64 and wave32.\n"
    "__device__ static inline unsigned r2r_ballot32(int p) {\n"
    "  return static_cast<unsigned>(static_cast<unsigned long long>(__ballot(p)) >> (__lane_id() & 32u));\n"
    "}\n"
    "__device__ static inline unsigned r2r_activemask32() { return r2r_ballot32(1); }\n"
    "__device__ static inline int r2r_any32(int p) { return r2r_ballot32(p) != 0u; }\n"
    "__device__ static inline int r2r_all32(int p) { return r2r_ballot32(p) == r2r_activemask32(); }\n"
    "__device__ static inline void r2r_syncwarp() {\n"
    "  __builtin_amdgcn_fence(__ATOMIC_RELEASE, \"wavefront\");\n"
    "  __builtin_amdgcn_wave_barrier();\n"
    "  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, \"wavefront\");\n"
    "}\n"
    "template <class T> __device__ static inline T r2r_load_nt(const T* p) {\n"
    "  if constexpr (std::is_arithmetic<T>::value) return __builtin_nontemporal_load(p); else return *p;\n"
    "}\n"
    "template <class T> __device__ static inline T r2r_load(const T* p) { return *p; }\n"
    "template <class T, class U> __device__ static inline void r2r_store_nt(T* p, U v) {\n"
    "  if constexpr (std::is_arithmetic<T>::value) __builtin_nontemporal_store(static_cast<T>(v), p); else *p = v;\n"
    "}\n"
    "template <class T, class U> __device__ static inline void r2r_store(T* p, U v) { *p = v; }\n"
    "#endif  // R2R_CUDA_IDIOMS_H\n";

constexpr std::string_view math_block =
    "#ifndef R2R_CUDA_MATH_H\n"
    "#define R2R_CUDA_MATH_H  // added by repo2rocm port: CUDA's runtime header declares these for host code\n"
    "#include <math.h>  // isfinite/isinf/isnan/signbit in the global namespace, as with cuda_runtime.h\n"
    "#endif  // R2R_CUDA_MATH_H\n";

/// C99 classification functions cuda_runtime.h declares in the global namespace for host and
/// device code; hip_runtime.h declares only the device overloads there.
constexpr std::array<std::string_view, 6> math_classification{"isfinite", "isinf",    "isnan",
                                                              "signbit",  "isnormal", "fpclassify"};

struct call_port {
  std::string_view cuda;
  std::string_view hip;
  enum kind_t { shuffle, vote, syncwarp, activemask, load, store, trap } kind;
};

constexpr std::array<call_port, 19> idiom_calls{{
    {"__shfl_sync", "__shfl", call_port::shuffle},
    {"__shfl_up_sync", "__shfl_up", call_port::shuffle},
    {"__shfl_down_sync", "__shfl_down", call_port::shuffle},
    {"__shfl_xor_sync", "__shfl_xor", call_port::shuffle},
    {"__ballot_sync", "r2r_ballot32", call_port::vote},
    {"__any_sync", "r2r_any32", call_port::vote},
    {"__all_sync", "r2r_all32", call_port::vote},
    {"__syncwarp", "r2r_syncwarp", call_port::syncwarp},
    {"__activemask", "r2r_activemask32", call_port::activemask},
    {"__ldcs", "r2r_load_nt", call_port::load},
    {"__ldlu", "r2r_load_nt", call_port::load},
    {"__ldcv", "r2r_load_nt", call_port::load},
    {"__ldcg", "r2r_load", call_port::load},
    {"__ldca", "r2r_load", call_port::load},
    {"__stcs", "r2r_store_nt", call_port::store},
    {"__stwt", "r2r_store_nt", call_port::store},
    {"__stcg", "r2r_store", call_port::store},
    {"__stwb", "r2r_store", call_port::store},
    {"__trap", "__builtin_trap", call_port::trap},
}};

constexpr std::array<std::pair<std::string_view, std::string_view>, 18> renames{{
    {"nvtxRangePushA", "roctxRangePushA"},
    {"nvtxRangePop", "roctxRangePop"},
    {"nvtxMarkA", "roctxMarkA"},
    {"nvtxRangeStartA", "roctxRangeStartA"},
    {"nvtxRangeEnd", "roctxRangeStop"},
    {"nvtxRangeId_t", "roctx_range_id_t"},
    {"nvtxNameOsThreadA", "roctxNameOsThreadA"},
    {"nv_bfloat16", "__hip_bfloat16"},
    {"nv_bfloat162", "__hip_bfloat162"},
    {"__nv_bfloat16", "__hip_bfloat16"},
    {"__nv_bfloat162", "__hip_bfloat162"},
    {"__nv_bfloat16_raw", "__hip_bfloat16_raw"},
    {"__nv_bfloat162_raw", "__hip_bfloat162_raw"},
    {"__CUDA_RUNTIME_H__", "HIP_INCLUDE_HIP_HIP_RUNTIME_H"},
    {"__DRIVER_TYPES_H__", "HIP_INCLUDE_HIP_HIP_RUNTIME_H"},
    {"__cuda_cuda_h__", "HIP_INCLUDE_HIP_HIP_RUNTIME_H"},
    {"CUDA_RUNTIME_API_H", "HIP_INCLUDE_HIP_HIP_RUNTIME_H"},
    {"__CUDA_RUNTIME_API_H__", "HIP_INCLUDE_HIP_HIP_RUNTIME_H"},
}};

/// hip/hip_bf16.h (ROCm 6+) declares these with CUDA's names and meaning.
constexpr std::array<std::string_view, 16> bf16_same_name{
    "__float2bfloat16",     "__bfloat162float",     "__float2bfloat16_rn",   "__float22bfloat162_rn",
    "__bfloat1622float2",   "__float2bfloat162_rn", "__floats2bfloat162_rn", "__low2bfloat16",
    "__high2bfloat16",      "__halves2bfloat162",   "__low2float",           "__high2float",
    "__bfloat16_as_ushort", "__ushort_as_bfloat16", "__bfloat16_as_short",   "__short_as_bfloat16"};

/// First characters of every name run() acts on: the builtins (threadIdx, blockIdx, blockDim,
/// gridDim, __global__, __shared__), the math classification calls (isfinite, signbit,
/// fpclassify, ...), and the '_', 'n' and 'C' names of the tables above. Most identifiers start
/// with none of them and need no comparison at all.
constexpr std::array<bool, 256> make_first_chars() {
  std::array<bool, 256> f{};
  for (const char c : std::string_view("tbg_isfnC")) f[static_cast<unsigned char>(c)] = true;
  return f;
}
constexpr std::array<bool, 256> first_chars = make_first_chars();
static_assert([] {
  const auto all_covered = [](std::string_view n) { return first_chars[static_cast<unsigned char>(n.front())]; };
  for (const auto n : math_classification)
    if (!all_covered(n)) return false;
  for (const auto& c : idiom_calls)
    if (!all_covered(c.cuda)) return false;
  for (const auto& r : renames)
    if (!all_covered(r.first)) return false;
  for (const auto n :
       {"threadIdx", "blockIdx", "blockDim", "gridDim", "__global__", "__shared__", "__CUDA_ARCH__", "__CUDA__"})
    if (!all_covered(n)) return false;
  return true;
}());

bool may_matter(char first) {
  return first_chars[static_cast<unsigned char>(first)];
}

/// What run() does with a name that passed its first-character test: __CUDA_ARCH__, __CUDA__, a
/// rename or a call port (the lists share no name: add() refuses a name listed twice). One probe
/// of a small open-addressing table replaces the scans of both lists.
struct special {
  std::string_view name;
  bool cuda_arch = false;
  const std::pair<std::string_view, std::string_view>* rename = nullptr;
  const call_port* call = nullptr;
  bool clang_cuda = false;  // __CUDA__: clang's CUDA-mode macro
};

class special_names {
 public:
  special_names() {
    add({"__CUDA_ARCH__", true, nullptr, nullptr});
    add({"__CUDA__", false, nullptr, nullptr, true});
    for (const auto& r : renames) add({r.first, false, &r, nullptr});
    for (const auto& c : idiom_calls) add({c.cuda, false, nullptr, &c});
  }
  const special* find(std::string_view name) const noexcept {
    for (std::size_t slot = hash(name);; slot = (slot + 1) % slots_.size()) {
      const special& s = slots_[slot];
      if (s.name.empty()) return nullptr;
      if (s.name == name) return &s;
    }
  }

 private:
  static std::size_t hash(std::string_view n) noexcept {
    const auto at = [n](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(n[i])); };
    return (n.size() * 31 + at(n.size() / 2) * 7 + at(n.size() - 1) * 13 + at(n.size() > 2 ? 2 : 0)) % 128;
  }
  void add(const special& s) {
    std::size_t slot = hash(s.name);
    while (!slots_[slot].name.empty()) {
      if (slots_[slot].name == s.name) throw std::logic_error("idiom tables list a name twice");
      slot = (slot + 1) % slots_.size();
    }
    slots_[slot] = s;
  }
  std::array<special, 128> slots_{};  // 38 names: mostly one probe
};

const special* find_special(std::string_view name) {
  static const special_names table;
  return table.find(name);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

/// A mask naming all 32 lanes: 0xffffffff with any u/U/l/L suffix, ~0u, ~0, -1, 0xFFFFFFFF.
bool full_mask(std::string_view mask) {
  std::string m;
  for (char c : trim(mask)) {
    if (c != ' ' && c != '(' && c != ')') m += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!m.empty() && (m.back() == 'u' || m.back() == 'l')) m.pop_back();
  return m == "0xffffffff" || m == "~0" || m == "-1" || m == "~0x0" || m == "0xffffffffffffffff";
}

using name_map = std::map<std::string, std::string, std::less<>>;

/// Variables of the file that can stand for a lane mask: `NAME = init` declared after an integer
/// type keyword (int, unsigned, long, uint32_t, auto, ...; const or not) and never written again
/// (no assignment, compound assignment, ++/--, or unary & that could write through a pointer).
/// NAME -> its initializer text. A name declared twice with different initializers, or written
/// anywhere, is left out: the scan ignores scopes, so only a value every use must see is kept.
name_map mask_variables(std::string_view text) {
  lexer lx(text);
  std::vector<token> toks;
  bool in_directive = false;
  for (token t = lx.next(); t.kind != token_kind::end_of_file; t = lx.next()) {
    if (t.kind == token_kind::error) return {};
    if (t.kind == token_kind::directive_hash) in_directive = true;
    if (t.kind == token_kind::directive_end) {
      in_directive = false;
      continue;
    }
    if (t.kind != token_kind::comment && !in_directive) toks.push_back(t);
  }
  const auto txt = [&](std::size_t k) {
    return k < toks.size() ? text.substr(toks[k].begin, toks[k].end - toks[k].begin) : std::string_view();
  };
  const auto adjacent = [&](std::size_t a, std::size_t b) { return b < toks.size() && toks[a].end == toks[b].begin; };
  static constexpr std::array<std::string_view, 10> int_types{"int",      "unsigned", "long",    "short",   "auto",
                                                              "uint32_t", "uint64_t", "int32_t", "int64_t", "uint"};
  name_map decls;
  std::set<std::string, std::less<>> unusable;
  for (std::size_t k = 0; k < toks.size(); ++k) {
    if (toks[k].kind != token_kind::identifier) continue;
    const std::string_view name = txt(k);
    const std::string_view prev = k > 0 ? txt(k - 1) : std::string_view();
    if (prev == "." || prev == "->" || prev == "::") continue;
    const bool assign = txt(k + 1) == "=" && txt(k + 2) != "=";
    if (assign && std::find(int_types.begin(), int_types.end(), prev) != int_types.end()) {
      std::size_t end = k + 2;
      int depth = 0;
      for (; end < toks.size(); ++end) {
        const std::string_view p = txt(end);
        if (p == "(" || p == "[" || p == "{") ++depth;
        if (p == ")" || p == "]" || p == "}") --depth;
        if (depth < 0 || (depth == 0 && (p == ";" || p == ","))) break;
      }
      if (end >= toks.size() || end == k + 2) {
        unusable.emplace(name);
        continue;
      }
      const std::string init(text.substr(toks[k + 2].begin, toks[end - 1].end - toks[k + 2].begin));
      if (auto [it, fresh] = decls.emplace(name, init); !fresh && it->second != init) unusable.emplace(name);
      k = end - 1;
      continue;
    }
    const std::string_view n1 = txt(k + 1), n2 = txt(k + 2);
    const bool compound = (n1.size() == 1 && std::string_view("+-*/%&|^").find(n1) != std::string_view::npos &&
                           n2 == "=" && adjacent(k + 1, k + 2)) ||
                          ((n1 == "<" || n1 == ">") && n2 == n1 && txt(k + 3) == "=");
    const bool incdec = ((n1 == "+" || n1 == "-") && n2 == n1 && adjacent(k + 1, k + 2)) ||
                        (k >= 2 && (prev == "+" || prev == "-") && txt(k - 2) == prev && adjacent(k - 2, k - 1));
    bool address_of = false;
    if (prev == "&") {
      const token* before = k >= 2 ? &toks[k - 2] : nullptr;
      const std::string_view b = k >= 2 ? txt(k - 2) : std::string_view();
      address_of = before == nullptr || !(before->kind == token_kind::identifier ||
                                          before->kind == token_kind::number || b == ")" || b == "]");
    }
    if (assign || compound || incdec || address_of) unusable.emplace(name);
  }
  for (const auto& n : unusable) decls.erase(n);
  return decls;
}

/// mask_variables() of a whole file, computed on first use: most files have no mask to resolve,
/// and the scan lexes the whole file. LIFETIME: borrows the file's text.
class lazy_mask_variables {
 public:
  explicit lazy_mask_variables(std::string_view file_text) : text_(file_text) {}
  const name_map& get() {
    if (!map_) map_ = mask_variables(text_);
    return *map_;
  }

 private:
  std::string_view text_;
  std::optional<name_map> map_;
};

class idiom_porter {
 public:
  /// `macros`: object-like macros seen so far (name -> replacement text), shared with nested porters.
  /// `variables`: mask_variables() of the whole file, shared with nested porters.
  /// `shared`: the tokens of `text` (lex_code), or null to lex here; run() takes them and leaves
  /// the tokens of its output there. LIFETIME: every reference must outlive run().
  idiom_porter(std::string_view path, std::string_view text, std::int64_t line_base, name_map& macros,
               lazy_mask_variables& variables, code_tokens* shared = nullptr)
      : path_(path), text_(text), line_base_(line_base), macros_(macros), variables_(variables), shared_(shared) {}

  idiom_port run() {
    if (shared_ != nullptr) {
      if (shared_->failed) {
        out_.text = std::string(text_);
        return std::move(out_);
      }
      tokens_ = std::move(shared_->tokens);
      out_.text.reserve(text_.size() + text_.size() / 16 + 64);
    } else {
      lexer lx(text_);
      tokens_.reserve(text_.size() / 4);
      for (token t = lx.next(); t.kind != token_kind::end_of_file; t = lx.next()) {
        if (t.kind == token_kind::error) {
          out_.text = std::string(text_);
          return std::move(out_);
        }
        if (t.kind == token_kind::comment) continue;
        tokens_.push_back(t);
      }
    }
    std::string directive;
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      const token& t = tokens_[i];
      if (t.kind == token_kind::directive_hash) {
        directive = i + 1 < tokens_.size() ? std::string(text_of(tokens_[i + 1])) : std::string();
        if (directive == "include" && i + 2 < tokens_.size() && tokens_[i + 2].kind == token_kind::header_name) {
          on_include(i + 2);
        }
        if (directive == "define") record_macro(i + 2);
        continue;
      }
      if (t.kind == token_kind::directive_end) directive.clear();
      if (t.kind != token_kind::identifier) continue;
      const std::string_view name = text_of(t);
      if (!may_matter(name.front())) continue;
      if (name == "threadIdx" || name == "blockIdx" || name == "blockDim" || name == "__global__" ||
          name == "__shared__" || name == "gridDim") {
        uses_builtins_ = true;
      }
      if (i > 0 && tokens_[i - 1].kind == token_kind::punct) {
        const std::string_view p = text_of(tokens_[i - 1]);
        if (p == "." || p == "->" || p == "::") continue;  // a member or another scope's name
      }
      // A call, not a declaration (`bool isfinite(float);` follows a type name, a call an operator).
      const bool after_operator =
          i == 0 || tokens_[i - 1].kind == token_kind::punct || text_of(tokens_[i - 1]) == "return";
      if (!uses_math_ && after_operator && i + 1 < tokens_.size() && text_of(tokens_[i + 1]) == "(" &&
          std::find(math_classification.begin(), math_classification.end(), name) != math_classification.end() &&
          directive.empty()) {
        uses_math_ = true;
        math_call_ = t;
        math_name_ = std::string(name);
      }
      // Every name below starts with '_' (intrinsics, guards), 'n' (NVTX, nv_bfloat16) or 'C'
      // (CUDA_RUNTIME_API_H): a cheap test that spares most identifiers the table searches.
      if (name.front() != '_' && name.front() != 'n' && name.front() != 'C') continue;
      const special* sp = find_special(name);
      if (sp == nullptr) continue;
      if (sp->cuda_arch) {
        on_cuda_arch(i, directive);
        continue;
      }
      if (sp->clang_cuda) {
        on_clang_cuda(i);
        continue;
      }
      if (const auto* r = sp->rename) {
        // Guard names are only rewritten where they are probed, in directives.
        if (r->second.substr(0, 4) == "HIP_" && directive.empty()) continue;
        edit(i, i, r->second);
        ported(t, name, std::string(name) + " -> " + std::string(r->second));
        continue;
      }
      if (const call_port* c = sp->call) i = on_call(i, *c);
    }
    out_.text.append(text_.substr(copied_));
    if (shared_ != nullptr) hand_on_tokens();
    out_.stats["idioms_ported"] = ported_;
    out_.stats["idioms_left"] = left_;
    out_.needs_helpers = uses_helpers_ || (uses_builtins_ && !has_runtime_include_);
    out_.needs_math = uses_math_ && !has_math_include_;
    if (out_.needs_math && line_base_ == 0) {
      ported(math_call_, math_name_,
             math_name_ +
                 " unqualified: <math.h> added (CUDA's runtime header declares it for host code, HIP's does not)");
    }
    return std::move(out_);
  }

 private:
  /// Tokens lie inside text_ (they are its lexer's), so no bounds check is needed.
  std::string_view text_of(const token& t) const noexcept { return {text_.data() + t.begin, t.end - t.begin}; }

  /// `#define NAME value` (object-like) at tokens_[k]: remembered so a mask spelled as a macro resolves.
  void record_macro(std::size_t k) {
    if (k >= tokens_.size() || tokens_[k].kind != token_kind::identifier) return;
    const token& name = tokens_[k];
    if (k + 1 < tokens_.size() && text_of(tokens_[k + 1]) == "(" && tokens_[k + 1].begin == name.end) return;
    std::size_t end = k + 1;
    while (end < tokens_.size() && tokens_[end].kind != token_kind::directive_end) ++end;
    if (end == k + 1 || end >= tokens_.size()) return;
    macros_[std::string(text_of(name))] =
        std::string(text_.substr(tokens_[k + 1].begin, tokens_[end - 1].end - tokens_[k + 1].begin));
  }

  /// full_mask() after replacing a mask that is a macro name, or a never-written variable
  /// (mask_variables), by its definition.
  bool is_full_mask(std::string_view mask) {
    std::string_view m = trim(mask);
    if (full_mask(m)) return true;  // a literal: no variable or macro is spelled this way
    const name_map& variables = variables_.get();
    if (auto it = variables.find(m); it != variables.end()) m = trim(it->second);
    if (auto it = macros_.find(m); it != macros_.end()) return full_mask(it->second);
    return full_mask(m);
  }

  void replace(std::size_t begin, std::size_t end, std::string_view with) {
    out_.text.append(text_.substr(copied_, begin - copied_));
    out_.text.append(with);
    copied_ = end;
  }

  /// replace() of tokens_[first..last], recorded for hand_on_tokens().
  void edit(std::size_t first, std::size_t last, std::string_view with) {
    replace(tokens_[first].begin, tokens_[last].end, with);
    if (shared_ != nullptr) edits_.push_back({first, last, out_.text.size() - with.size(), out_.text.size()});
  }

  /// Leaves the tokens of out_.text in *shared_: tokens_ when nothing changed, else spliced, else lexed.
  void hand_on_tokens() {
    if (edits_.empty()) {
      shared_->tokens = std::move(tokens_);
      return;
    }
    if (!splice_tokens(text_, tokens_, out_.text, edits_, shared_->tokens)) *shared_ = lex_code(out_.text);
  }

  void diag(const token& t, const char* severity, const char* category, std::string_view name, std::string message,
            std::string hint) {
    diagnostic d;
    d.file = std::string(path_);
    d.line = t.line + line_base_;
    d.column = t.column;
    d.severity = severity;
    d.category = category;
    d.name = std::string(name);
    d.message = std::move(message);
    d.hint = std::move(hint);
    out_.diagnostics.push_back(std::move(d));
  }

  void ported(const token& t, std::string_view name, std::string what) {
    ++ported_;
    diag(t, "note", "ported", name, "ported: " + what, "");
  }

  void on_include(std::size_t at) {
    const token& h = tokens_[at];
    const std::string_view spelled = text_of(h);
    const std::string_view inner = spelled.substr(1, spelled.size() - 2);
    if (inner == "cuda_runtime.h" || inner == "cuda_runtime_api.h" || inner == "cuda.h" ||
        inner == "hip/hip_runtime.h" || inner == "hip/hip_runtime_api.h") {
      has_runtime_include_ = true;
    }
    if (inner == "math.h") has_math_include_ = true;
    if (inner == "nvToolsExt.h" || inner == "nvtx3/nvToolsExt.h") {
      edit(at, at, std::string(1, spelled.front()) + "roctracer/roctx.h" + spelled.back());
      ported(h, inner, std::string(inner) + " -> roctracer/roctx.h (link roctx64)");
    }
    if (inner == "cuda_bf16.h") {
      for (const auto n : bf16_same_name) out_.same_in_hip.emplace(n);
      edit(at, at, std::string(1, spelled.front()) + "hip/hip_bf16.h" + spelled.back());
      ported(h, inner, "cuda_bf16.h -> hip/hip_bf16.h (__hip_bfloat16)");
    }
  }

  void on_cuda_arch(std::size_t i, const std::string& directive) {
    const token& t = tokens_[i];
    const auto punct_at = [&](std::size_t k, std::string_view p) {
      return k < tokens_.size() && tokens_[k].kind == token_kind::punct && text_of(tokens_[k]) == p;
    };
    const bool after_defined = (i >= 1 && text_of(tokens_[i - 1]) == "defined") ||
                               (i >= 2 && punct_at(i - 1, "(") && text_of(tokens_[i - 2]) == "defined");
    if (directive == "ifdef" || directive == "ifndef" || after_defined) {
      edit(i, i, "__HIP_DEVICE_COMPILE__");
      ported(t, "__CUDA_ARCH__", "__CUDA_ARCH__ tests device compilation -> __HIP_DEVICE_COMPILE__");
      return;
    }
    ++left_;
    diag(t, "error", "manual_port", "__CUDA_ARCH__",
         "__CUDA_ARCH__ gates on an NVIDIA SM version; HIP leaves it undefined, so this test takes its "
         "non-device (value 0) branch on AMD",
         "test the AMD feature instead: __gfx90a__/__gfx942__/__gfx950__ (CDNA2/3/4, MFMA, packed FP32), "
         "__AMDGCN_WAVEFRONT_SIZE__ for the wave size, or __HIP_DEVICE_COMPILE__ for device code");
  }

  /// `__CUDA__` is what clang defines when it compiles CUDA (`defined(__clang__) &&
  /// defined(__CUDA__)`: clang's CUDA mode, both passes); HIP-Clang defines `__HIP__` in HIP mode
  /// instead, with the same `__host__`/`__device__`, `_Pragma` and builtins. A file that tests
  /// `__HIP__` itself already tells the two modes apart (`#elif defined(__HIP__)`), so renaming
  /// there would pick its CUDA branch over its own HIP branch: it is left and reported.
  void on_clang_cuda(std::size_t i) {
    const token& t = tokens_[i];
    if (!mentions_hip_) {
      mentions_hip_ = std::any_of(tokens_.begin(), tokens_.end(), [this](const token& k) {
        return k.kind == token_kind::identifier && text_of(k) == "__HIP__";
      });
    }
    if (*mentions_hip_) {
      ++left_;
      out_.same_in_hip.emplace("__CUDA__");
      diag(t, "warning", "manual_port", "__CUDA__",
           "__CUDA__ (clang's CUDA mode) was left: this file also tests __HIP__, so it has a HIP branch of its own",
           "check that the __HIP__ branch covers what the __CUDA__ one does; HIP-Clang never defines __CUDA__");
      return;
    }
    edit(i, i, "__HIP__");
    ported(t, "__CUDA__", "__CUDA__ (clang's CUDA mode) -> __HIP__ (HIP-Clang's HIP mode)");
  }

  /// The call at tokens_[i]; returns the index of its last token (or i when not a call).
  std::size_t on_call(std::size_t i, const call_port& c) {
    const token& name = tokens_[i];
    if (i + 1 >= tokens_.size() || text_of(tokens_[i + 1]) != "(") return i;
    // Split the arguments at top-level commas.
    std::vector<std::pair<std::size_t, std::size_t>> args;  // byte ranges
    int depth = 0;
    std::size_t arg_begin = tokens_[i + 1].end;
    std::size_t close = 0;
    for (std::size_t k = i + 1; k < tokens_.size(); ++k) {
      const std::string_view p = tokens_[k].kind == token_kind::punct ? text_of(tokens_[k]) : std::string_view();
      if (p == "(" || p == "[" || p == "{") {
        ++depth;
      } else if (p == ")" || p == "]" || p == "}") {
        if (--depth == 0) {
          close = k;
          break;
        }
      } else if (p == "," && depth == 1) {
        args.emplace_back(arg_begin, tokens_[k].begin);
        arg_begin = tokens_[k].end;
      }
    }
    if (close == 0) return i;
    if (tokens_[close].begin > arg_begin || !args.empty()) args.emplace_back(arg_begin, tokens_[close].begin);
    if (args.size() == 1 && trim(text_.substr(args[0].first, args[0].second - args[0].first)).empty()) args.clear();
    const auto arg = [&](std::size_t n) { return port_nested(args[n].first, args[n].second, tokens_[i].line); };
    const std::string_view cuda = c.cuda;
    std::string with;
    switch (c.kind) {
      case call_port::shuffle:
      case call_port::vote: {
        const std::size_t want = c.kind == call_port::vote ? 2 : 3;
        if (args.size() < want || args.size() > want + (c.kind == call_port::shuffle ? 1 : 0)) return i;
        const std::string_view mask = text_.substr(args[0].first, args[0].second - args[0].first);
        if (!is_full_mask(mask)) {
          ++left_;
          diag(name, "error", "manual_port", cuda,
               std::string(cuda) + " with the lane mask '" + std::string(trim(mask)) +
                   "', which is not the full 32-lane mask: a wave64 port needs the participating lanes spelled out",
               "if every lane of the 32-lane group takes part, write the mask as 0xffffffff and port again; "
               "otherwise rewrite with a 64-bit mask (HIP >= 6.2, HIP_ENABLE_WARP_SYNC_BUILTINS) covering the "
               "same lanes of each half-wavefront");
          return close;  // left as written, arguments included
        }
        with = std::string(c.hip) + "(";
        for (std::size_t n = 1; n < args.size(); ++n) {
          std::string a = arg(n);
          if (n == 1) a.erase(0, a.find_first_not_of(" \t"));  // the space after the dropped mask's comma
          with += (n > 1 ? "," : "") + a;
        }
        if (c.kind == call_port::shuffle && args.size() == 3) with += ", 32";
        with += ")";
        if (c.kind == call_port::vote) uses_helpers_ = true;
        ported(name, cuda,
               std::string(cuda) + "(full mask) -> " + std::string(c.hip) +
                   (c.kind == call_port::shuffle ? " with width 32 (CUDA's 32-lane warp on wave64)"
                                                 : " (the 32 bits of the lane's own half-wavefront)"));
        break;
      }
      case call_port::syncwarp:
        if (args.size() > 1) return i;
        if (!args.empty() && !is_full_mask(text_.substr(args[0].first, args[0].second - args[0].first))) {
          ++left_;
          diag(name, "error", "manual_port", cuda, "__syncwarp with a partial lane mask",
               "a partial-warp barrier has no AMD equivalent; restructure so the whole 32-lane group syncs");
          return close;
        }
        with = "r2r_syncwarp()";
        uses_helpers_ = true;
        ported(name, cuda, "__syncwarp -> r2r_syncwarp (wavefront fence and barrier)");
        break;
      case call_port::activemask:
        if (!args.empty()) return i;
        with = "r2r_activemask32()";
        uses_helpers_ = true;
        ported(name, cuda, "__activemask -> r2r_activemask32 (the lane's 32-lane half)");
        break;
      case call_port::load:
        if (args.size() != 1) return i;
        with = std::string(c.hip) + "(" + arg(0) + ")";
        uses_helpers_ = true;
        ported(name, cuda, std::string(cuda) + " -> " + std::string(c.hip));
        break;
      case call_port::store:
        if (args.size() != 2) return i;
        with = std::string(c.hip) + "(" + arg(0) + "," + arg(1) + ")";
        uses_helpers_ = true;
        ported(name, cuda, std::string(cuda) + " -> " + std::string(c.hip));
        break;
      case call_port::trap:
        if (!args.empty()) return i;
        with = "__builtin_trap()";
        ported(name, cuda, "__trap -> __builtin_trap");
        break;
    }
    edit(i, close, with);
    return close;
  }

  std::string port_nested(std::size_t begin, std::size_t end, std::int64_t line) {
    idiom_porter inner(path_, text_.substr(begin, end - begin), line_base_ + line - 1, macros_, variables_);
    idiom_port r = inner.run();
    ported_ += r.stats["idioms_ported"];
    left_ += r.stats["idioms_left"];
    uses_helpers_ = uses_helpers_ || inner.uses_helpers_;
    if (!uses_math_ && inner.uses_math_) {
      uses_math_ = true;
      math_call_ = inner.math_call_;
      math_call_.line += line - 1;
      math_call_.begin = math_call_.end = 0;  // its text is the inner porter's; math_name_ keeps the name
      math_name_ = inner.math_name_;
    }
    for (auto& d : r.diagnostics) out_.diagnostics.push_back(std::move(d));
    return std::move(r.text);
  }

  std::string_view path_;
  std::string_view text_;
  std::int64_t line_base_;
  name_map& macros_;
  lazy_mask_variables& variables_;
  code_tokens* shared_;
  std::vector<token_edit> edits_;  // when shared_: every edit(), in order
  std::vector<token> tokens_;
  idiom_port out_;
  std::size_t copied_ = 0;
  std::int64_t ported_ = 0, left_ = 0;
  bool uses_helpers_ = false, uses_builtins_ = false, has_runtime_include_ = false;
  bool uses_math_ = false, has_math_include_ = false;
  std::optional<bool> mentions_hip_;  // whether the file tests __HIP__: found on the first __CUDA__
  token math_call_;
  std::string math_name_;
};

}  // namespace

idiom_port port_cuda_idioms(std::string_view path, std::string_view text) {
  name_map macros;
  lazy_mask_variables variables(text);
  return idiom_porter(path, text, 0, macros, variables).run();
}

idiom_port port_cuda_idioms(std::string_view path, std::string_view text, code_tokens& tokens) {
  name_map macros;
  lazy_mask_variables variables(text);
  return idiom_porter(path, text, 0, macros, variables, &tokens).run();
}

std::string_view math_helpers_block() {
  return math_block;
}

std::string_view helpers_block() {
  return helper_block;
}

std::string insert_helpers(std::string_view text, std::int64_t& at_line, std::int64_t& lines_added) {
  return insert_block(text, helper_block, at_line, lines_added);
}

std::string insert_block(std::string_view text, std::string_view block, std::int64_t& at_line,
                         std::int64_t& lines_added) {
  at_line = 0;
  lines_added = 0;
  if (text.find(block.substr(0, block.find('\n'))) != std::string_view::npos) return std::string(text);
  // Before the first directive or declaration; after a leading `#pragma once`.
  lexer lx(text);
  std::size_t at = 0;
  token t = lx.next();
  while (t.kind == token_kind::comment) t = lx.next();
  if (t.kind != token_kind::end_of_file && t.kind != token_kind::error) {
    at = t.begin;
    if (t.kind == token_kind::directive_hash) {
      const token name = lx.next();
      const token arg = lx.next();
      if (lx.text_of(name) == "pragma" && lx.text_of(arg) == "once") {
        token rest = arg;
        while (rest.kind != token_kind::directive_end && rest.kind != token_kind::end_of_file) rest = lx.next();
        at = std::min(rest.end + 1, text.size());
      }
    }
  }
  while (at > 0 && text[at - 1] != '\n') --at;  // the start of that line
  at_line =
      1 + static_cast<std::int64_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  std::string out;
  out.reserve(text.size() + block.size());
  out.append(text.substr(0, at));
  out.append(block);
  out.append(text.substr(at));
  lines_added = static_cast<std::int64_t>(std::count(block.begin(), block.end(), '\n'));
  return out;
}

}  // namespace r2r::plugins::converter
