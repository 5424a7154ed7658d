// SPDX-License-Identifier: MIT
// convert_source: the file is lexed once (code_tokens.hpp); the idiom port reads those tokens and
// hands on the tokens of its output to the rename pass. Unchanged bytes are copied in spans, so
// comments, literals and layout survive byte for byte.
#include "code_tokens.hpp"
#include "cuda_idioms_shared.hpp"
#include "text_search.hpp"

#include <r2r/convert/cg_idioms.hpp>
#include <r2r/convert/cuda_idioms.hpp>
#include <r2r/convert/hipify.hpp>
#include <r2r/convert/lexer.hpp>
#include <r2r/convert/mapping.hpp>
#include <r2r/convert/torch_minmax.hpp>
#include <r2r/convert/wmma_port.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>

namespace r2r::plugins::converter {
namespace {

using sdk::converter::diagnostic;

std::string section_of(const name_row& row) {
  const auto names = section_names();
  return row.section < names.size() ? std::string(names[row.section]) : std::string();
}

std::string unmapped_hint(const name_row& row) {
  const std::string_view name = row.cuda;
  if (row.api == api::device && name.size() > 5 && name.substr(name.size() - 5) == "_sync") {
    return "the tables list no HIP form of this warp-synchronous intrinsic. Use the form without _sync and "
           "without the mask argument (for example __shfl_down(v, delta) for __shfl_down_sync(mask, v, delta)) "
           "after checking the code does not rely on a 32-lane warp or a partial mask; newer ROCm releases "
           "offer *_sync variants with 64-bit masks behind HIP_ENABLE_WARP_SYNC_BUILTINS. The hazard scan "
           "reports the lane-mask assumptions";
  }
  if (!row.alternative.empty() && row.api != api::dnn) {
    return "hipify tables list no HIP name, but the ROCm library has " + std::string(row.alternative) +
           (row.alternative_added ? " (since ROCm " + format_version(row.alternative_added) + ")" : std::string()) +
           "; call it directly (its signature may differ) or rewrite this call by hand";
  }
  return "HIP has no equivalent of " + std::string(name) + " (" + std::string(api_display_name(row.api)) + ", " +
         section_of(row) +
         "). Rewrite this code for HIP by hand, or keep it out of the HIP build (for example under "
         "#ifndef __HIP_PLATFORM_AMD__)";
}

/// looks_like_cuda_name's first test, inline (most identifiers fail it): a name it can accept has
/// three characters or more and starts with c, n, C, N or _.
bool may_look_like_cuda(std::string_view name) noexcept {
  if (name.size() < 3) return false;
  const char f = name.front();
  return f == 'c' || f == 'n' || f == 'C' || f == 'N' || f == '_';
}

/// The rename pass. LIFETIME: borrows `text`, `options` and `tokens` (lex_code(text)) until run() returns.
class source_converter {
 public:
  source_converter(std::string_view path, std::string_view text, const hipify_options& options,
                   const code_tokens& tokens)
      : path_(path), text_(text), options_(options), tokens_(tokens) {}

  conversion run() {
    if (tokens_.failed) return failed(tokens_.error);
    out_.text.reserve(text_.size() + text_.size() / 16 + 64);
    for (const token& t : tokens_.tokens) {
      if (pending_namespace_) {
        if (t.kind == token_kind::punct && text_of(t) == "::") {
          const auto& [ns_token, ns] = *pending_namespace_;
          if (options_.rewrite) {
            replace(ns_token, ns->hip);
            ++renamed_;
          } else {
            ++left_;
            report(ns_token, "warning", "left_unconverted", ns->cuda,
                   "namespace " + std::string(ns->cuda) + ":: is still in the text although HIP has " +
                       std::string(ns->hip) + "::",
                   "rename it to " + std::string(ns->hip));
          }
        }
        pending_namespace_.reset();
      }
      switch (t.kind) {
        case token_kind::identifier:
          on_identifier(t);
          break;
        case token_kind::header_name:
          // The lexer makes header names only after #include, #include_next and #import.
          on_include(t);
          break;
        case token_kind::punct:
          on_punct(t);
          break;
        default:
          break;
      }
      prev2_ = prev_;
      prev_ = &t;
    }
    if (open_launch_) {
      report(*open_launch_, "warning", "syntax", "<<<",
             "kernel launch `<<<` has no matching `>>>` before the end of the file",
             "complete the launch configuration: kernel<<<grid, block[, shared_bytes[, stream]]>>>(arguments)");
    }
    report_unknown_names();
    out_.text.append(text_.data() + copied_, text_.size() - copied_);
    out_.changed = out_.text != text_;
    fill_stats();
    return std::move(out_);
  }

 private:
  /// Tokens lie inside text_ (lex_code), so no bounds check is needed.
  std::string_view text_of(const token& t) const noexcept { return {text_.data() + t.begin, t.end - t.begin}; }

  void replace(const token& t, std::string_view with) {
    out_.text.append(text_.data() + copied_, t.begin - copied_);
    out_.text.append(with);
    copied_ = t.end;
  }

  void report(const token& t, const char* severity, const char* category, std::string_view name, std::string message,
              std::string hint) {
    diagnostic d;
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

  /// Reports once per (category, name) in this file; later occurrences only count.
  bool first_time(std::string_view category, std::string_view name) {
    std::string key(category);
    key += '\n';
    key += name;
    return once_.insert(std::move(key)).second;
  }

  conversion failed(const token& t) {
    conversion c;
    c.failed = true;
    c.text = std::string(text_);
    diagnostic d;
    d.file = std::string(path_);
    d.line = t.line;
    d.column = t.column;
    d.severity = "error";
    d.category = "bad_input";
    d.message = tokens_.error_message + "; the file was not converted";
    d.hint = "fix the syntax (the compiler rejects it too), then convert again";
    c.diagnostics.push_back(std::move(d));
    c.stats["bytes_in"] = static_cast<std::int64_t>(text_.size());
    c.stats["bytes_out"] = static_cast<std::int64_t>(text_.size());
    return c;
  }

  bool qualified_or_member() const {
    if (prev_->kind != token_kind::punct) return false;
    const std::string_view p = text_of(*prev_);
    if (p == "." || p == "->") return true;
    // `ns::name` is qualified by another scope; `::name` (global) is still the CUDA name.
    if (p != "::") return false;
    return prev2_->kind == token_kind::identifier || (prev2_->kind == token_kind::punct && text_of(*prev2_) == ">");
  }

  void on_identifier(const token& t) {
    ++identifiers_;
    const std::string_view name = text_of(t);
    if (t.in_directive && prev_->kind == token_kind::directive_hash) return;  // the directive's name
    if (t.in_directive && prev_->kind == token_kind::identifier && prev2_->kind == token_kind::directive_hash &&
        text_of(*prev_) == "define") {
      defined_.emplace(name);  // the file's own macro
    }
    if (name == "__global__") ++kernels_;
    if (qualified_or_member()) return;
    if (!options_.ignore_names.empty() && options_.ignore_names.find(name) != options_.ignore_names.end()) return;
    if (const name_lookup found = find_any_name(name); found.row || found.ns || found.unlisted) {
      if (const name_row* row = found.row) {
        on_row(t, *row);
        return;
      }
      if (const namespace_row* ns = found.ns) {
        pending_namespace_.emplace(t, ns);
        return;
      }
      if (const unlisted_row* u = found.unlisted) {
        ++unsupported_;
        report(t, "error", "unsupported", name,
               std::string(name) + " (" + std::string(api_display_name(u->api)) +
                   ") is missing from the HIPIFY tables and has no HIP equivalent; the name was left unchanged",
               std::string(u->hint));
        return;
      }
    }
    if (options_.report_unknown_names && may_look_like_cuda(name) && looks_like_cuda_name(name) &&
        options_.project_names.find(name) == options_.project_names.end()) {
      // Reported at the end of the file, unless the file #defines the name itself.
      auto [it, first] = unknown_counts_.emplace(std::string(name), 0);
      ++it->second;
      if (first) unknown_first_.push_back(t);
    }
  }

  void report_unknown_names() {
    for (const token& t : unknown_first_) {
      const std::string name(text_of(t));
      if (defined_.count(name) != 0) continue;
      unknown_ += unknown_counts_[name];
      report(t, "warning", "unknown_cuda_name", name,
             name + " looks like a CUDA name but is in no CUDA->HIP table; it was left unchanged", unknown_hint(name));
    }
    std::stable_sort(out_.diagnostics.begin(), out_.diagnostics.end(), [](const auto& a, const auto& b) {
      return std::tie(a.line, a.column) < std::tie(b.line, b.column);
    });
  }

  static std::string unknown_hint(std::string_view name) {
    if (name.substr(0, 12) == "__CUDA_ARCH_") {
      return "HIP does not define __CUDA_ARCH__: use __HIP_DEVICE_COMPILE__ to tell device from host passes and "
             "the __gfx*__ macros (or __AMDGCN_WAVEFRONT_SIZE) for target features; the hazard scan lists each "
             "feature check";
    }
    if (name == "nvcuda") {
      return "nvcuda::wmma has no drop-in HIP equivalent; port it to rocWMMA (rocwmma::fragment, rocwmma::mma_sync)";
    }
    return "if this is the project's own identifier, add it to the converter's ignore_names; otherwise find the "
           "HIP equivalent in the ROCm documentation and rename it by hand";
  }

  void on_row(const token& t, const name_row& row) {
    const std::string_view name = row.cuda;
    const version_code target = options_.target_rocm;
    if (!row.hip.empty()) {
      if (target != 0 && row.hip_removed != 0 && target >= row.hip_removed) {
        ++unsupported_;
        report(t, "error", "removed_in_rocm", name,
               std::string(row.hip) + " (the HIP name of " + std::string(name) + ") was removed in ROCm " +
                   format_version(row.hip_removed) + "; target ROCm is " + format_version(target),
               "rewrite this code without " + std::string(name) + ", or target an older ROCm");
        return;
      }
      if (target != 0 && row.hip_added > target) {
        ++unsupported_;
        report(t, "error", "rocm_too_old", name,
               std::string(name) + " maps to " + std::string(row.hip) + ", which HIP added in ROCm " +
                   format_version(row.hip_added) + "; the target ROCm " + format_version(target) +
                   " lacks it, so the name was left unchanged",
               "target ROCm " + format_version(row.hip_added) +
                   " or newer (pick a newer base image), or rewrite "
                   "this code without " +
                   std::string(name));
        return;
      }
      if (row.hip != name) {
        if (!options_.rewrite) {
          ++left_;
          report(t, "warning", "left_unconverted", name,
                 std::string(name) + " is still in the text although HIP has " + std::string(row.hip),
                 "rename it to " + std::string(row.hip) + " (r2r.converter.hipify does this)");
          return;
        }
        replace(t, row.hip);
        ++renamed_;
      }
      if (row.experimental && first_time("experimental", name)) {
        ++notes_;
        report(t, "note", "experimental", name, std::string(row.hip) + " is experimental in HIP (HIPIFY tables)",
               "check its behaviour on the target ROCm; experimental APIs may change");
      }
      if (row.hip_deprecated != 0 && (target == 0 || target >= row.hip_deprecated) && first_time("deprecated", name)) {
        ++notes_;
        report(t, "note", "deprecated", name,
               std::string(row.hip) + " is deprecated since ROCm " + format_version(row.hip_deprecated),
               "it still works; plan to move off it");
      }
      return;
    }
    ++unsupported_;
    if (row.api == api::dnn) {
      report(t, "error", "manual_port", name,
             "cuDNN's " + std::string(name) + " has no HIP mapping; cuDNN code needs a port to MIOpen",
             row.alternative.empty()
                 ? std::string("MIOpen has no direct counterpart either; restructure this part with MIOpen by hand")
                 : "MIOpen's counterpart is " + std::string(row.alternative) +
                       "; descriptors and algorithm search differ, so port the surrounding code by hand");
      return;
    }
    // Table names without a CUDA prefix (texture, saturate, umin, ...) are also common project
    // identifiers: reported as warnings that say how to silence them.
    const bool generic = !looks_like_cuda_name(name) && name.substr(0, 2) != "__";
    if (generic) {
      report(t, "warning", "unsupported", name,
             std::string(name) + " is a " + std::string(api_display_name(row.api)) +
                 " name without a HIP equivalent; the name was left unchanged",
             "if this is the project's own " + std::string(name) +
                 ", add it to ignore_names in the converter's config; otherwise: " + unmapped_hint(row));
      return;
    }
    if (!row.listed.empty()) {
      report(t, "error", "unsupported", name,
             "the HIPIFY tables list " + std::string(row.listed) + " for " + std::string(name) +
                 " but no ROCm release that has it; the name was left unchanged",
             unmapped_hint(row));
      return;
    }
    report(t, "error", "unsupported", name,
           std::string(name) + " (" + std::string(api_display_name(row.api)) +
               ") has no HIP equivalent; the name was left unchanged",
           unmapped_hint(row));
  }

  void on_include(const token& t) {
    const std::string_view spelled = text_of(t);
    const bool quoted = spelled.front() == '"';
    const std::string_view inner = spelled.substr(1, spelled.size() - 2);
    const header_row* row = find_header(inner);
    if (row == nullptr) {
      if (looks_like_cuda_header(inner)) {
        ++unknown_;
        if (first_time("header", inner)) {
          report(t, "warning", "unknown_cuda_name", inner,
                 "#include of " + std::string(inner) + ", which looks like a CUDA header but is in no CUDA->HIP table",
                 "find the ROCm header that provides the same API, or remove the include if nothing uses it");
        }
      }
      return;
    }
    // The project's own header: a quoted include of a file it has, or a CUDA-samples helper
    // (helper_cuda.h, ...: not CUDA's) it carries, however it is spelled (-I Common/ is the norm).
    if ((quoted || row->api == api::samples) && options_.include_exists &&
        options_.include_exists(quoted ? inner : spelled, path_)) {
      return;
    }
    switch (row->action) {
      case header_action::keep:
        return;
      case header_action::manual:
        ++unsupported_;
        report(t, "error", "manual_port", inner, "#include of " + std::string(inner) + " has no mechanical HIP port",
               std::string(row->hint));
        return;
      case header_action::rewrite:
        break;
    }
    if (options_.target_rocm != 0 && row->since > options_.target_rocm) {
      ++unsupported_;
      report(t, "error", "rocm_too_old", inner,
             std::string(inner) + " maps to " + std::string(row->hip) + ", first shipped in ROCm " +
                 format_version(row->since) + "; the target is " + format_version(options_.target_rocm),
             "target a newer ROCm release");
      return;
    }
    std::string with;
    with.reserve(row->hip.size() + 2);
    with += spelled.front();
    with += row->hip;
    with += spelled.back();
    if (with != spelled) {
      if (!options_.rewrite) {
        ++left_;
        report(t, "warning", "left_unconverted", inner,
               "#include of " + std::string(inner) + " is still in the text although HIP has " + std::string(row->hip),
               "include " + with + " instead");
        return;
      }
      replace(t, with);
      ++includes_;
    }
  }

  static bool looks_like_cuda_header(std::string_view inner) {
    static constexpr std::string_view prefixes[] = {"cuda",     "cublas", "curand",   "cufft",  "cusparse",
                                                    "cusolver", "cudnn",  "nvrtc",    "nvtx3/", "nvToolsExt",
                                                    "cupti",    "nvml",   "cutlass/", "cute/"};
    for (const auto p : prefixes) {
      if (inner.substr(0, p.size()) == p) return true;
    }
    return false;
  }

  void on_punct(const token& t) {
    if (t.end - t.begin != 3) return;  // most punctuation is one character
    const std::string_view p = text_of(t);
    if (p == "<<<") {
      ++launches_;
      if (!open_launch_) open_launch_ = t;
    } else if (p == ">>>" && open_launch_) {
      open_launch_.reset();
    }
  }

  void fill_stats() {
    auto& s = out_.stats;
    s["bytes_in"] = static_cast<std::int64_t>(text_.size());
    s["bytes_out"] = static_cast<std::int64_t>(out_.text.size());
    std::int64_t lines = count_newlines(text_);
    if (!text_.empty() && text_.back() != '\n') ++lines;
    s["lines"] = lines;
    s["identifiers"] = identifiers_;
    s["renamed"] = renamed_;
    s["includes_rewritten"] = includes_;
    s["kernel_launches"] = launches_;
    s["kernels"] = kernels_;
    s["unsupported"] = unsupported_;
    s["unknown_names"] = unknown_;
    s["notes"] = notes_;
    if (!options_.rewrite) s["left_unconverted"] = left_;
  }

  std::string_view path_;
  std::string_view text_;
  const hipify_options& options_;
  const code_tokens& tokens_;
  conversion out_;
  std::size_t copied_ = 0;
  static constexpr token no_token{};  // before the first token: kind end_of_file
  const token* prev_ = &no_token;     // the last two tokens before the current one, in tokens_
  const token* prev2_ = &no_token;
  std::optional<std::pair<token, const namespace_row*>> pending_namespace_;
  std::optional<token> open_launch_;
  std::set<std::string, std::less<>> once_;
  std::set<std::string, std::less<>> defined_;          // macros this file #defines
  std::map<std::string, std::int64_t> unknown_counts_;  // unknown CUDA-looking name -> occurrences
  std::vector<token> unknown_first_;                    // first occurrence of each, in file order
  std::int64_t identifiers_ = 0, renamed_ = 0, includes_ = 0, launches_ = 0, kernels_ = 0, unsupported_ = 0,
               unknown_ = 0, notes_ = 0, left_ = 0;
};

}  // namespace

conversion convert_source(std::string_view path, std::string_view text, const hipify_options& options) {
  code_tokens tokens = lex_code(text);
  if (!options.rewrite) return source_converter(path, text, options, tokens).run();
  // The idiom ports first (they read CUDA names), then the renames; lines keep their numbers until
  // the helper block goes in, and diagnostics below it move down with it.
  idiom_port idioms = port_cuda_idioms(path, text, tokens);  // `tokens` now lexes idioms.text
  idiom_port groups = port_cooperative_groups(path, idioms.text);
  idiom_port wmma = port_wmma(path, groups.text);
  idiom_port minmax = port_torch_minmax(path, wmma.text);
  if (minmax.text != idioms.text) tokens = lex_code(minmax.text);  // rare: those passes lex on their own
  idioms.text = std::move(minmax.text);
  for (idiom_port* pass : {&groups, &wmma, &minmax}) {
    for (auto& d : pass->diagnostics) idioms.diagnostics.push_back(std::move(d));
    for (const auto& [k, v] : pass->stats) idioms.stats[k] += v;
  }
  conversion c;
  if (idioms.same_in_hip.empty()) {
    c = source_converter(path, idioms.text, options, tokens).run();
  } else {
    hipify_options with_same = options;
    with_same.ignore_names.insert(idioms.same_in_hip.begin(), idioms.same_in_hip.end());
    c = source_converter(path, idioms.text, with_same, tokens).run();
  }
  if (c.failed) {
    c.text = std::string(text);
    return c;
  }
  for (auto& d : idioms.diagnostics) c.diagnostics.push_back(std::move(d));
  for (const auto& [k, v] : idioms.stats) c.stats[k] = v;
  // The math and cooperative-groups blocks go in first so that the idiom block ends up above them.
  for (const auto& [needed, block] :
       {std::pair{idioms.needs_math, math_helpers_block()}, std::pair{groups.needs_helpers, cg_helpers_block()},
        std::pair{idioms.needs_helpers, helpers_block()}}) {
    if (!needed) continue;
    std::int64_t at_line = 0, added = 0;
    c.text = insert_block(c.text, block, at_line, added);
    for (auto& d : c.diagnostics) {
      if (at_line > 0 && d.line >= at_line) d.line += added;
    }
    c.stats["bytes_out"] = static_cast<std::int64_t>(c.text.size());
  }
  std::stable_sort(c.diagnostics.begin(), c.diagnostics.end(), [](const auto& a, const auto& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  c.changed = c.text != text;
  return c;
}

}  // namespace r2r::plugins::converter
