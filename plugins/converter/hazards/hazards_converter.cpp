// SPDX-License-Identifier: MIT
#include "hazards_converter.hpp"

#include "hazard_catalog.hpp"
#include "hazard_scanner.hpp"

#include <r2r/convert/file_io.hpp>
#include <r2r/convert/hipify.hpp>
#include <r2r/convert/transform_files.hpp>

namespace r2r::plugins::converter {
namespace {

int severity_rank(std::string_view s) {
  if (s == "note") return 0;
  if (s == "warning") return 1;
  if (s == "error") return 2;
  return -1;
}

}  // namespace

void from_json(const nlohmann::json& j, hazards_converter::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object");
  const hazards_converter::config defaults;
  c.source_extensions = j.value("source_extensions", defaults.source_extensions);
  c.max_file_bytes = j.value("max_file_bytes", defaults.max_file_bytes);
  c.min_severity = j.value("min_severity", defaults.min_severity);
  c.disabled_rules = j.value("disabled_rules", defaults.disabled_rules);
}

hazards_converter::hazards_converter(const config& cfg, const sdk::host& host)
    : config_(cfg), min_rank_(severity_rank(cfg.min_severity)), host_(host) {
  if (min_rank_ < 0) {
    throw sdk::invalid_argument("min_severity must be note, warning or error; found '" + cfg.min_severity + "'");
  }
  for (const auto& id : cfg.disabled_rules) {
    bool known = false;
    for (const auto& rule : hazard_rules()) known = known || rule.id == id;
    if (!known) throw sdk::invalid_argument("disabled_rules: no hazard rule '" + id + "' (see the plugin's README)");
    disabled_.insert(id);
  }
}

sdk::converter::convert_response hazards_converter::convert(const sdk::converter::convert_request& request,
                                                            sdk::call_context& ctx) {
  plugins::converter::check_root(request.root, "root");
  for (const auto& f : request.files) plugins::converter::check_relative_path(f.path);
  sdk::converter::convert_response response;
  response.converter = "r2r.converter.hazards";
  for (const auto& f : request.files) {
    ctx.throw_if_cancelled();
    if (plugins::converter::classify_path(f.path, config_.source_extensions) != plugins::converter::file_kind::source) {
      sdk::converter::file_result skipped;
      skipped.path = f.path;
      skipped.status = "skipped";
      response.files.push_back(std::move(skipped));
      continue;
    }
    const auto input = plugins::converter::load_input(f, request.root, config_.max_file_bytes);
    if (input.problem) {
      response.files.push_back(plugins::converter::bad_input_result(f.path, *input.problem));
      continue;
    }
    auto scan = scan_hazards(f.path, input.text);
    sdk::converter::file_result result;
    result.path = f.path;
    result.status = scan.failed ? "error" : "unchanged";
    result.diagnostics = std::move(scan.diagnostics);
    std::int64_t kept = 0;
    for (auto& h : scan.hazards) {
      if (severity_rank(h.severity) < min_rank_ || disabled_.count(h.rule) != 0) continue;
      response.hazards.push_back(std::move(h));
      ++kept;
    }
    result.stats["hazards"] = kept;
    result.stats["bytes_in"] = static_cast<std::int64_t>(input.text.size());
    if (request.return_text.value_or(false)) result.text = input.text;
    response.files.push_back(std::move(result));
  }
  plugins::converter::summarize(response);
  R2R_LOG(host_, info, "hazards: " << response.hazards.size() << " in " << response.files.size() << " files");
  return response;
}

}  // namespace r2r::plugins::converter
