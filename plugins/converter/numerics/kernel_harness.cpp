// SPDX-License-Identifier: MIT
#include "kernel_harness.hpp"

#include <cmath>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace r2r::plugins::converter::numerics {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

kernel_param parse_param(const std::string& kernel, const std::string& text) {
  std::string t = text;
  const auto star = t.find('*');
  kernel_param p;
  p.pointer = star != std::string::npos;
  if (p.pointer && t.find('*', star + 1) != std::string::npos) {
    throw std::invalid_argument("kernel '" + kernel + "': parameter '" + trim(text) +
                                "' is a pointer to pointer; expected scalars or pointers to scalars; give the kernel a "
                                "flat buffer or test it through a wrapper kernel");
  }
  std::string before = p.pointer ? t.substr(0, star) : t;
  std::string after = p.pointer ? t.substr(star + 1) : std::string();
  std::vector<std::string> type_words;
  std::string name;
  for (const auto& w : words(before)) {
    if (w == "const") {
      p.is_const = true;
    } else if (w != "__restrict__" && w != "__restrict" && w != "restrict" && w != "volatile") {
      type_words.push_back(w);
    }
  }
  for (const auto& w : words(after))
    if (w != "const" && w != "__restrict__" && w != "__restrict" && w != "restrict") name = w;
  if (!p.pointer) {
    if (type_words.size() < 2) {
      throw std::invalid_argument("kernel '" + kernel + "': cannot read parameter '" + trim(text) +
                                  "'; expected 'TYPE NAME'");
    }
    name = type_words.back();
    type_words.pop_back();
  }
  std::string ctype;
  for (const auto& w : type_words) ctype += (ctype.empty() ? "" : " ") + w;
  const auto type = dtype_of_ctype(ctype);
  if (!type || name.empty()) {
    throw std::invalid_argument("kernel '" + kernel + "': parameter '" + trim(text) + "' has type '" + ctype +
                                "'; expected float, double, int, unsigned int, long long, unsigned long long or "
                                "(u)int32_t/(u)int64_t (or pointers to them); wrap the kernel for the harness");
  }
  p.type = *type;
  p.name = name;
  return p;
}

std::array<std::int64_t, 3> shape(const nlohmann::json& spec, const char* key) {
  const auto it = spec.find(key);
  if (it == spec.end()) {
    throw std::invalid_argument(std::string("harness spec: '") + key +
                                "' is missing; expected a positive integer or [x, y, z]");
  }
  std::array<std::int64_t, 3> out{1, 1, 1};
  if (it->is_number_integer()) {
    out[0] = it->get<std::int64_t>();
  } else if (it->is_array() && !it->empty() && it->size() <= 3) {
    for (std::size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_number_integer())
        throw std::invalid_argument(std::string("harness spec: '") + key + "' must hold integers");
      out[i] = (*it)[i].get<std::int64_t>();
    }
  } else {
    throw std::invalid_argument(std::string("harness spec: '") + key + "' is " + it->dump() +
                                "; expected a positive integer or [x, y, z]");
  }
  for (auto v : out)
    if (v < 1 || v > 65535)
      throw std::invalid_argument(std::string("harness spec: '") + key + "' dimensions must be 1..65535, found " +
                                  it->dump());
  return out;
}

}  // namespace

std::string to_string(dtype t) {
  switch (t) {
    case dtype::f32:
      return "f32";
    case dtype::f64:
      return "f64";
    case dtype::i32:
      return "i32";
    case dtype::u32:
      return "u32";
    case dtype::i64:
      return "i64";
    case dtype::u64:
      return "u64";
  }
  return "?";
}

std::optional<dtype> parse_dtype(const std::string& name) {
  for (dtype t : {dtype::f32, dtype::f64, dtype::i32, dtype::u32, dtype::i64, dtype::u64})
    if (to_string(t) == name) return t;
  return std::nullopt;
}

std::optional<dtype> dtype_of_ctype(const std::string& ctype) {
  static const std::map<std::string, dtype> types{{"float", dtype::f32},
                                                  {"double", dtype::f64},
                                                  {"int", dtype::i32},
                                                  {"signed int", dtype::i32},
                                                  {"int32_t", dtype::i32},
                                                  {"unsigned", dtype::u32},
                                                  {"unsigned int", dtype::u32},
                                                  {"uint32_t", dtype::u32},
                                                  {"long long", dtype::i64},
                                                  {"long long int", dtype::i64},
                                                  {"int64_t", dtype::i64},
                                                  {"unsigned long long", dtype::u64},
                                                  {"unsigned long long int", dtype::u64},
                                                  {"uint64_t", dtype::u64}};
  const auto it = types.find(ctype);
  if (it == types.end()) return std::nullopt;
  return it->second;
}

std::string ctype_of(dtype t) {
  switch (t) {
    case dtype::f32:
      return "float";
    case dtype::f64:
      return "double";
    case dtype::i32:
      return "int";
    case dtype::u32:
      return "unsigned int";
    case dtype::i64:
      return "long long";
    case dtype::u64:
      return "unsigned long long";
  }
  return "?";
}

bool is_float(dtype t) {
  return t == dtype::f32 || t == dtype::f64;
}

kernel_signature parse_signature(const std::string& source, const std::string& kernel) {
  const std::regex head("__global__\\s+(__launch_bounds__\\s*\\([^)]*\\)\\s+)?void\\s+" + kernel + "\\s*\\(");
  std::smatch m;
  if (!std::regex_search(source, m, head)) {
    throw std::invalid_argument("kernel '" + kernel + "' not found; expected '__global__ void " + kernel +
                                "(...)' in the source; check the harness spec's \"kernel\"");
  }
  const auto open = static_cast<std::size_t>(m.position(0) + m.length(0));
  const auto close = source.find(')', open);
  if (close == std::string::npos) throw std::invalid_argument("kernel '" + kernel + "': unterminated parameter list");
  kernel_signature sig;
  sig.name = kernel;
  const std::string list = source.substr(open, close - open);
  if (trim(list).empty() || trim(list) == "void") return sig;
  std::size_t start = 0;
  while (true) {
    const auto comma = list.find(',', start);
    sig.params.push_back(
        parse_param(kernel, list.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return sig;
}

harness_spec bind_spec(const nlohmann::json& spec, const kernel_signature& signature) {
  if (!spec.is_object()) throw std::invalid_argument("harness spec: expected a JSON object");
  harness_spec h;
  h.kernel = signature.name;
  if (spec.value("kernel", std::string()) != signature.name) {
    throw std::invalid_argument("harness spec: \"kernel\" is " + spec.value("kernel", nlohmann::json()).dump() +
                                "; expected \"" + signature.name + "\"");
  }
  h.grid = shape(spec, "grid");
  h.block = shape(spec, "block");
  if (h.block[0] * h.block[1] * h.block[2] > 1024) {
    throw std::invalid_argument("harness spec: block has more than 1024 threads; use a smaller block");
  }
  const nlohmann::json args = spec.value("args", nlohmann::json::object());
  if (!args.is_object())
    throw std::invalid_argument("harness spec: \"args\" must be an object keyed by parameter name");
  for (const auto& [key, value] : args.items()) {
    bool known = false;
    for (const auto& p : signature.params) known = known || p.name == key;
    if (!known) {
      throw std::invalid_argument("harness spec: \"args\" names '" + key + "', which kernel '" + signature.name +
                                  "' does not have; remove it or fix the name");
    }
  }
  for (const auto& p : signature.params) {
    const auto it = args.find(p.name);
    if (it == args.end() || !it->is_object()) {
      throw std::invalid_argument("harness spec: \"args\" has no object for parameter '" + p.name + "'; add " +
                                  (p.pointer ? "{\"count\": N}" : "{\"value\": V}"));
    }
    arg_spec a;
    a.name = p.name;
    a.param = p;
    if (p.pointer) {
      a.count = it->value("count", std::int64_t{0});
      if (a.count < 1 || a.count > (std::int64_t{1} << 24)) {
        throw std::invalid_argument("harness spec: args." + p.name + ".count must be 1..16777216, found " +
                                    it->value("count", nlohmann::json()).dump());
      }
      if (const auto f = it->find("fill"); f != it->end()) {
        a.fill.kind = f->value("kind", std::string());
        a.fill.seed = f->value("seed", std::uint64_t{1});
        a.fill.min = f->value("min", 0.0);
        a.fill.max = f->value("max", 1.0);
        if (a.fill.kind != "uniform" && a.fill.kind != "iota" && a.fill.kind != "zero") {
          throw std::invalid_argument("harness spec: args." + p.name + ".fill.kind is '" + a.fill.kind +
                                      "'; expected uniform, iota or zero");
        }
        if (!(a.fill.min <= a.fill.max))
          throw std::invalid_argument("harness spec: args." + p.name + ".fill: min > max");
      } else if (p.is_const) {
        throw std::invalid_argument("harness spec: input args." + p.name +
                                    " has no \"fill\"; add {\"kind\": \"uniform\", ...}");
      }
    } else {
      const auto v = it->find("value");
      if (v == it->end() || !v->is_number()) {
        throw std::invalid_argument("harness spec: args." + p.name + ".value must be a number");
      }
      a.value = v->get<double>();
      if (!is_float(p.type) && std::floor(a.value) != a.value) {
        throw std::invalid_argument("harness spec: args." + p.name + ".value must be an integer for " +
                                    to_string(p.type));
      }
    }
    h.args.push_back(a);
  }
  h.tolerance = spec.value("tolerance", nlohmann::json::object());
  return h;
}

}  // namespace r2r::plugins::converter::numerics
