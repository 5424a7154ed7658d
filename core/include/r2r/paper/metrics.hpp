// SPDX-License-Identifier: MIT
// Metric names and their classes: the Mode 2 tolerance classes of docs/verification.md (ROCm.md
// "Mode 2"). One table, used for paper candidates and README metrics alike. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace r2r::paper {

struct metric_class {
  const char* name;            // accuracy, loss, ratio, throughput, latency, other
  const char* direction;       // higher, lower
  const char* tolerance_kind;  // absolute (points), relative (fraction)
  double tolerance;
};

/// The class of a canonical metric name (accuracy, top-5, f1, bleu, rouge, rouge-l, miou, map, auc:
/// accuracy, ±3 points; loss, perplexity: ±5 %; speedup: ±15 %; throughput, latency: ±25 %; fid and
/// wer: lower is better, ±15 %; anything else: higher is better, ±15 %).
metric_class classify_metric(const std::string& metric);

/// A metric named in a table header or a sentence fragment ("Top-1 Acc. (%)", "BLEU", "PPL",
/// "Speed-up", "Latency (ms)"): the canonical name, the qualifier it carries (top-1, top-5, test,
/// val, train) and the unit in parentheses or implied ("%", "ms", "x").
struct metric_name {
  std::string metric;
  std::string qualifier;
  std::string unit;
};
std::optional<metric_name> recognise_metric(std::string_view text);

/// A number at the start of a table cell or phrase: "76.1", "76.1%", "2.3×", "1,234", "−0.5",
/// "76.1 ± 0.2", "**76.1**". Unit: "%", "x" or "". Nothing else may follow but a ± part or a
/// footnote mark.
struct number {
  double value = 0;
  std::string unit;
};
std::optional<number> parse_number_cell(std::string_view text);

/// Lower case and only letters and digits: "ResNet-50" -> "resnet50", "WMT'14 En-De" -> "wmt14ende".
std::string squash(std::string_view text);

}  // namespace r2r::paper
