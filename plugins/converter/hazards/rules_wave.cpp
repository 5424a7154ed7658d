// SPDX-License-Identifier: MIT
// Wave-size rules: code that assumes 32 lanes per warp (constants, lane arithmetic, reductions,
// masks, ballots, *_sync intrinsics, __activemask, __syncwarp, cooperative-group tiles).
#include "scan_context.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace r2r::plugins::converter {
namespace {

using plugins::converter::token_kind;

constexpr std::array<std::string_view, 16> sync_intrinsics = {
    "__shfl_sync",       "__shfl_up_sync",    "__shfl_down_sync",  "__shfl_xor_sync",
    "__ballot_sync",     "__any_sync",        "__all_sync",        "__uni_sync",
    "__match_any_sync",  "__match_all_sync",  "__reduce_add_sync", "__reduce_min_sync",
    "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync",  "__reduce_xor_sync"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// A name that stands for the warp size: WARP_SIZE, kWarpSize, warp_sz, THREADS_PER_WARP.
bool warp_size_name(std::string_view name) {
  const std::string l = lower(name);
  if (l.find("warp") == std::string::npos) return false;
  // A count of warps (NUM_WARPS, warps_per_block) is not the warp size; "warpsize"/"warpsz" is.
  for (std::size_t at = l.find("warps"); at != std::string::npos; at = l.find("warps", at + 1)) {
    if (l.compare(at, 8, "warpsize") != 0 && l.compare(at, 6, "warpsz") != 0) return false;
  }
  return true;
}

/// Identifiers that mark a line as thread/lane index arithmetic.
bool lane_context_name(std::string_view name) {
  if (name == "threadIdx" || name == "blockDim" || name == "hipThreadIdx_x" || name == "hipBlockDim_x" ||
      name == "tid" || name == "wid")
    return true;
  const std::string l = lower(name);
  return l.find("lane") != std::string::npos || l.find("warp") != std::string::npos;
}

bool same_line_has_lane_context(const scan_context& ctx, std::size_t i) {
  const std::int64_t line = ctx.at(i).line;
  for (std::size_t k = i; k > 0 && ctx.at(k - 1).line == line; --k) {
    if (ctx.is_ident(k - 1) && lane_context_name(ctx.at(k - 1).text)) return true;
  }
  for (std::size_t k = i + 1; k < ctx.size() && ctx.at(k).line == line; ++k) {
    if (ctx.is_ident(k) && lane_context_name(ctx.at(k).text)) return true;
  }
  return false;
}

bool glued(const scan_context& ctx, std::size_t a, std::size_t b) {
  return ctx.at(b).begin == ctx.at(a).begin + ctx.at(a).text.size();
}

void lane_arithmetic(scan_context& ctx, std::size_t i) {
  const std::string_view op = ctx.at(i).text;
  std::size_t value = i + 1;
  std::string spelled(op);
  if (op == ">") {
    // `>> 5` arrives as two glued '>' tokens (possibly `>>= 5`).
    if (!ctx.is(i + 1, ">") || !glued(ctx, i, i + 1) || (i > 0 && ctx.is(i - 1, ">") && glued(ctx, i - 1, i))) return;
    value = i + 2;
    spelled = ">>";
    if (ctx.is(value, "=") && glued(ctx, i + 1, value)) ++value, spelled = ">>=";
  } else if (op == "&") {
    if (ctx.is(i + 1, "&") || (i > 0 && ctx.is(i - 1, "&"))) return;  // &&
  } else if ((op == "/" || op == "%") && ctx.is(i + 1, "=") && glued(ctx, i, i + 1)) {
    value = i + 2;
    spelled += "=";
  }
  const auto v = ctx.integer(value);
  if (!v) return;
  const bool hit =
      (op == "&" && *v == 31) || (op == "%" && *v == 32) || (op == "/" && *v == 32) || (op == ">" && *v == 5);
  if (!hit || !same_line_has_lane_context(ctx, i)) return;
  ctx.report("lane-mask-arith", i,
             "lane or warp index computed with `" + spelled + " " + std::string(ctx.at(value).text) +
                 "`, which assumes 32 lanes per warp");
}

void warp_size_constant(scan_context& ctx, std::size_t i) {
  const std::string_view name = ctx.at(i).text;
  if (!warp_size_name(name)) return;
  // #define WARP_SIZE 32
  if (i >= 2 && ctx.at(i - 2).kind == token_kind::directive_hash && ctx.is(i - 1, "define")) {
    std::size_t end = i + 1;
    while (end < ctx.size() && ctx.at(end).kind != token_kind::directive_end) ++end;
    if (ctx.evaluate(i + 1, end) == 32) {
      ctx.report("wave32-constant", i, "`#define " + std::string(name) + " 32` hard-codes a 32-lane warp");
    }
    return;
  }
  // [const|constexpr] int kWarpSize = 32;  and  NAME{32}
  std::size_t begin = 0;
  std::size_t end = 0;
  if (ctx.is(i + 1, "=")) {
    begin = i + 2;
    end = begin;
    while (end < ctx.size() && !ctx.is(end, ";") && !ctx.is(end, ",") && !ctx.is(end, ")")) ++end;
  } else if (ctx.is(i + 1, "{")) {
    begin = i + 2;
    end = ctx.matching(i + 1);
  }
  if (begin == 0 || end == std::string_view::npos || end <= begin) return;
  if (ctx.evaluate(begin, end) == 32) {
    ctx.report("wave32-constant", i, "`" + std::string(name) + "` is set to 32, a 32-lane warp");
  }
}

/// `#define FULL_MASK 0xffffffff` or `const unsigned kMask = 0xffffffffu;`: a 32-lane full mask.
void mask_definition(scan_context& ctx, std::size_t i) {
  const std::string_view name = ctx.at(i).text;
  if (lower(name).find("mask") == std::string::npos) return;
  std::size_t begin = 0;
  std::size_t end = 0;
  if (i >= 2 && ctx.at(i - 2).kind == token_kind::directive_hash && ctx.is(i - 1, "define")) {
    begin = i + 1;
    end = begin;
    while (end < ctx.size() && ctx.at(end).kind != token_kind::directive_end) ++end;
  } else if (ctx.is(i + 1, "=")) {
    begin = i + 2;
    end = begin;
    while (end < ctx.size() && !ctx.is(end, ";") && !ctx.is(end, ",") && !ctx.is(end, ")")) ++end;
  }
  if (begin == 0 || end <= begin) return;
  if (ctx.evaluate(begin, end).value_or(0) == 0xffffffffLL) {
    ctx.report("full-mask-32", i, "`" + std::string(name) + "` is the 32-lane full mask 0xffffffff");
  }
}

void sync_intrinsic(scan_context& ctx, std::size_t i) {
  const std::string_view name = ctx.at(i).text;
  if (std::find(sync_intrinsics.begin(), sync_intrinsics.end(), name) == sync_intrinsics.end()) return;
  if (!ctx.is(i + 1, "(")) return;
  const std::size_t close = ctx.matching(i + 1);
  const auto args = ctx.arguments(i + 1, close);
  std::string mask = args.empty() ? std::string("?") : ctx.spelled(args[0].first, args[0].second);
  const std::int64_t value = args.empty() ? 0 : ctx.evaluate(args[0].first, args[0].second).value_or(0);
  std::string message = "`" + std::string(name) + "(" + mask + ", ...)` uses a 32-bit lane mask";
  if (value == 0xffffffffLL || value == -1) {
    message += " (0xffffffff: all 32 lanes of a warp, half of a CDNA wavefront)";
    ctx.report("full-mask-32", i, "full 32-lane mask `" + mask + "` passed to " + std::string(name));
  }
  ctx.report("warp-sync-intrinsic", i, message);
}

void ballot_width(scan_context& ctx, std::size_t i) {
  const std::string_view name = ctx.at(i).text;
  if ((name != "__ballot_sync" && name != "__ballot" && name != "__activemask") || !ctx.is(i + 1, "(")) return;
  static constexpr std::array<std::string_view, 6> narrow = {"unsigned", "int",     "uint32_t",
                                                             "uint",     "int32_t", "unsigned int"};
  const auto is_narrow = [&](std::size_t k) {
    return std::find(narrow.begin(), narrow.end(), ctx.at(k).text) != narrow.end();
  };
  // unsigned int b = __ballot_sync(...);
  if (i >= 3 && ctx.is(i - 1, "=") && ctx.is_ident(i - 2) && is_narrow(i - 3) && !(i >= 4 && ctx.is(i - 4, "long"))) {
    ctx.report("ballot-32bit", i,
               "the result of " + std::string(name) + " is stored in 32-bit `" + std::string(ctx.at(i - 3).text) + " " +
                   std::string(ctx.at(i - 2).text) + "`");
    return;
  }
  // __popc(__ballot_sync(...)) or (unsigned)__ballot(...)
  if (i >= 2 && ctx.is(i - 1, "(") && (ctx.is(i - 2, "__popc") || ctx.is(i - 2, "__ffs"))) {
    ctx.report("ballot-32bit", i,
               "the result of " + std::string(name) + " is passed to the 32-bit " + std::string(ctx.at(i - 2).text));
    return;
  }
  if (i >= 3 && ctx.is(i - 1, ")") && is_narrow(i - 2) && ctx.is(i - 3, "(")) {
    ctx.report("ballot-32bit", i,
               "the result of " + std::string(name) + " is cast to 32-bit `" + std::string(ctx.at(i - 2).text) + "`");
  }
}

void reduction_loop(scan_context& ctx, std::size_t i) {
  if (!ctx.is(i, "for") || !ctx.is(i + 1, "(")) return;
  const std::size_t close = ctx.matching(i + 1);
  if (close == std::string_view::npos) return;
  bool from_16 = false;
  bool below_32 = false;
  for (std::size_t k = i + 2; k + 1 < close; ++k) {
    if (ctx.is(k, "=") && ctx.integer(k + 1) == 16u && k >= 1 && ctx.is_ident(k - 1)) from_16 = true;
    if (ctx.is(k, "<") && ctx.integer(k + 1) == 32u) below_32 = true;
  }
  if (!from_16 && !below_32) return;
  std::size_t body_end = close + 1;
  if (ctx.is(close + 1, "{")) {
    body_end = ctx.matching(close + 1);
  } else {
    while (body_end < ctx.size() && !ctx.is(body_end, ";")) ++body_end;
  }
  if (body_end == std::string_view::npos) return;
  for (std::size_t k = close + 1; k < body_end && k < ctx.size(); ++k) {
    if (ctx.is_ident(k) && ctx.at(k).text.substr(0, 6) == "__shfl") {
      ctx.report("reduction-from-16", i,
                 std::string("shuffle loop `") + std::string(ctx.source(i, close)) + "` " +
                     (from_16 ? "starts at offset 16" : "stops below 32") + ": it reduces over 32 lanes only");
      return;
    }
  }
}

void cooperative_tiles(scan_context& ctx, std::size_t i) {
  const std::string_view name = ctx.at(i).text;
  if ((name == "binary_partition" || name == "labeled_partition") && ctx.is(i + 1, "(")) {
    ctx.report("cg-partition", i, std::string(name) + "() has no HIP counterpart");
    return;
  }
  if (name == "coalesced_threads" && ctx.is(i + 1, "(")) {
    ctx.report("coalesced-threads", i, "coalesced_threads() builds a group from the warp's active-lane mask");
    return;
  }
  if ((name != "tiled_partition" && name != "thread_block_tile") || !ctx.is(i + 1, "<")) return;
  const std::size_t close = ctx.matching(i + 1);
  if (close == std::string_view::npos) return;
  const auto args = ctx.arguments(i + 1, close);
  if (args.empty()) return;
  const auto size = ctx.evaluate(args[0].first, args[0].second);
  if (!size) return;
  const std::string spelled = std::string(name) + "<" + ctx.spelled(args[0].first, args[0].second) + ">";
  if (*size > 64) {
    ctx.report("cg-tile", i,
               spelled + " asks for a tile of " + std::to_string(*size) + " threads, more than a wavefront");
  } else if (*size == 64) {
    ctx.report("cg-tile", i, spelled + " is a whole CDNA wavefront but two RDNA (wave32) wavefronts");
  } else if (*size == 32) {
    ctx.report("cg-tile-32", i, spelled + " is half a CDNA wavefront");
  }
}

}  // namespace

void scan_wave_rules(scan_context& ctx) {
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    const auto& t = ctx.at(i);
    if (t.kind == token_kind::punct) {
      if (t.text == "&" || t.text == "%" || t.text == "/" || t.text == ">") lane_arithmetic(ctx, i);
      continue;
    }
    if (t.kind != token_kind::identifier) continue;
    // Cheap dispatch first: most identifiers concern no rule.
    const std::string_view name = t.text;
    const bool defined = i >= 2 && ctx.at(i - 2).kind == token_kind::directive_hash && ctx.is(i - 1, "define");
    if (defined || ctx.is(i + 1, "=") || ctx.is(i + 1, "{")) {
      warp_size_constant(ctx, i);
      mask_definition(ctx, i);
    }
    if (name.size() > 2 && name[0] == '_' && name[1] == '_') {
      sync_intrinsic(ctx, i);
      ballot_width(ctx, i);
      if (name == "__activemask") ctx.report("activemask", i, "__activemask() returns the warp's active lanes");
      if (name == "__syncwarp") ctx.report("syncwarp", i, "__syncwarp() synchronises the lanes of a warp");
    } else if (name == "for") {
      reduction_loop(ctx, i);
    } else if (name == "tiled_partition" || name == "thread_block_tile" || name == "coalesced_threads" ||
               name == "binary_partition" || name == "labeled_partition") {
      cooperative_tiles(ctx, i);
    }
  }
}

}  // namespace r2r::plugins::converter
