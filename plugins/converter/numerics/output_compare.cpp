// SPDX-License-Identifier: MIT
#include "output_compare.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

namespace r2r::plugins::converter::numerics {
namespace {

using nlohmann::json;

/// A recorded element as a double; NaN and infinities come as strings.
std::optional<double> value_of(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

/// Maps a float's bits onto integers ordered like the floats (-0 and +0 both 0).
std::int64_t ordered(double v, dtype t) {
  if (t == dtype::f32) {
    const float f = static_cast<float>(v);
    std::int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::min()) - i : i;
  }
  std::int64_t i;
  std::memcpy(&i, &v, sizeof i);
  return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
}

std::int64_t ulp_distance(double a, double b, dtype t) {
  const std::int64_t x = ordered(a, t);
  const std::int64_t y = ordered(b, t);
  const std::uint64_t d = x >= y ? static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y)
                                 : static_cast<std::uint64_t>(y) - static_cast<std::uint64_t>(x);
  return d > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
             ? std::numeric_limits<std::int64_t>::max()
             : static_cast<std::int64_t>(d);
}

std::map<std::string, const json*> args_by_name(const json& doc, const std::string& role) {
  std::map<std::string, const json*> out;
  const auto args = doc.find("args");
  if (args == doc.end() || !args->is_array()) return out;
  for (const auto& a : *args)
    if (a.is_object() && a.value("role", std::string()) == role) out[a.value("name", std::string())] = &a;
  return out;
}

}  // namespace

tolerance default_tolerance(dtype t) {
  if (t == dtype::f32) return {1e-6, 1e-5, 4};
  if (t == dtype::f64) return {1e-12, 1e-12, 4};
  return {};
}

tolerance tolerance_for(dtype t, const json& overrides) {
  tolerance tol = default_tolerance(t);
  if (!overrides.is_object()) throw std::invalid_argument("tolerance: expected an object keyed by dtype");
  const auto it = overrides.find(to_string(t));
  if (it == overrides.end()) return tol;
  const auto field = [&](const char* key, double current) {
    const auto f = it->find(key);
    if (f == it->end()) return current;
    if (!f->is_number() || f->get<double>() < 0) {
      throw std::invalid_argument("tolerance." + to_string(t) + "." + key + " is " + f->dump() +
                                  "; expected a non-negative number");
    }
    return f->get<double>();
  };
  tol.abs = field("abs", tol.abs);
  tol.rel = field("rel", tol.rel);
  tol.ulp = static_cast<std::int64_t>(field("ulp", static_cast<double>(tol.ulp)));
  return tol;
}

std::string comparison::summary() const {
  std::ostringstream s;
  s << (passed ? "match" : "MISMATCH");
  for (const auto& p : problems) s << "\n  " << p;
  for (const auto& o : outputs) {
    s << "\n  " << o.name << " (" << to_string(o.type) << ", " << o.count << "): " << o.mismatches
      << " outside tolerance; max abs " << o.max_abs << ", max rel " << o.max_rel;
    if (is_float(o.type)) s << ", max ulp " << o.max_ulp;
    if (o.first_mismatch) {
      s << "; first at [" << *o.first_mismatch << "]: reference " << o.first_reference << ", got " << o.first_candidate;
    }
  }
  return s.str();
}

comparison compare_outputs(const json& reference, const json& candidate, const json& tolerance_overrides) {
  comparison c;
  if (!reference.is_object() || !candidate.is_object()) {
    c.problems.push_back("expected two driver output objects");
    return c;
  }
  if (reference.value("kernel", std::string()) != candidate.value("kernel", std::string())) {
    c.problems.push_back("different kernels: reference '" + reference.value("kernel", std::string()) + "', got '" +
                         candidate.value("kernel", std::string()) + "'");
  }
  const auto ref_in = args_by_name(reference, "in");
  const auto got_in = args_by_name(candidate, "in");
  for (const auto& [name, arg] : ref_in) {
    const auto it = got_in.find(name);
    if (it == got_in.end() || it->second->value("values", json()) != arg->value("values", json())) {
      c.problems.push_back("input '" + name +
                           "' differs: the runs were not fed the same data, so they cannot be compared");
    }
  }
  const auto ref_out = args_by_name(reference, "out");
  const auto got_out = args_by_name(candidate, "out");
  if (ref_out.empty()) c.problems.push_back("the reference has no output to compare");
  for (const auto& [name, arg] : ref_out) {
    const auto it = got_out.find(name);
    if (it == got_out.end()) {
      c.problems.push_back("output '" + name + "' is missing from the candidate");
      continue;
    }
    const auto type = parse_dtype(arg->value("dtype", std::string()));
    if (!type || it->second->value("dtype", std::string()) != to_string(*type)) {
      c.problems.push_back("output '" + name + "': dtypes differ or are unknown (reference " +
                           arg->value("dtype", json()).dump() + ", got " + it->second->value("dtype", json()).dump() +
                           ")");
      continue;
    }
    const json ref = arg->value("values", json::array());
    const json got = it->second->value("values", json::array());
    if (!ref.is_array() || !got.is_array() || ref.size() != got.size()) {
      c.problems.push_back("output '" + name + "': element counts differ (reference " + std::to_string(ref.size()) +
                           ", got " + std::to_string(got.size()) + ")");
      continue;
    }
    const tolerance tol = tolerance_for(*type, tolerance_overrides);
    arg_comparison a;
    a.name = name;
    a.type = *type;
    a.count = ref.size();
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const auto r = value_of(ref[i]);
      const auto g = value_of(got[i]);
      bool ok = false;
      if (r && g) {
        if (std::isnan(*r) || std::isnan(*g) || std::isinf(*r) || std::isinf(*g)) {
          ok = (std::isnan(*r) && std::isnan(*g)) || *r == *g;
        } else {
          const double diff = std::fabs(*g - *r);
          const double rel = *r == 0 ? (diff == 0 ? 0 : std::numeric_limits<double>::infinity()) : diff / std::fabs(*r);
          a.max_abs = std::max(a.max_abs, diff);
          a.max_rel = std::max(a.max_rel, rel);
          if (is_float(*type)) {
            const std::int64_t u = ulp_distance(*r, *g, *type);
            a.max_ulp = std::max(a.max_ulp, u);
            ok = diff <= tol.abs || diff <= tol.rel * std::fabs(*r) || u <= tol.ulp;
          } else {
            // Integers are recorded exactly; compare them as integers so 64-bit values do not round.
            ok = ref[i] == got[i] || (tol.abs > 0 && diff <= tol.abs);
          }
        }
      }
      if (!ok) {
        ++a.mismatches;
        if (!a.first_mismatch) {
          a.first_mismatch = i;
          a.first_reference = ref[i].dump();
          a.first_candidate = got[i].dump();
        }
      }
    }
    c.outputs.push_back(a);
  }
  c.passed = c.problems.empty();
  for (const auto& o : c.outputs) c.passed = c.passed && o.mismatches == 0;
  return c;
}

}  // namespace r2r::plugins::converter::numerics
