// SPDX-License-Identifier: MIT
#include <r2r/core/plugin_kind.hpp>

#include <array>
#include <utility>

namespace r2r::core {
namespace {
constexpr std::array<std::pair<r2r_kind, std::string_view>, 8> kinds{{
    {R2R_KIND_LLM, "llm"},
    {R2R_KIND_RANKER, "ranker"},
    {R2R_KIND_CONVERTER, "converter"},
    {R2R_KIND_SANDBOX, "sandbox"},
    {R2R_KIND_POLICY, "policy"},
    {R2R_KIND_GUARD, "guard"},
    {R2R_KIND_VERIFIER, "verifier"},
    {R2R_KIND_SCHEDULER, "scheduler"},
}};
constexpr std::array<r2r_kind, 8> kind_values{R2R_KIND_LLM,    R2R_KIND_RANKER, R2R_KIND_CONVERTER, R2R_KIND_SANDBOX,
                                              R2R_KIND_POLICY, R2R_KIND_GUARD,  R2R_KIND_VERIFIER,  R2R_KIND_SCHEDULER};
}  // namespace

std::string_view kind_name(r2r_kind kind) noexcept {
  for (const auto& [value, name] : kinds) {
    if (value == kind) return name;
  }
  return "unknown";
}

std::optional<r2r_kind> kind_from_name(std::string_view name) noexcept {
  for (const auto& [value, known] : kinds) {
    if (known == name) return value;
  }
  return std::nullopt;
}

const r2r_kind* known_kinds(std::size_t* count) noexcept {
  if (count != nullptr) *count = kind_values.size();
  return kind_values.data();
}

}  // namespace r2r::core
