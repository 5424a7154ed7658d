// SPDX-License-Identifier: MIT
// port_cooperative_groups: two lexer passes over the text. The first finds the cooperative_groups
// namespace aliases and the tile declarations (name, literal size, position); the second rewrites
// votes and reductions whose receiver is the latest declaration of that name before the use.
// Scopes are not modelled: a name re-declared later with another size takes the later size from
// its declaration on, which is how sequential kernels in one file reuse `warp` or `tile`.
#include <r2r/convert/cg_idioms.hpp>
#include <r2r/convert/lexer.hpp>

#include "text_search.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>

namespace r2r::plugins::converter {
namespace {

constexpr std::string_view helper_block =
    "#ifndef R2R_CG_IDIOMS_H\n"
    "#define R2R_CG_IDIOMS_H  // added by repo2rocm port: cooperative-groups votes and reduce with CUDA's semantics\n"
    "#include <hip/hip_runtime.h>\n"
    "#include <hip/hip_cooperative_groups.h>\n"
    "// The N ballot bits of this lane's N-lane tile: tiles are aligned lane segments of the wavefront.\n"
    "template <unsigned N, class G> __device__ static inline unsigned r2r_tile_ballot(const G&, int p) {\n"
    "  static_assert(N >= 1u && N <= 32u && (N & (N - 1u)) == 0u, \"a CUDA tile is a power of two of at most 32\");\n"
    "  const unsigned long long b = static_cast<unsigned long long>(__ballot(p)) >> (__lane_id() & ~(N - 1u) & 63u);\n"
    "  return static_cast<unsigned>(b & ((1ull << N) - 1ull));\n"
    "}\n"
    "template <unsigned N, class G> __device__ static inline int r2r_tile_any(const G& g, int p) {\n"
    "  return r2r_tile_ballot<N>(g, p) != 0u;\n"
    "}\n"
    "template <unsigned N, class G> __device__ static inline int r2r_tile_all(const G& g, int p) {\n"
    "  return r2r_tile_ballot<N>(g, p) == r2r_tile_ballot<N>(g, 1);\n"
    "}\n"
    "// cooperative_groups::reduce over a thread_block_tile: a shfl_xor butterfly, every lane gets the result.\n"
    "template <class G, class T, class Op> __device__ static inline T r2r_cg_reduce(const G& g, T v, Op op) {\n"
    "  for (unsigned o = 1; o < g.size(); o <<= 1) v = op(v, g.shfl_xor(v, o));\n"
    "  return v;\n"
    "}\n"
    "template <class T> struct r2r_cg_plus { __device__ T operator()(T a, T b) const { return a + b; } };\n"
    "template <class T> struct r2r_cg_less { __device__ T operator()(T a, T b) const { return b < a ? b : a; } };\n"
    "template <class T> struct r2r_cg_greater { __device__ T operator()(T a, T b) const { return a < b ? b : a; } };\n"
    "template <class T> struct r2r_cg_bit_and { __device__ T operator()(T a, T b) const { return a & b; } };\n"
    "template <class T> struct r2r_cg_bit_or { __device__ T operator()(T a, T b) const { return a | b; } };\n"
    "template <class T> struct r2r_cg_bit_xor { __device__ T operator()(T a, T b) const { return a ^ b; } };\n"
    "#endif  // R2R_CG_IDIOMS_H\n";

constexpr std::array<std::string_view, 6> reduce_ops{"plus", "less", "greater", "bit_and", "bit_or", "bit_xor"};
constexpr std::array<std::string_view, 4> left_calls{"reduce_update_async", "reduce_store_async", "inclusive_scan",
                                                     "exclusive_scan"};

struct tile_decl {
  std::size_t at;  // token index of the declared name
  std::string name;
  unsigned size;  // 0: not a literal (template parameter, coalesced or generic group)
};

class cg_porter {
 public:
  cg_porter(std::string_view path, std::string_view text) : path_(path), text_(text) {}

  idiom_port run() {
    // Every idiom this pass ports names one of these: most files are returned after a few scans,
    // each jumping between one rare byte of its marker ('g', 'k', 'p', 'g': under 1 % of CUDA text).
    constexpr std::array<std::pair<std::string_view, std::size_t>, 4> markers{
        {{"cooperative_groups", 12}, {"thread_block_tile", 11}, {"tiled_partition", 6}, {"coalesced_group", 10}}};
    if (std::none_of(markers.begin(), markers.end(),
                     [&](const auto& m) { return contains_at_rare(text_, m.first, m.second); })) {
      out_.text = std::string(text_);
      out_.stats["idioms_ported"] = 0;
      out_.stats["idioms_left"] = 0;
      return std::move(out_);
    }
    lexer lx(text_);
    for (token t = lx.next(); t.kind != token_kind::end_of_file; t = lx.next()) {
      if (t.kind == token_kind::error) {
        out_.text = std::string(text_);
        return std::move(out_);
      }
      if (t.kind != token_kind::comment && !t.in_skipped_block) tokens_.push_back(t);
    }
    collect();
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      const token& t = tokens_[i];
      if (t.kind == token_kind::header_name) {
        on_include(t);
      } else if (t.kind == token_kind::identifier) {
        on_identifier(i);
      }
    }
    out_.text.append(text_.substr(copied_));
    out_.stats["idioms_ported"] = ported_;
    out_.stats["idioms_left"] = left_;
    return std::move(out_);
  }

 private:
  std::string_view text_of(std::size_t k) const {
    return k < tokens_.size() ? text_.substr(tokens_[k].begin, tokens_[k].end - tokens_[k].begin) : std::string_view();
  }
  bool is(std::size_t k, std::string_view s) const { return k < tokens_.size() && text_of(k) == s; }
  bool is_ident(std::size_t k) const { return k < tokens_.size() && tokens_[k].kind == token_kind::identifier; }
  bool is_cg_namespace(std::string_view name) const {
    return name == "cooperative_groups" || std::find(aliases_.begin(), aliases_.end(), name) != aliases_.end();
  }

  /// Aliases, `using namespace cooperative_groups`, and every tile declaration.
  void collect() {
    for (std::size_t i = 0; i + 3 < tokens_.size(); ++i) {
      if (is(i, "namespace") && is_ident(i + 1) && is(i + 2, "=")) {
        std::size_t k = i + 3;
        if (is(k, "::")) ++k;
        if (is(k, "cooperative_groups")) aliases_.emplace_back(text_of(i + 1));
      }
      if (is(i, "using") && is(i + 1, "namespace") &&
          (is_cg_namespace(text_of(i + 2)) || is(i + 3, "cooperative_groups"))) {
        using_namespace_ = true;
      }
    }
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      if (!is_ident(i)) continue;
      const std::string_view name = text_of(i);
      if ((name == "coalesced_group" || name == "thread_group") && is_ident(i + 1)) {
        declare(i + 1, 0);
        continue;
      }
      if ((name != "thread_block_tile" && name != "tiled_partition") || !is(i + 1, "<")) continue;
      std::size_t close = i + 1;
      for (int depth = 0; close < tokens_.size(); ++close) {
        if (is(close, "<")) ++depth;
        if (is(close, ">") && --depth == 0) break;
        if (is(close, ">>") || is(close, ";") || is(close, "{")) break;
      }
      if (close >= tokens_.size() || !is(close, ">")) continue;
      const unsigned size = literal_size(i + 2, close);
      if (name == "thread_block_tile") {
        std::size_t k = close + 1;
        while (is(k, "const") || is(k, "&") || is(k, "&&") || is(k, "volatile")) ++k;
        if (is_ident(k) && !is(k + 1, "(") && !is(k + 1, "::")) declare(k, size);
      } else {
        std::size_t k = i;  // back over the qualifier: cg::, ::cooperative_groups::
        while (k >= 2 && is(k - 1, "::") && is_ident(k - 2) && is_cg_namespace(text_of(k - 2))) k -= 2;
        if (k >= 1 && is(k - 1, "::")) --k;
        if (k >= 2 && is(k - 1, "=") && is_ident(k - 2)) declare(k - 2, size);
      }
    }
  }

  /// The tile size of template arguments [first, close): a plain integer literal, else 0.
  unsigned literal_size(std::size_t first, std::size_t close) const {
    if (close != first + 1 && !(close > first + 1 && is(first + 1, ","))) return 0;
    if (tokens_[first].kind != token_kind::number) return 0;
    std::string digits(text_of(first));
    while (!digits.empty() &&
           (digits.back() == 'u' || digits.back() == 'U' || digits.back() == 'l' || digits.back() == 'L')) {
      digits.pop_back();
    }
    char* end = nullptr;
    const unsigned long v = std::strtoul(digits.c_str(), &end, 0);
    if (end == nullptr || *end != '\0' || v == 0 || v > 1024) return 0;
    return static_cast<unsigned>(v);
  }

  void declare(std::size_t at, unsigned size) { decls_.push_back({at, std::string(text_of(at)), size}); }

  const tile_decl* lookup(std::string_view name, std::size_t at) const {
    const tile_decl* found = nullptr;
    for (const auto& d : decls_) {
      if (d.at <= at && d.name == name) found = &d;
    }
    return found;
  }

  /// The token index where `name` at i starts with its cooperative_groups qualifier, or i when it
  /// is unqualified under `using namespace cooperative_groups`; tokens_.size() when neither.
  std::size_t cg_qualified(std::size_t i) const {
    if (i >= 2 && is(i - 1, "::") && is_ident(i - 2) && is_cg_namespace(text_of(i - 2))) {
      return i >= 3 && is(i - 3, "::") ? i - 3 : i - 2;
    }
    const bool member = i >= 1 && (is(i - 1, ".") || is(i - 1, "->") || is(i - 1, "::"));
    return using_namespace_ && !member ? i : tokens_.size();
  }

  void replace(std::size_t begin, std::size_t end, std::string_view with) {
    out_.text.append(text_.substr(copied_, begin - copied_));
    out_.text.append(with);
    copied_ = end;
  }

  void diag(const token& t, const char* severity, const char* category, std::string_view name, std::string message,
            std::string hint) {
    sdk::converter::diagnostic d;
    d.file = std::string(path_);
    d.line = t.line;
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

  void left(const token& t, std::string_view name, std::string message, std::string hint) {
    ++left_;
    diag(t, "error", "manual_port", name, std::move(message), std::move(hint));
  }

  void on_include(const token& h) {
    const std::string_view spelled = text_.substr(h.begin, h.end - h.begin);
    const std::string_view inner = spelled.substr(1, spelled.size() - 2);
    if (inner == "cooperative_groups/reduce.h") {
      replace(h.begin, h.end, std::string(1, spelled.front()) + "hip/hip_cooperative_groups.h" + spelled.back());
      ported(h, inner, "cooperative_groups/reduce.h -> hip/hip_cooperative_groups.h (reduce by r2r_cg_reduce)");
    } else if (inner == "cooperative_groups/scan.h" || inner == "cooperative_groups/memcpy_async.h") {
      left(h, inner,
           "<" + std::string(inner) +
               "> has no HIP counterpart (HIP's cooperative groups have no scans "
               "or asynchronous copies)",
           "write the scan as a shfl_up loop over the tile (tile.shfl_up(v, d) for d = 1, 2, 4, ...), and the "
           "asynchronous copy as a load and a store followed by tile.sync()/__syncthreads()");
    }
  }

  void on_identifier(std::size_t i) {
    const std::string_view name = text_of(i);
    // tiled_partition<N>(tile): HIP only partitions a thread_block statically; an aligned N-lane
    // sub-tile of an aligned tile is the same lanes as the N-lane tile of the block.
    if (name == "tiled_partition" && is(i + 1, "<") && is(i + 3, ">") && is(i + 4, "(") && is_ident(i + 5) &&
        is(i + 6, ")")) {
      const tile_decl* parent = lookup(text_of(i + 5), i);
      if (parent != nullptr && parent->size > 0 && parent->size <= 32) {
        replace(tokens_[i + 5].begin, tokens_[i + 5].end, "cooperative_groups::this_thread_block()");
        ++ported_;
        diag(tokens_[i], "warning", "ported", name,
             "ported: tiled_partition<" + std::string(text_of(i + 2)) + ">(" + std::string(text_of(i + 5)) +
                 ") -> tiled_partition of this_thread_block() (HIP partitions only a thread_block statically); the "
                 "same lanes and thread_rank(), but meta_group_rank()/meta_group_size() count tiles of the block",
             "if the code reads meta_group_rank() of this tile, use thread_rank() / N of the parent instead");
      }
      return;
    }
    // V.ballot(p), V.any(p), V.all(p), V.match_any(x), V.match_all(x, pred)
    if (is(i + 1, ".") && is_ident(i + 2) && is(i + 3, "(")) {
      const std::string_view member = text_of(i + 2);
      const bool vote = member == "ballot" || member == "any" || member == "all";
      if (!vote && member != "match_any" && member != "match_all") return;
      if (is(i + 4, ")")) return;  // no predicate: not a CUDA tile vote
      const tile_decl* d = lookup(name, i);
      if (d == nullptr) return;
      if (!vote) {
        left(tokens_[i], member, std::string(name) + "." + std::string(member) + " compares values across the tile",
             "rewrite with a ballot per distinct value (r2r_tile_ballot<N>(x == v)) or with shuffles; HIP's "
             "match_* need HIP_ENABLE_WARP_SYNC_BUILTINS and return 64-bit masks");
        return;
      }
      if (d->size == 0 || d->size > 32) {
        left(tokens_[i], member,
             std::string(name) + "." + std::string(member) + " on a group whose size the port cannot read (" +
                 (d->size == 0 ? std::string("not a literal tile size") : "a tile of " + std::to_string(d->size)) + ")",
             "declare the tile as thread_block_tile<N> with a literal N <= 32 and port again, or replace the vote "
             "by r2r_tile_ballot<N>(p) (the tile's N bits) by hand");
        return;
      }
      const std::string helper = "r2r_tile_" + std::string(member) + "<" + std::to_string(d->size) + ">";
      replace(tokens_[i].begin, tokens_[i + 3].end, helper + "(" + std::string(name) + ", ");
      out_.needs_helpers = true;
      ported(tokens_[i], member,
             std::string(name) + "." + std::string(member) + " -> " + helper + " (the " + std::to_string(d->size) +
                 " bits of the lane's tile)");
      return;
    }
    if (name != "reduce" && std::find(reduce_ops.begin(), reduce_ops.end(), name) == reduce_ops.end() &&
        std::find(left_calls.begin(), left_calls.end(), name) == left_calls.end()) {
      return;
    }
    const std::size_t q = cg_qualified(i);
    if (q == tokens_.size()) return;
    if (std::find(left_calls.begin(), left_calls.end(), name) != left_calls.end()) {
      if (!is(i + 1, "(")) return;
      left(tokens_[i], name, "cooperative_groups::" + std::string(name) + " has no HIP counterpart",
           name.find("scan") != std::string_view::npos
               ? "write the scan as a shfl_up loop over the tile (tile.shfl_up(v, d) for d = 1, 2, 4, ...)"
               : "reduce with cg::reduce (ported to r2r_cg_reduce), then let one lane apply the result with an "
                 "atomic or a store");
      return;
    }
    if (name != "reduce") {
      if (!is(i + 1, "<")) return;
      replace(tokens_[q].begin, tokens_[i].end, "r2r_cg_" + std::string(name));
      out_.needs_helpers = true;
      ported(tokens_[i], name, "cooperative_groups::" + std::string(name) + " -> r2r_cg_" + std::string(name));
      return;
    }
    if (!is(i + 1, "(")) return;
    const bool one_name = is_ident(i + 2) && is(i + 3, ",");
    const tile_decl* d = one_name ? lookup(text_of(i + 2), i) : nullptr;
    if (q == i && d == nullptr) return;  // an unqualified reduce( on no group may be the file's own function
    if (d == nullptr || d->size == 0 || d->size > 32) {
      left(tokens_[i], name,
           "cooperative_groups::reduce over " +
               (one_name ? "`" + std::string(text_of(i + 2)) + "`" : std::string("an expression")) +
               ", which is not a thread_block_tile with a literal size of at most 32 (HIP has no reduce)",
           "reduce over a thread_block_tile<N> variable (N <= 32) so the port can use a butterfly over its N "
           "lanes, or write the shfl_xor loop by hand");
      return;
    }
    replace(tokens_[q].begin, tokens_[i].end, "r2r_cg_reduce");
    out_.needs_helpers = true;
    ported(tokens_[i], name,
           "cooperative_groups::reduce -> r2r_cg_reduce (shfl_xor butterfly over the " + std::to_string(d->size) +
               "-lane tile)");
  }

  std::string_view path_;
  std::string_view text_;
  std::vector<token> tokens_;
  std::vector<std::string> aliases_;
  bool using_namespace_ = false;
  std::vector<tile_decl> decls_;
  idiom_port out_;
  std::size_t copied_ = 0;
  std::int64_t ported_ = 0, left_ = 0;
};

}  // namespace

idiom_port port_cooperative_groups(std::string_view path, std::string_view text) {
  return cg_porter(path, text).run();
}

std::string_view cg_helpers_block() {
  return helper_block;
}

}  // namespace r2r::plugins::converter
