// SPDX-License-Identifier: MIT
#include "metrics.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>

namespace r2r::plugins::verifier::mode2 {
namespace {

std::string format(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

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

}  // namespace r2r::plugins::verifier::mode2
