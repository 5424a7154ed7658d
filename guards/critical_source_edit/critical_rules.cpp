// SPDX-License-Identifier: MIT
#include "critical_rules.hpp"

#include <r2r/guards/known_files.hpp>

#include <algorithm>
#include <map>
#include <regex>

namespace r2r::plugins::guard::critical {

namespace {

constexpr auto icase = std::regex::ECMAScript | std::regex::icase | std::regex::optimize;

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool has_ext(const std::string& path, const std::regex& ext) {
  return std::regex_search(path, ext);
}

bool is_python(const std::string& path) {
  static const std::regex r(R"(\.(py|pyx|pyi)$)", icase);
  return has_ext(path, r);
}
bool is_c_family(const std::string& path) {
  static const std::regex r(R"(\.(cu|cuh|hip|c|cc|cpp|cxx|h|hh|hpp|hxx|inl|cuinc)$)", icase);
  return has_ext(path, r);
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

int count_matches(const std::vector<std::string>& lines, const std::regex& r) {
  int n = 0;
  for (const auto& l : lines)
    for (auto it = std::sregex_iterator(l.begin(), l.end(), r); it != std::sregex_iterator(); ++it) ++n;
  return n;
}

const std::regex& kernel_definition() {
  static const std::regex r(R"(__global__\s|@triton\.jit|@triton\.autotune)");
  return r;
}
const std::regex& non_blank() {
  static const std::regex r(R"(\S)");
  return r;
}
const std::regex& kernel_launch() {
  static const std::regex r(
      R"(<<<|hipLaunchKernelGGL|hipLaunchKernel\b|cudaLaunchKernel|cudaLaunchCooperativeKernel|torch\.ops\.\w+\.\w+|\b_C\.\w+\(|_cuda\.\w+\(|_ext\.\w+\(|\w+_kernel\[[^\]]*\]\s*\()");
  return r;
}
const std::regex& extension_declaration() {
  static const std::regex r(
      R"(CUDAExtension|CppExtension|HIPExtension|BuildExtension|ext_modules|cuda_add_library|enable_language\s*\(\s*(CUDA|HIP)|project\s*\([^)]*\b(CUDA|HIP)\b|\.cu\b|hip_add_library|CMAKE_CUDA|CMAKE_HIP|find_package\s*\(\s*(CUDA|HIP|Torch)|add_library|pybind11_add_module|Pybind11Extension|torch\.utils\.cpp_extension)",
      icase);
  return r;
}
const std::regex& attention_use() {
  static const std::regex r(
      R"(flash[_-]?attn|flash_attention|FlashAttention|xformers|memory_efficient_attention|flash_attn_func|flash_attn_varlen)",
      icase);
  return r;
}
const std::regex& attention_code() {
  static const std::regex r(
      R"(flash[_-]?attn|flash_attention|xformers|scaled_dot_product_attention|attn_implementation|memory_efficient_attention)",
      icase);
  return r;
}
const std::regex& attention_fallback_selected() {
  static const std::regex r(
      R"(attn[_-]?implementation['"]?\s*[=:]\s*['"]?(sdpa|eager)\b|use_flash_attn(ention)?\s*[=:]\s*False|flash_attn\s*=\s*None|HAS_FLASH_ATTN\s*=\s*False|ATTN_BACKEND['"]?\s*\]?\s*[=:]\s*['"]?sdpa\b)",
      icase);
  return r;
}
const std::regex& import_line() {
  static const std::regex r(R"(^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))|^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  return r;
}
const std::regex& comment_prefix() {
  static const std::regex r(R"(^\s*(#|//|/\*)\s?)");
  return r;
}
const std::regex& not_implemented() {
  static const std::regex r(
      R"(raise\s+NotImplementedError|TORCH_CHECK\s*\(\s*false|AT_ERROR\s*\(|throw\s+std::\w+\s*\(\s*"[^"]*not\s+(yet\s+)?(implemented|supported))",
      icase);
  return r;
}

/// The accelerator modules imported by `line` ("" when none).
std::string imported_accelerator(const std::string& line, const plan_facts& facts) {
  std::smatch m;
  if (!std::regex_search(line, m, import_line())) return {};
  const std::string module = m[1].matched ? m[1].str() : m[2].matched ? m[2].str() : "";
  if (!module.empty()) return accelerator_module(module, facts) ? module : "";
  return {};
}

bool trivial_statement(const std::string& line) {
  static const std::regex r(
      R"(^(pass|\.\.\.|return|return\s+(None|0|False|True|x|input|inputs|hidden_states|\w+)\s*;?|return\s*;|\{\s*\}|\}|\{|return\s+\{\s*\}\s*;|""".*|'''.*|#.*|//.*)?$)");
  return std::regex_match(trim(line), r);
}
bool stub_body(const std::string& line) {
  static const std::regex r(R"(^(pass|\.\.\.|return\s*;?|return\s+None|return\s+0\s*;|return\s+\{\s*\}\s*;|\{\s*\})$)");
  return std::regex_match(trim(line), r);
}
bool substantive(const std::string& line) {
  const std::string t = trim(line);
  return !t.empty() && !std::regex_search(t, comment_prefix()) && !trivial_statement(t) && t.rfind("def ", 0) != 0;
}

/// Stubbed Python functions in `lines` (a def whose body is only pass / ... / a docstring /
/// raise NotImplementedError), for content seen whole.
std::vector<std::string> stubbed_functions(const std::vector<std::string>& lines) {
  static const std::regex def(R"(^(\s*)def\s+(\w+)\s*\(.*:\s*(#.*)?$)");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, def)) continue;
    const std::size_t indent = m[1].length();
    bool only_stub = true;
    bool any = false;
    for (std::size_t j = i + 1; j < lines.size(); ++j) {
      const std::string t = trim(lines[j]);
      if (t.empty()) continue;
      if (lines[j].find_first_not_of(" \t") <= indent) break;
      any = true;
      if (!(stub_body(t) || t.rfind("\"\"\"", 0) == 0 || t.rfind("'''", 0) == 0 || t[0] == '#')) only_stub = false;
    }
    if (any && only_stub) out.push_back(m[2].str());
  }
  return out;
}

std::string first(const std::vector<std::string>& lines, const std::regex& r) {
  for (const auto& l : lines)
    if (std::regex_search(l, r)) return trim(l).substr(0, 120);
  return {};
}

}  // namespace

plan_facts facts_of(const nlohmann::json& plan) {
  plan_facts f;
  if (!plan.is_object()) return f;
  if (plan.contains("kernel_builds") && plan["kernel_builds"].is_array()) {
    for (const auto& k : plan["kernel_builds"]) {
      if (!k.is_object()) continue;
      if (k.contains("file") && k["file"].is_string() && !k["file"].get<std::string>().empty())
        f.kernel_files.insert(known_files::normalise(k["file"].get<std::string>()));
      if (k.contains("name") && k["name"].is_string() && !k["name"].get<std::string>().empty()) {
        std::string name = k["name"].get<std::string>();
        std::replace(name.begin(), name.end(), '-', '_');
        f.module_names.insert(name);
      }
    }
  }
  static const std::set<std::string> device{"inline_ptx", "wmma", "mma_sync", "cp_async", "large_shared_memory"};
  if (plan.contains("hazards") && plan["hazards"].is_array()) {
    for (const auto& h : plan["hazards"]) {
      if (!h.is_object() || !h.contains("file") || !h["file"].is_string()) continue;
      const std::string kind = h.value("kind", "");
      if (device.count(kind) || kind.find("warp") != std::string::npos)
        f.kernel_files.insert(known_files::normalise(h["file"].get<std::string>()));
    }
  }
  return f;
}

bool accelerator_module(const std::string& module, const plan_facts& facts) {
  static const std::regex known(
      R"(^(flash_attn|flash_attn_\w+|xformers|apex|bitsandbytes|triton|deepspeed|vllm|mamba_ssm|causal_conv1d|selective_scan\w*|fused_\w+|torch\.utils\.cpp_extension)(\.|$)|(^|\.)_C(\.|$)|(^|[._])cuda($|[._])|_cuda(\.|$)|_ext(\.|$)|_kernels?(\.|$)|_ops(\.|$))");
  const bool torch_module = module.rfind("torch.", 0) == 0 && module.rfind("torch.utils.cpp_extension", 0) != 0;
  if (!torch_module && std::regex_search(module, known)) return true;
  const std::string top = module.substr(0, module.find('.'));
  const std::string last = module.substr(module.rfind('.') + 1);
  return facts.module_names.count(top) || facts.module_names.count(last) || facts.module_names.count(module);
}

std::string critical_kind(const std::string& path, const std::vector<std::string>& lines, const plan_facts& facts) {
  const std::string name = base_name(path);
  static const std::regex kernel_ext(R"(\.(cu|cuh|hip)$)", icase);
  if (has_ext(path, kernel_ext)) return "kernel source";
  if (facts.kernel_files.count(known_files::normalise(path)) && name != "setup.py") return "kernel source";
  static const std::regex launch(R"(<<<|hipLaunchKernelGGL)");
  if (is_c_family(path) && (count_matches(lines, kernel_definition()) > 0 || count_matches(lines, launch) > 0))
    return "kernel source";
  static const std::regex cmake(R"(\.cmake$)", icase);
  if (name == "setup.py" || name == "CMakeLists.txt" || has_ext(name, cmake)) return "extension build file";
  if (name == "pyproject.toml") {
    static const std::regex build(R"(build-system|build-backend|ext[-_]modules|scikit|cmake|setuptools|cuda|hip)",
                                  icase);
    if (count_matches(lines, build) > 0) return "extension build file";
  }
  if (is_python(path) && count_matches(lines, attention_code()) > 0) return "attention code";
  if (is_python(path) && count_matches(lines, kernel_definition()) > 0) return "kernel source";
  return {};
}

std::vector<grade> grade_change(const file_change& change, bool baseline_known, const plan_facts& facts) {
  std::vector<std::string> all = change.removed;
  all.insert(all.end(), change.added.begin(), change.added.end());
  all.insert(all.end(), change.context.begin(), change.context.end());
  const std::string kind = critical_kind(change.path, all, facts);
  const bool code = is_python(change.path) || is_c_family(change.path);
  if (kind.empty() && !code) return {};
  const std::string& p = change.path;
  std::vector<grade> out;

  if (change.deleted) {
    if (kind == "kernel source")
      out.push_back({"kernel_replaced", "deletes the kernel source " + p});
    else if (!kind.empty())
      out.push_back({"acceleration_disabled", "deletes the " + kind + " " + p});
    return out;
  }

  // D4: imports of accelerator modules commented out or deleted.
  std::map<std::string, int> imports_removed;
  std::map<std::string, int> imports_kept;
  for (const auto& l : change.removed)
    if (auto m = imported_accelerator(l, facts); !m.empty()) ++imports_removed[m];
  for (const auto& l : change.added) {
    std::smatch c;
    const bool commented = std::regex_search(l, c, comment_prefix());
    const std::string body = commented ? l.substr(static_cast<std::size_t>(c.length(0))) : l;
    const std::string m = imported_accelerator(body, facts);
    if (m.empty()) continue;
    if (commented) out.push_back({"acceleration_disabled", "comments out `" + trim(body) + "` in " + p});
    ++imports_kept[m];  // a commented-out import is reported once, not also as deleted
  }
  for (const auto& [m, n] : imports_removed)
    if (n > imports_kept[m]) out.push_back({"acceleration_disabled", "deletes the import of " + m + " from " + p});

  // D4: code of a critical file commented out (a removed line comes back behind a comment).
  if (!kind.empty()) {
    for (const auto& l : change.added) {
      std::smatch c;
      if (!std::regex_search(l, c, comment_prefix())) continue;
      const std::string body = trim(l.substr(static_cast<std::size_t>(c.length(0))));
      if (body.empty() || !substantive(body) || !imported_accelerator(body, facts).empty()) continue;
      if (std::any_of(change.removed.begin(), change.removed.end(),
                      [&](const std::string& r) { return trim(r) == body; })) {
        out.push_back({"acceleration_disabled", "comments out `" + body.substr(0, 100) + "` in the " + kind + " " + p});
        break;
      }
    }
  }

  // D4: NotImplementedError and friends added.
  if (count_matches(change.added, not_implemented()) > count_matches(change.removed, not_implemented()))
    out.push_back({"acceleration_disabled", "adds `" + first(change.added, not_implemented()) + "` to " + p});

  // D4: a function body replaced by a stub.
  if (baseline_known) {
    const bool removed_code = std::any_of(change.removed.begin(), change.removed.end(), substantive);
    const bool added_only_trivial =
        !change.added.empty() && std::all_of(change.added.begin(), change.added.end(), [](const std::string& l) {
          return trim(l).empty() || trivial_statement(l) || trim(l).rfind("def ", 0) == 0;
        });
    const bool added_stub = std::any_of(change.added.begin(), change.added.end(), stub_body);
    if (removed_code && added_only_trivial && added_stub)
      out.push_back({"acceleration_disabled",
                     "replaces code of " + p + " by a stub (`" + first(change.added, non_blank()) + "`)"});
  } else if (!kind.empty() && is_python(p)) {
    for (const auto& f : stubbed_functions(change.added))
      out.push_back({"acceleration_disabled", "writes " + p + " with the stubbed function " + f + "()"});
  }

  // D4: extension build declarations removed.
  if (kind == "extension build file" &&
      count_matches(change.removed, extension_declaration()) > count_matches(change.added, extension_declaration()))
    out.push_back({"acceleration_disabled", "removes extension build declarations from " + p + " (`" +
                                                first(change.removed, extension_declaration()) + "`)"});

  // D3: kernel definitions or launches removed.
  if (count_matches(change.removed, kernel_definition()) > count_matches(change.added, kernel_definition()))
    out.push_back({"kernel_replaced",
                   "removes kernel definitions from " + p + " (`" + first(change.removed, kernel_definition()) + "`)"});
  else if (count_matches(change.removed, kernel_launch()) > count_matches(change.added, kernel_launch()))
    out.push_back({"kernel_replaced",
                   "removes kernel launches from " + p + " (`" + first(change.removed, kernel_launch()) + "`)"});

  // D2: attention moved off flash-attn / xformers.
  if (count_matches(change.added, attention_fallback_selected()) >
      count_matches(change.removed, attention_fallback_selected()))
    out.push_back({"attention_fallback", "selects a fallback attention in " + p + " (`" +
                                             first(change.added, attention_fallback_selected()) + "`)"});
  else if (count_matches(change.removed, attention_use()) > count_matches(change.added, attention_use()))
    out.push_back({"attention_fallback", "removes flash-attn/xformers use from " + p + " (`" +
                                             first(change.removed, attention_use()) + "`)"});

  if (out.empty() && !kind.empty()) out.push_back({"port", "edits the " + kind + " " + p});
  // One grade per component: its findings joined.
  std::vector<grade> merged;
  for (auto& g : out) {
    auto same = std::find_if(merged.begin(), merged.end(), [&](const grade& m) { return m.component == g.component; });
    if (same == merged.end())
      merged.push_back(std::move(g));
    else if (same->what.find(g.what) == std::string::npos)
      same->what += "; " + g.what;
  }
  return merged;
}

}  // namespace r2r::plugins::guard::critical
