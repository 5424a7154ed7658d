// SPDX-License-Identifier: MIT
// kernel_builds: what compiles the repository's own device code and which kernels it defines.
// setup.py's CUDAExtension/CppExtension calls and cpp_extension.load()/load_inline() calls are read
// through the Python tokenizer (so calls that span lines, keyword arguments and lists of sources
// work); their sources are resolved against the scanned tree and each `.cu`/`.hip` source (and the
// local headers it includes) is searched for `__global__` functions. `@triton.jit` functions are
// found by their decorators. Every kernel name keeps the file and line that defines it.
#include "py_tokens.hpp"
#include "scan_parts.hpp"
#include "text_util.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <set>

namespace r2r::planning::detail {
namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool source_like(std::string_view p) {
  for (std::string_view ext : {".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp"})
    if (ends_with(p, ext)) return true;
  return false;
}

bool device_source(std::string_view p) {
  return ends_with(p, ".cu") || ends_with(p, ".cuh") || ends_with(p, ".hip");
}

std::string dir_of(const std::string& rel) {
  const auto slash = rel.rfind('/');
  return slash == std::string::npos ? "" : rel.substr(0, slash);
}

std::string normalise(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t b = 0;
  while (b <= path.size()) {
    auto e = path.find('/', b);
    if (e == std::string::npos) e = path.size();
    const std::string p = path.substr(b, e - b);
    if (p == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!p.empty() && p != ".") {
      parts.push_back(p);
    }
    b = e + 1;
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

/// Repository files named by `literal` as written in `declared_in`: relative to that file's
/// directory, to the root, a glob, or (last) the only file whose path ends with "/literal".
std::vector<std::string> resolve(const scan_state& s, const std::string& declared_in, const std::string& literal) {
  std::vector<std::string> out;
  const std::string base = dir_of(declared_in);
  if (literal.find_first_of("*?[") != std::string::npos) {
    for (const auto& f : s.files) {
      const std::string rel_pat = normalise(base.empty() ? literal : base + "/" + literal);
      if (fnmatch(rel_pat.c_str(), f.c_str(), 0) == 0 || fnmatch(("*/" + literal).c_str(), f.c_str(), 0) == 0)
        out.push_back(f);
    }
    return out;
  }
  for (const auto& candidate : {normalise(base.empty() ? literal : base + "/" + literal), normalise(literal)}) {
    if (s.files.count(candidate)) return {candidate};
  }
  const std::string tail = "/" + normalise(literal);
  for (const auto& f : s.files)
    if (ends_with(f, tail)) out.push_back(f);
  if (out.size() > 1) out.clear();  // ambiguous: report it unresolved
  return out;
}

void add_sources(const scan_state& s, const std::string& rel, const py::token_stream& ts, const py::argument* a,
                 kernel_build& b) {
  if (a == nullptr) return;
  std::string prefix;  // os.path.join("csrc", "x.cu") -> "csrc/x.cu"
  for (const auto& [lit, line] : py::literals(ts, *a)) {
    (void)line;
    if (!source_like(lit) && lit.find('*') == std::string::npos) {
      if (!lit.empty() && lit.find_first_of(" \n\t") == std::string::npos) prefix += lit + "/";
      continue;
    }
    auto found = resolve(s, rel, lit);
    if (found.empty() && !prefix.empty()) found = resolve(s, rel, prefix + lit);
    prefix.clear();
    if (found.empty()) b.unresolved.push_back(lit);
    for (auto& f : found)
      if (std::find(b.sources.begin(), b.sources.end(), f) == b.sources.end()) b.sources.push_back(std::move(f));
  }
  if (b.sources.empty() && b.unresolved.empty()) {
    std::string expr;
    for (std::size_t i = a->begin; i < a->end && i < ts.tokens.size(); ++i) expr += ts.tokens[i].text;
    b.unresolved.push_back(expr);
  }
}

std::string literal_or_expr(const py::token_stream& ts, const py::argument* a) {
  if (a == nullptr) return "";
  if (a->end == a->begin + 1 && ts.tokens[a->begin].kind == py::tok::string) return ts.tokens[a->begin].text;
  std::string expr;
  for (std::size_t i = a->begin; i < a->end && i < ts.tokens.size(); ++i) expr += ts.tokens[i].text;
  return expr;
}

/// The string literal(s) an argument holds: itself, or the value assigned to the variable it names.
std::vector<std::pair<std::string, int>> inline_strings(const py::token_stream& ts, const py::argument* a) {
  if (a == nullptr) return {};
  auto lits = py::literals(ts, *a);
  for (std::size_t i = a->begin; i < a->end; ++i) {
    const auto& x = ts.tokens[i];
    if (x.kind != py::tok::name) continue;
    for (std::size_t j = 0; j + 2 < ts.tokens.size(); ++j) {
      if (ts.tokens[j].kind == py::tok::name && ts.tokens[j].text == x.text && ts.tokens[j + 1].text == "=" &&
          ts.tokens[j + 2].kind == py::tok::string) {
        for (std::size_t k = j + 2; k < ts.tokens.size() && ts.tokens[k].kind == py::tok::string; ++k)
          lits.emplace_back(ts.tokens[k].text, ts.tokens[k].line);
        break;
      }
    }
  }
  return lits;
}

}  // namespace

std::vector<kernel_site> global_kernels(std::string_view text, const std::string& file, int first_line) {
  std::vector<kernel_site> out;
  static constexpr std::string_view key = "__global__";
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + key.size())) {
    if ((at > 0 && ident_char(text[at - 1])) || (at + key.size() < text.size() && ident_char(text[at + key.size()])))
      continue;
    const auto line_start = text.rfind('\n', at);
    const std::string_view before = text.substr(line_start == std::string_view::npos ? 0 : line_start, at);
    if (before.find("//") != std::string_view::npos) continue;  // commented out
    std::size_t i = at + key.size();
    std::string name;
    while (i < text.size()) {
      const auto paren = text.find_first_of("(;{", i);
      if (paren == std::string_view::npos || text[paren] != '(') break;
      std::size_t e = paren;
      while (e > i && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
      std::size_t b = e;
      while (b > i && ident_char(text[b - 1])) --b;
      const std::string ident(text.substr(b, e - b));
      if (ident == "__launch_bounds__" || ident == "__attribute__" || ident == "alignas" || ident.empty()) {
        int depth = 0;
        std::size_t k = paren;
        for (; k < text.size(); ++k) {
          if (text[k] == '(') ++depth;
          if (text[k] == ')' && --depth == 0) break;
        }
        i = k + 1;
        continue;
      }
      name = ident;
      break;
    }
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    const int line = first_line + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
    out.push_back({name, file, line});
  }
  return out;
}

void scan_setup_py_builds(scan_state& s, const std::string& rel, std::string_view content) {
  const auto ts = py::tokenize(content);
  if (ts.error_line) s.problem(rel, ts.error_line, "string literal opened here is never closed");
  for (const auto& c : py::find_calls(ts, {"CUDAExtension", "CppExtension"})) {
    if (!c.closed) {
      s.problem(rel, c.line, c.callee + "( opened here is never closed (expected ')')");
      continue;
    }
    const bool cuda = c.callee.ends_with("CUDAExtension");
    kernel_build b;
    b.kind = cuda ? "cuda_extension" : "cpp_extension";
    b.name = literal_or_expr(ts, py::arg(c, "name", 0));
    b.file = rel;
    b.line = c.line;
    if (b.name.empty()) {
      s.problem(rel, c.line, c.callee + "(...) has no name= argument (expected the extension module name)");
      continue;
    }
    add_sources(s, rel, ts, py::arg(c, "sources", 1), b);
    const std::string kind = cuda ? "cuda_extension" : "cpp_extension";
    s.fp.kernels.push_back({kind, b.name, std::string(text::trim(text::lines(content)[c.line - 1])), rel, c.line});
    s.fp.extensions.push_back({kind, b.name, "built by setup.py", rel, c.line});
    s.fp.kernel_builds.push_back(std::move(b));
  }
}

void scan_python_builds(scan_state& s, const std::string& rel, std::string_view content) {
  const bool maybe_jit = text::contains(content, "load(") || text::contains(content, "load_inline(");
  const bool maybe_triton = text::contains(content, "triton");
  if (!maybe_jit && !maybe_triton) return;
  const auto ts = py::tokenize(content);
  if (maybe_jit) {
    const bool imports_cpp_extension = text::contains(content, "cpp_extension");
    for (const auto& c : py::find_calls(ts, {"load", "load_inline"})) {
      const bool is_inline = c.callee.ends_with("load_inline");
      // A bare load(...) is torch's only when the file imports cpp_extension and the call names sources.
      if (!imports_cpp_extension) continue;
      if (!is_inline) {
        // torch.load(f, map_location), json.load(f)... are not builds: a build names its sources
        // (sources=... or a list as the second argument).
        const auto* src = py::arg(c, "sources", 1);
        if (src == nullptr || (src->keyword.empty() && ts.tokens[src->begin].text != "[")) continue;
        bool other = false;
        for (std::string_view prefix : {"torch.", "json.", "pickle.", "np.", "numpy.", "yaml.", "joblib.", "jax."})
          other = other || (c.callee.starts_with(prefix) && !c.callee.starts_with("torch.utils.cpp_extension."));
        if (other) continue;
      }
      kernel_build b;
      b.kind = is_inline ? "jit_load_inline" : "jit_load";
      b.name = literal_or_expr(ts, py::arg(c, "name", 0));
      b.file = rel;
      b.line = c.line;
      if (is_inline) {
        b.sources.push_back(rel);
        for (const auto& [str, line] : inline_strings(ts, py::arg(c, "cuda_sources", 2))) {
          auto k = global_kernels(str, rel, line);
          b.kernels.insert(b.kernels.end(), k.begin(), k.end());
        }
      } else {
        add_sources(s, rel, ts, py::arg(c, "sources", 1), b);
      }
      s.fp.kernel_builds.push_back(std::move(b));
    }
  }
  if (maybe_triton) {
    kernel_build b;
    b.kind = "triton";
    b.name = rel;
    b.file = rel;
    b.sources.push_back(rel);
    const auto& t = ts.tokens;
    auto skip_parens = [&](std::size_t j) {
      if (j >= t.size() || t[j].text != "(") return j;
      int depth = 0;
      for (; j < t.size(); ++j) {
        if (t[j].kind == py::tok::op && t[j].text == "(") ++depth;
        if (t[j].kind == py::tok::op && t[j].text == ")" && --depth == 0) return j + 1;
      }
      return j;
    };
    auto dotted = [&](std::size_t& j) {
      std::string n;
      while (j < t.size() && t[j].kind == py::tok::name) {
        n += t[j++].text;
        if (j < t.size() && t[j].text == ".")
          n += t[j++].text;
        else
          break;
      }
      return n;
    };
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i].kind != py::tok::op || t[i].text != "@") continue;
      std::size_t j = i + 1;
      const std::string deco = dotted(j);
      if (deco != "triton.jit" && deco != "triton.autotune" && deco != "triton.heuristics") continue;
      const int deco_line = t[i].line;
      j = skip_parens(j);
      while (j < t.size() && t[j].text == "@") {
        ++j;
        dotted(j);
        j = skip_parens(j);
      }
      if (j + 1 < t.size() && t[j].text == "def" && t[j + 1].kind == py::tok::name) {
        b.kernels.push_back({t[j + 1].text, rel, t[j + 1].line});
        if (b.line == 0) b.line = deco_line;
        i = j + 1;
      }
    }
    if (!b.kernels.empty()) s.fp.kernel_builds.push_back(std::move(b));
  }
}

void resolve_kernel_builds(scan_state& s) {
  for (auto& b : s.fp.kernel_builds) {
    if (b.kind == "triton" || b.kind == "jit_load_inline") continue;
    std::set<std::string> seen;
    std::vector<std::string> queue(b.sources.begin(), b.sources.end());
    std::set<std::pair<std::string, int>> have;
    std::string content;
    while (!queue.empty()) {
      const std::string f = queue.front();
      queue.erase(queue.begin());
      if (!seen.insert(f).second || seen.size() > 64) continue;
      if (!text::read_file((s.root / f).string(), content, s.max_file_bytes)) continue;
      if (device_source(f)) {
        for (auto& k : global_kernels(content, f, 1))
          if (have.insert({k.file, k.line}).second) b.kernels.push_back(std::move(k));
      }
      // Local headers (#include "x.cuh") can define the kernels a .cu/.cpp source launches.
      for (const auto line : text::lines(content)) {
        const auto t = text::trim(line);
        if (!text::starts_with(t, "#include") && !text::starts_with(t, "# include")) continue;
        const auto q1 = t.find('"');
        const auto q2 = q1 == std::string_view::npos ? q1 : t.find('"', q1 + 1);
        if (q2 == std::string_view::npos) continue;
        const std::string inc(t.substr(q1 + 1, q2 - q1 - 1));
        const std::string p = normalise(dir_of(f).empty() ? inc : dir_of(f) + "/" + inc);
        if (s.files.count(p) && device_source(p)) queue.push_back(p);
      }
    }
  }
}

}  // namespace r2r::planning::detail
