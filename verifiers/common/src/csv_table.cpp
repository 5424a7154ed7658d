// SPDX-License-Identifier: MIT
#include <r2r/verify/csv_table.hpp>
#include <r2r/verify/text.hpp>

namespace r2r::plugins::verifier {

std::optional<std::size_t> csv_table::column(std::initializer_list<std::string_view> names) const {
  for (const auto name : names) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
  }
  for (const auto name : names) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (lower(header[i]) == lower(name)) return i;
  }
  return std::nullopt;
}

csv_table parse_csv_table(std::string_view text, std::string_view tool) {
  csv_table table;
  bool have_header = false;
  std::size_t line_no = 0;
  for (const auto raw : split_lines(strip_source_header(text))) {
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty() || line.starts_with("# ")) {
      if (have_header && !table.rows.empty() && line.empty()) break;  // end of the first block
      continue;
    }
    if (!have_header) {
      table.header = split_csv(line, tool);
      if (table.header.size() < 2) {
        throw parse_error(tool, "a CSV header line with at least two comma-separated columns", excerpt(line),
                          "Capture the output with its CSV option (--csv / --format=csv / --output-format csv)");
      }
      have_header = true;
      continue;
    }
    auto fields = split_csv(line, tool);
    if (fields.size() != table.header.size()) {
      throw parse_error(
          tool,
          std::to_string(table.header.size()) + " fields per row (as in the header) at line " + std::to_string(line_no),
          std::to_string(fields.size()) + " in " + excerpt(line),
          "The file looks truncated or mixes two outputs; capture it again in full");
    }
    table.rows.push_back(std::move(fields));
  }
  if (!have_header) {
    throw parse_error(tool, "a CSV header line", "an empty input",
                      "Check that the command ran and wrote its CSV output");
  }
  return table;
}

}  // namespace r2r::plugins::verifier
