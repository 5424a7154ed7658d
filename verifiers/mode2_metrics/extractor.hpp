// SPDX-License-Identifier: MIT
// Mode 2 metric extraction by rule (docs/verification.md, "Mode 2"). The plan's metric carries an
// extractor; what it finds is either one number or a refusal that lists the candidates, never a
// guess. Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier::mode2 {

/// A value printed next to the metric's label.
struct candidate {
  double value = 0;
  bool percent = false;   // printed with a '%' sign
  std::string qualifier;  // the word before the label: test, train, val, top-1, best, final... ("" none)
  std::string text;       // the line it was printed on, trimmed (first 120 characters)
  int line = 0;           // 1-based line of the log
};

struct extraction {
  std::optional<double> value;        // set only when the rule found exactly one reading
  std::vector<candidate> candidates;  // everything the rule saw (for the refusal and the evidence)
  std::string rule;                   // how the value was read, in words
  std::string refusal;                // why no value: ambiguous, malformed extractor, nothing printed
};

/// How the plan says to read the metric (plan.metric.extractor):
///   {"kind": "label", "label": "accuracy", "qualifier": "test"}  (qualifier optional)
///   {"kind": "regex", "pattern": "test acc(?:uracy)?: ([0-9.]+)"}  (exactly one capture group,
///      anchored to a literal label before it)
///   {"kind": "json", "file": "results.json", "key": "test.accuracy"}
///   {"kind": "csv", "file": "metrics.csv", "column": "test_acc"}  (the last row)
struct extractor {
  std::string kind = "label";
  std::string label, qualifier, pattern, file, key, column;
};
/// Reads plan.metric.extractor; without one, a label extractor on plan.metric.name.
/// Throws std::invalid_argument with an actionable message for a malformed extractor.
extractor extractor_from_metric(const nlohmann::json& metric);

/// Label rule over a log: `label: v`, `label = v`, `label is v`, `"label": v`, `label v` (and
/// `v label` only on lines where no value follows the label). Refuses when the readings differ in
/// qualifier (test vs train, top-1 vs top-5), mix '%' with plain numbers, carry '%' while the plan's
/// unit is not '%', or put two different values on one line. Among readings of one kind the last
/// printed wins (a training log's final epoch).
extraction extract_by_label(std::string_view log, const std::vector<std::string>& labels, std::string_view qualifier,
                            std::string_view plan_unit);
/// Regex rule: the last match's capture group; refused when the pattern does not compile, has not
/// exactly one group, has no literal label before the group, or the group is not a number.
extraction extract_by_regex(std::string_view log, const std::string& pattern);
/// JSON file rule: the number at dotted `key` ("test.accuracy", "history.-1.acc" for the last element).
extraction extract_from_json(std::string_view text, const std::string& key);
/// CSV file rule: `column` of the last data row.
extraction extract_from_csv(std::string_view text, const std::string& column);

/// The refusal as one line: the reason and up to six candidates with their lines.
std::string describe_refusal(const extraction& e);

}  // namespace r2r::plugins::verifier::mode2
