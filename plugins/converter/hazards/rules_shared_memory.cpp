// SPDX-License-Identifier: MIT
// Shared memory (LDS) above 64 KiB per block: static __shared__ arrays summed per function body,
// dynamic limits raised with cudaFuncSetAttribute/hipFuncSetAttribute, and launch configurations.
#include "scan_context.hpp"

#include <vector>

namespace r2r::plugins::converter {
namespace {

using plugins::converter::token_kind;

constexpr std::int64_t lds_limit = 64 * 1024;

std::string kib(std::int64_t bytes) {
  const std::int64_t whole = bytes / 1024;
  const std::int64_t rest = bytes % 1024;
  return std::to_string(bytes) + " bytes (" + std::to_string(whole) + (rest ? "+" : "") + " KiB)";
}

/// What kind of block a '{' opens, judged from the tokens since the previous statement.
enum class block { scope, type, function };

block classify_brace(const scan_context& ctx, std::size_t open) {
  for (std::size_t k = open; k > 0; --k) {
    const std::size_t i = k - 1;
    if (ctx.is(i, ";") || ctx.is(i, "}") || ctx.is(i, "{") || ctx.at(i).kind == token_kind::directive_end) break;
    const std::string_view w = ctx.at(i).text;
    if (w == "namespace" || (w == "extern" && ctx.at(i + 1).kind == token_kind::string_literal)) return block::scope;
    if (w == "struct" || w == "class" || w == "union" || w == "enum") return block::type;
  }
  return block::function;
}

struct function_state {
  std::size_t depth = 0;  // brace depth of the body
  std::int64_t bytes = 0;
  std::size_t first_decl = 0;
  int declarations = 0;
  bool reported = false;
};

/// Bytes of the static __shared__ declaration at `at`, or nullopt (extern/dynamic, or unknown).
std::optional<std::int64_t> shared_bytes(scan_context& ctx, std::size_t at, std::string& spelled) {
  for (std::size_t back = 1; back <= 3 && back <= at; ++back) {
    if (ctx.is(at - back, "extern")) return std::nullopt;
  }
  std::size_t end = at + 1;
  while (end < ctx.size() && !ctx.is(end, ";") && !ctx.is(end, "=") && !ctx.is(end, "{")) ++end;
  std::size_t first_bracket = end;
  for (std::size_t k = at + 1; k < end; ++k) {
    if (ctx.is(k, "[")) {
      first_bracket = k;
      break;
    }
  }
  if (first_bracket == end || first_bracket < at + 3) return std::nullopt;  // scalars are small
  // Type tokens: after __shared__ (skipping alignment attributes) up to the declarator name.
  std::size_t type_begin = at + 1;
  while (ctx.is(type_begin, "__align__") || ctx.is(type_begin, "alignas") || ctx.is(type_begin, "__attribute__")) {
    const std::size_t close = ctx.matching(type_begin + 1);
    if (close == std::string_view::npos) return std::nullopt;
    type_begin = close + 1;
  }
  const std::size_t name = first_bracket - 1;
  std::int64_t elements = 1;
  std::size_t k = first_bracket;
  while (ctx.is(k, "[")) {
    const std::size_t close = ctx.matching(k);
    if (close == std::string_view::npos) return std::nullopt;
    const auto dim = ctx.evaluate(k + 1, close);
    if (!dim || *dim <= 0) return std::nullopt;
    elements *= *dim;
    if (elements > (std::int64_t{1} << 40)) return std::nullopt;
    k = close + 1;
  }
  const auto size = ctx.type_size(type_begin, name);
  spelled = ctx.spelled(at, k);
  return elements * (size ? *size : 1);  // unknown element types count as one byte: a lower bound
}

void dynamic_limit(scan_context& ctx, std::size_t i) {
  const std::string_view name = ctx.at(i).text;
  if ((name != "cudaFuncSetAttribute" && name != "hipFuncSetAttribute") || !ctx.is(i + 1, "(")) return;
  const auto args = ctx.arguments(i + 1, ctx.matching(i + 1));
  if (args.size() != 3) return;
  const std::string attribute = ctx.spelled(args[1].first, args[1].second);
  if (attribute.find("MaxDynamicSharedMemorySize") == std::string::npos) return;
  const auto value = ctx.evaluate(args[2].first, args[2].second);
  const std::string spelled = ctx.spelled(args[2].first, args[2].second);
  if (!value) {
    ctx.report("dynamic-shared-memory", i,
               std::string(name) + " raises the dynamic shared-memory limit to `" + spelled + "`");
  } else if (*value > lds_limit) {
    ctx.report("shared-memory-64k", i,
               std::string(name) + " raises the dynamic shared-memory limit to " + kib(*value) + ", above 64 KiB");
  }
}

void launch_shared_memory(scan_context& ctx, std::size_t i) {
  std::size_t close = i + 1;
  int depth = 0;
  while (close < ctx.size()) {
    if (ctx.is(close, "(") || ctx.is(close, "[") || ctx.is(close, "{")) ++depth;
    if (ctx.is(close, ")") || ctx.is(close, "]") || ctx.is(close, "}")) --depth;
    if (depth == 0 && (ctx.is(close, ">>>") || ctx.is(close, ";"))) break;
    ++close;
  }
  if (!ctx.is(close, ">>>")) return;
  // arguments() splits between two delimiters; reuse it by treating <<< as the opener.
  const auto args = ctx.arguments(i, close);
  if (args.size() < 3) return;
  const auto value = ctx.evaluate(args[2].first, args[2].second);
  if (value && *value > lds_limit) {
    ctx.report("shared-memory-64k", i, "the launch asks for " + kib(*value) + " of dynamic shared memory");
  }
}

}  // namespace

void scan_shared_memory_rules(scan_context& ctx) {
  std::vector<block> blocks;  // open braces
  std::vector<function_state> functions;
  const auto finish = [&ctx](const function_state& f) {
    if (f.bytes > lds_limit && !f.reported && f.declarations > 1) {
      ctx.report("shared-memory-64k", f.first_decl,
                 "static __shared__ arrays of this function total " + kib(f.bytes) + ", above 64 KiB");
    }
  };
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    if (ctx.is(i, "{")) {
      const bool outer = functions.empty();
      block kind = classify_brace(ctx, i);
      if (!outer) kind = block::scope;  // nested braces belong to the function
      blocks.push_back(kind);
      if (outer && kind == block::function) functions.push_back({blocks.size(), 0, 0, 0, false});
      continue;
    }
    if (ctx.is(i, "}")) {
      if (!functions.empty() && functions.back().depth == blocks.size()) {
        finish(functions.back());
        functions.pop_back();
      }
      if (!blocks.empty()) blocks.pop_back();
      continue;
    }
    if (ctx.is(i, "<<<")) {
      launch_shared_memory(ctx, i);
      continue;
    }
    if (!ctx.is_ident(i)) continue;
    dynamic_limit(ctx, i);
    if (ctx.at(i).text != "__shared__") continue;
    std::string spelled;
    const auto bytes = shared_bytes(ctx, i, spelled);
    if (!bytes) continue;
    if (*bytes > lds_limit) {
      ctx.report("shared-memory-64k", i, "`" + spelled + "` needs " + kib(*bytes) + " of shared memory, above 64 KiB");
    }
    if (!functions.empty()) {
      auto& f = functions.back();
      if (f.declarations++ == 0) f.first_decl = i;
      f.bytes += *bytes;
      if (*bytes > lds_limit) f.reported = true;
    }
  }
}

}  // namespace r2r::plugins::converter
