// SPDX-License-Identifier: MIT
#include <r2r/convert/lexer.hpp>
#include <r2r/convert/torch_minmax.hpp>

#include <vector>

namespace r2r::plugins::converter {
namespace {

bool is_pytorch_kernel_file(std::string_view path) {
  return path.ends_with(".cu") || path.ends_with(".cuh");
}

bool is_pytorch_header(std::string_view spelled) {
  if (spelled.size() < 2) return false;
  const std::string_view inner = spelled.substr(1, spelled.size() - 2);
  return inner.starts_with("torch/") || inner.starts_with("ATen/") || inner.starts_with("c10/");
}

}  // namespace

idiom_port port_torch_minmax(std::string_view path, std::string_view text) {
  idiom_port out;
  out.text = std::string(text);
  if (!is_pytorch_kernel_file(path)) return out;
  // Necessary conditions as byte searches, so the common file (no PyTorch include, or no min/max)
  // is not lexed a second time: a PyTorch header name holds one of these prefixes, and a call
  // `std::max(`/`std::min(` holds its name.
  const auto has = [text](std::string_view needle) { return text.find(needle) != std::string_view::npos; };
  if (!has("torch/") && !has("ATen/") && !has("c10/")) return out;
  if (!has("max") && !has("min")) return out;
  lexer lx(text);
  std::vector<token> code;  // identifiers and punctuation outside directives, comments and literals
  bool pytorch = false;
  for (token t = lx.next(); t.kind != token_kind::end_of_file; t = lx.next()) {
    if (t.kind == token_kind::error) return out;
    if (t.kind == token_kind::header_name && !t.in_skipped_block && lx.directive_name() == "include" &&
        is_pytorch_header(lx.text_of(t))) {
      pytorch = true;
    }
    if (t.in_directive || t.in_skipped_block) continue;
    if (t.kind == token_kind::identifier || t.kind == token_kind::punct) code.push_back(t);
  }
  if (!pytorch) return out;
  std::string result;
  std::size_t copied = 0;
  std::int64_t ported = 0;
  for (std::size_t i = 0; i + 3 < code.size(); ++i) {
    const std::string_view name = lx.text_of(code[i + 2]);
    if (lx.text_of(code[i]) != "std" || lx.text_of(code[i + 1]) != "::" || (name != "max" && name != "min") ||
        lx.text_of(code[i + 3]) != "(") {
      continue;
    }
    // `::std::max(` is wrapped whole: PyTorch would make it `::::max(`.
    const bool rooted = i > 0 && lx.text_of(code[i - 1]) == "::";
    const std::size_t begin = rooted ? code[i - 1].begin : code[i].begin;
    const std::size_t end = code[i + 2].end;
    result.append(text.substr(copied, begin - copied));
    result += '(';
    result.append(text.substr(begin, end - begin));
    result += ')';
    copied = end;
    ++ported;
    sdk::converter::diagnostic d;
    d.file = std::string(path);
    d.line = code[i].line;
    d.column = code[i].column;
    d.severity = "note";
    d.category = "ported";
    d.name = "std::" + std::string(name);
    d.message = "ported: std::" + std::string(name) + "( -> (std::" + std::string(name) +
                ")( so that PyTorch's hipify (CUDAExtension on ROCm) does not make it ::" + std::string(name) +
                "(, which takes two arguments and is not constexpr in HIP";
    out.diagnostics.push_back(std::move(d));
    i += 3;
  }
  if (ported == 0) return out;
  result.append(text.substr(copied));
  out.text = std::move(result);
  out.stats["idioms_ported"] = ported;
  return out;
}

}  // namespace r2r::plugins::converter
