// SPDX-License-Identifier: MIT
#include "metrics.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <regex>

namespace r2r::verifiers::mode2 {
namespace {

/// A regex fragment matching `name` with '_', '-', ' ' interchangeable; other characters escaped.
std::string name_pattern(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (c == '_' || c == '-' || c == ' ')
      out += "[_\\- ]";
    else if (std::isalnum(static_cast<unsigned char>(c)))
      out += c;
    else {
      out += '\\';
      out += c;
    }
  }
  return out;
}

std::string format(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::optional<double> extract_metric(std::string_view log, const std::vector<std::string>& names) {
  static const std::string number = R"(([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*%?)";
  std::optional<double> last;
  std::size_t last_pos = 0;
  const std::string text(log);
  for (const auto& name : names) {
    if (name.empty()) continue;
    const std::string n = name_pattern(name);
    const std::regex after("(?:^|[^A-Za-z0-9_])\"?" + n + "\"?\\s*(?::|=|\\bis\\b)\\s*" + number, std::regex::icase);
    const std::regex before(number + "\\s+" + n + "(?![A-Za-z0-9_])", std::regex::icase);
    for (const auto* re : {&after, &before}) {
      for (std::sregex_iterator it(text.begin(), text.end(), *re), end; it != end; ++it) {
        const std::size_t pos = static_cast<std::size_t>(it->position(0) + it->length(0));
        if (!last || pos >= last_pos) {
          last = std::stod((*it)[1]);
          last_pos = pos;
        }
      }
    }
  }
  return last;
}

tolerance default_tolerance(std::string_view metric_class) {
  if (metric_class == "accuracy") return {"absolute", 3};
  if (metric_class == "loss") return {"relative", 0.05};
  if (metric_class == "throughput" || metric_class == "latency") return {"relative", 0.25};
  return {"relative", 0.15};  // ratio and everything else
}

comparison compare(double observed, double target, const tolerance& tol, std::string_view direction) {
  comparison c;
  const double diff = observed - target;
  if (tol.kind == "absolute") {
    c.deviation = std::fabs(diff);
  } else {
    c.deviation = target == 0 ? (diff == 0 ? 0 : INFINITY) : std::fabs(diff) / std::fabs(target);
  }
  c.within = c.deviation <= tol.value + 1e-12;
  const bool better = direction == "lower" ? diff < 0 : diff > 0;
  const std::string dev = tol.kind == "absolute" ? format(c.deviation) : format(c.deviation * 100) + " %";
  const std::string lim = tol.kind == "absolute" ? format(tol.value) : format(tol.value * 100) + " %";
  c.detail = "observed " + format(observed) + ", target " + format(target) + ": off by " + dev + " (tolerance " + lim +
             " " + tol.kind + ")";
  if (!c.within && better) c.detail += "; better than the target beyond tolerance, which is not a reproduction";
  return c;
}

}  // namespace r2r::verifiers::mode2
