// SPDX-License-Identifier: MIT
// port_wmma: one lexer pass collects the file's integer constants and every fragment<...>; the
// port is all or nothing per file, so a file never mixes nvcuda::wmma and rocwmma fragments.
#include <r2r/convert/lexer.hpp>
#include "text_search.hpp"

#include <r2r/convert/wmma_port.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

namespace r2r::plugins::converter {
namespace {

std::optional<long> integer(std::string_view spelled) {
  std::string digits(spelled);
  while (!digits.empty() && std::string_view("uUlL").find(digits.back()) != std::string_view::npos) digits.pop_back();
  if (digits.empty() || digits[0] < '0' || digits[0] > '9') return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(digits.c_str(), &end, 0);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return v;
}

std::string squeeze(std::string_view s) {  // the text without blanks
  std::string out;
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') out += c;
  }
  return out;
}

std::string_view unqualified(std::string_view s) {
  const std::size_t at = s.rfind("::");
  return at == std::string_view::npos ? s : s.substr(at + 2);
}

class wmma_porter {
 public:
  wmma_porter(std::string_view path, std::string_view text) : path_(path), text_(text) {}

  idiom_port run() {
    out_.text = std::string(text_);
    if (!contains_at_rare(text_, "nvcuda", 1) && !contains_at_rare(text_, "mma.h", 3)) {
      return std::move(out_);
    }
    lexer lx(text_);
    for (token t = lx.next(); t.kind != token_kind::end_of_file; t = lx.next()) {
      if (t.kind == token_kind::error) return std::move(out_);
      if (t.kind != token_kind::comment && !t.in_skipped_block) tokens_.push_back(t);
    }
    collect_constants();
    bool uses_wmma = false;
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      if (is(i, "nvcuda") || (tokens_[i].kind == token_kind::header_name && text_of(i).substr(1) == "mma.h>")) {
        uses_wmma = true;
      }
    }
    if (!uses_wmma) return std::move(out_);
    bool any_fragment = false;
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      if (is(i, "fragment") && is(i + 1, "<") && wmma_scope(i)) {
        any_fragment = true;
        check_fragment(i);
      } else if ((is(i, "precision") || is(i, "experimental")) && wmma_scope(i)) {
        block(i, "wmma::" + std::string(text_of(i)),
              "tf32 and sub-byte (experimental) fragments have no rocWMMA type on every AMD target (xfloat32 "
              "is gfx942-only)");
      } else if ((is(i, "bmma_sync") || is(i, "__float_to_tf32")) && is(i + 1, "(")) {
        block(i, std::string(text_of(i)), "binary and tf32 matrix operations have no rocWMMA counterpart");
      }
    }
    if (left_ > 0) {
      out_.stats["idioms_left"] = left_;
      return std::move(out_);
    }
    out_.text.clear();
    rewrite();
    out_.text.append(text_.substr(copied_));
    if (any_fragment && first_ != nullptr) {
      sdk::converter::diagnostic d;
      d.file = std::string(path_);
      d.line = first_->line;
      d.column = first_->column;
      d.severity = "warning";
      d.category = "ported";
      d.name = "nvcuda::wmma";
      d.message =
          "ported to rocWMMA: a fragment belongs to a 64-lane wavefront on gfx9 (CUDA: a 32-lane warp), so each "
          "wavefront computes one tile where each warp did";
      d.hint =
          "derive tile indices from warpSize (it is 64 on gfx9), not from 32, and do not index fragment.x[] by "
          "position: rocWMMA's element-to-lane layout differs from CUDA's";
      out_.diagnostics.push_back(std::move(d));
    }
    out_.stats["idioms_ported"] = ported_;
    return std::move(out_);
  }

 private:
  std::string_view text_of(std::size_t k) const {
    return k < tokens_.size() ? text_.substr(tokens_[k].begin, tokens_[k].end - tokens_[k].begin) : std::string_view();
  }
  bool is(std::size_t k, std::string_view s) const { return k < tokens_.size() && text_of(k) == s; }
  bool is_ident(std::size_t k) const { return k < tokens_.size() && tokens_[k].kind == token_kind::identifier; }

  /// The name at i is in nvcuda::wmma: qualified by wmma:: / an alias, or unqualified under
  /// `using namespace nvcuda::wmma`.
  bool wmma_scope(std::size_t i) const {
    if (i >= 2 && is(i - 1, "::")) {
      const std::string_view q = text_of(i - 2);
      return q == "wmma" || std::find(aliases_.begin(), aliases_.end(), q) != aliases_.end();
    }
    return using_wmma_ && !(i >= 1 && (is(i - 1, ".") || is(i - 1, "->")));
  }

  void collect_constants() {
    for (std::size_t i = 0; i + 3 < tokens_.size(); ++i) {
      if (tokens_[i].kind == token_kind::directive_hash && is(i + 1, "define") && is_ident(i + 2) &&
          tokens_[i + 3].kind == token_kind::number && i + 4 < tokens_.size() &&
          tokens_[i + 4].kind == token_kind::directive_end) {
        if (const auto v = integer(text_of(i + 3))) constants_[std::string(text_of(i + 2))] = *v;
      }
      if ((is(i, "const") || is(i, "constexpr")) && i + 4 < tokens_.size()) {
        std::size_t k = i + 1;
        while (is(k, "static") || is(k, "int") || is(k, "unsigned") || is(k, "long") || is(k, "constexpr") ||
               is(k, "const") || is(k, "size_t") || is(k, "uint32_t") || is(k, "int32_t")) {
          ++k;
        }
        if (k > i + 1 && is_ident(k) && is(k + 1, "=") && k + 2 < tokens_.size() &&
            tokens_[k + 2].kind == token_kind::number && is(k + 3, ";")) {
          if (const auto v = integer(text_of(k + 2))) constants_[std::string(text_of(k))] = *v;
        }
      }
      if (is(i, "using") && is(i + 1, "namespace") && is(i + 2, "nvcuda") && is(i + 3, "::") && is(i + 4, "wmma")) {
        using_wmma_ = true;
      }
      if (is(i, "namespace") && is_ident(i + 1) && is(i + 2, "=") && is(i + 3, "nvcuda")) {
        aliases_.emplace_back(text_of(i + 1));
      }
    }
  }

  std::optional<long> value(std::string_view arg) const {
    const std::string s = squeeze(arg);
    if (const auto v = integer(s)) return v;
    if (auto it = constants_.find(s); it != constants_.end()) return it->second;
    return std::nullopt;
  }

  void check_fragment(std::size_t i) {
    if (first_ == nullptr) first_ = &tokens_[i];
    std::vector<std::string_view> args;
    std::size_t arg_begin = tokens_[i + 1].end;
    int depth = 0;
    std::size_t close = i + 1;
    for (; close < tokens_.size(); ++close) {
      const std::string_view p = text_of(close);
      if (p == "<" || p == "(") ++depth;
      if ((p == ">" || p == ")") && --depth == 0) break;
      if (p == "," && depth == 1) {
        args.push_back(text_.substr(arg_begin, tokens_[close].begin - arg_begin));
        arg_begin = tokens_[close].end;
      }
    }
    if (close >= tokens_.size()) return;
    args.push_back(text_.substr(arg_begin, tokens_[close].begin - arg_begin));
    const std::string spelled =
        "fragment<" + squeeze(text_.substr(tokens_[i + 1].end, tokens_[close].begin - tokens_[i + 1].end)) + ">";
    if (args.size() < 5) {
      block(i, spelled, "a wmma fragment has at least five template arguments (use, M, N, K, type)");
      return;
    }
    const std::string use(unqualified(squeeze(args[0])));
    const std::string type(unqualified(squeeze(args[4])));
    const auto m = value(args[1]), n = value(args[2]), k = value(args[3]);
    if (!m || !n || !k) {
      block(i, spelled,
            "the shape is not made of integer literals or constants of this file, so the port cannot tell whether "
            "rocWMMA supports it");
      return;
    }
    const std::string shape = "m" + std::to_string(*m) + "n" + std::to_string(*n) + "k" + std::to_string(*k);
    if (*m != 16 || *n != 16 || *k != 16) {
      block(i, spelled,
            shape +
                " has no rocWMMA block that computes the same tile on gfx90a/gfx942/gfx950 (BlockM and BlockN "
                "are 16 or 32, and only m16n16k16 is CUDA's shape too)");
      return;
    }
    const bool half = type == "half" || type == "__half";
    if (type == "__nv_bfloat16" || type == "nv_bfloat16" || type == "__hip_bfloat16") {
      block(i, spelled,
            "bf16 fragments: rocWMMA's bfloat16_t is hip_bfloat16, a different type from __hip_bfloat16 (the "
            "port of __nv_bfloat16), so loads from the kernel's bf16 arrays do not type-check");
    } else if (use == "accumulator" ? !(half || type == "float") : !half) {
      block(i, spelled,
            "the element type " + type +
                " is not ported (only half inputs with float or half accumulators are "
                "supported alike on gfx90a, gfx942 and gfx950)");
    }
  }

  void block(std::size_t i, const std::string& what, const std::string& why) {
    ++left_;
    sdk::converter::diagnostic d;
    d.file = std::string(path_);
    d.line = tokens_[i].line;
    d.column = tokens_[i].column;
    d.severity = "error";
    d.category = "manual_port";
    d.name = "nvcuda::wmma";
    d.message =
        "nvcuda::wmma " + what + " is not ported to rocWMMA: " + why + "; the file's wmma code is left as it was";
    d.hint =
        "port the tile by hand to rocWMMA's m16n16k16 half/float fragments (or 32x32 blocks), to "
        "__builtin_amdgcn_mfma_* builtins, or to Composable Kernel; then check the rocWMMA support table for "
        "the target gfx";
    out_.diagnostics.push_back(std::move(d));
  }

  void replace(std::size_t begin, std::size_t end, std::string_view with) {
    out_.text.append(text_.substr(copied_, begin - copied_));
    out_.text.append(with);
    copied_ = end;
  }

  void rewrite() {
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      const token& t = tokens_[i];
      if (t.kind == token_kind::header_name) {
        const std::string_view h = text_of(i);
        if (h.substr(1, h.size() - 2) == "mma.h") {
          replace(t.begin, t.end, std::string(1, h.front()) + "rocwmma/rocwmma.hpp" + h.back());
          ++ported_;
        }
        continue;
      }
      if (is(i, "using") && is(i + 1, "namespace") && is(i + 2, "nvcuda")) {
        if (is(i + 3, ";")) {
          replace(t.begin, tokens_[i + 3].end, "namespace wmma = rocwmma;");
          i += 3;
        } else if (is(i + 3, "::") && is(i + 4, "wmma")) {
          replace(tokens_[i + 2].begin, tokens_[i + 4].end, "rocwmma");
          i += 4;
        }
        ++ported_;
        continue;
      }
      if (is(i, "nvcuda") && is(i + 1, "::") && is(i + 2, "wmma")) {
        replace(t.begin, tokens_[i + 2].end, "rocwmma");
        i += 2;
        ++ported_;
        continue;
      }
      if (is(i, "wmma") && is(i + 1, "::") && !(i >= 1 && is(i - 1, "::"))) {
        replace(t.begin, t.end, "rocwmma");
        ++ported_;
      }
    }
  }

  std::string_view path_;
  std::string_view text_;
  std::vector<token> tokens_;
  std::map<std::string, long, std::less<>> constants_;
  std::vector<std::string> aliases_;
  bool using_wmma_ = false;
  const token* first_ = nullptr;
  idiom_port out_;
  std::size_t copied_ = 0;
  std::int64_t ported_ = 0, left_ = 0;
};

}  // namespace

idiom_port port_wmma(std::string_view path, std::string_view text) {
  return wmma_porter(path, text).run();
}

}  // namespace r2r::plugins::converter
