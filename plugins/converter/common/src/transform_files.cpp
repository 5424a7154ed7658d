// SPDX-License-Identifier: MIT
#include <r2r/convert/transform_files.hpp>
#include <r2r/convert/unified_diff.hpp>

#include <map>
#include <optional>
#include <vector>

namespace r2r::plugins::converter {

sdk::converter::convert_response transform_files(const sdk::converter::convert_request& request,
                                                 const transform_options& options, const transform_fn& transform,
                                                 const std::function<void()>& throw_if_cancelled,
                                                 const prepare_fn& prepare) {
  check_root(request.root, "root");
  check_root(request.out_root, "out_root");
  check_root(request.base_root, "base_root");
  for (const auto& f : request.files) check_relative_path(f.path);  // reject the request before any work
  const bool return_text = request.return_text.value_or(request.out_root.empty());

  sdk::converter::convert_response response;
  response.converter = options.converter_id;
  response.files.resize(request.files.size());
  // Phase 1: classify and load; a file that is skipped or bad gets its result now.
  std::vector<std::optional<loaded_input>> inputs(request.files.size());
  std::vector<file_kind> kinds(request.files.size(), file_kind::other);
  std::vector<const loaded_input*> valid;
  for (std::size_t i = 0; i < request.files.size(); ++i) {
    if (throw_if_cancelled) throw_if_cancelled();
    const auto& f = request.files[i];
    response.files[i].path = f.path;
    kinds[i] = classify_path(f.path, options.source_extensions);
    if (kinds[i] == file_kind::other || (kinds[i] == file_kind::build && !options.build_files)) {
      response.files[i].status = "skipped";
      continue;
    }
    inputs[i] = load_input(f, request.root, options.max_file_bytes);
    if (inputs[i]->problem) {
      response.files[i] = bad_input_result(f.path, *inputs[i]->problem);
      inputs[i].reset();
      continue;
    }
    valid.push_back(&*inputs[i]);
  }
  if (prepare) prepare(valid);
  // Phase 2: transform, diff, write.
  for (std::size_t i = 0; i < request.files.size(); ++i) {
    if (!inputs[i]) continue;
    if (throw_if_cancelled) throw_if_cancelled();
    const loaded_input& input = *inputs[i];
    conversion converted = transform(input, kinds[i]);
    sdk::converter::file_result& result = response.files[i];
    result.stats = std::move(converted.stats);
    result.diagnostics = std::move(converted.diagnostics);
    if (converted.failed) {
      result.status = "error";
      continue;
    }
    result.status = converted.changed ? "converted" : "unchanged";
    if (converted.changed) {
      const auto base = read_base(request.base_root, input.path, options.max_file_bytes);
      result.diff = unified_diff(input.path, base ? *base : input.text, converted.text);
      if (!request.out_root.empty()) write_output(request.out_root, input.path, converted.text);
    }
    if (return_text) result.text = std::move(converted.text);
    inputs[i].reset();  // release the input text as soon as it is done
  }
  summarize(response);
  return response;
}

void summarize(sdk::converter::convert_response& response) {
  auto& s = response.summary;
  s["files"] = static_cast<std::int64_t>(response.files.size());
  for (const char* key :
       {"converted", "unchanged", "skipped", "error", "diagnostics_error", "diagnostics_warning", "diagnostics_note"}) {
    s.emplace(key, 0);
  }
  for (const auto& f : response.files) {
    ++s[f.status];
    for (const auto& d : f.diagnostics) ++s["diagnostics_" + d.severity];
    for (const auto& [key, value] : f.stats) s[key] += value;
  }
  // Response-level counts replace any per-file statistic of the same name (no double counting).
  std::map<std::string, std::int64_t> counts;
  if (!response.hazards.empty()) {
    counts["hazards"] = static_cast<std::int64_t>(response.hazards.size());
    for (const auto& h : response.hazards) ++counts["hazards_" + h.severity];
  }
  if (!response.builds.empty()) {
    counts["builds"] = static_cast<std::int64_t>(response.builds.size());
    for (const auto& b : response.builds) ++counts["builds_" + b.status];
  }
  for (auto& [key, value] : counts) s[key] = value;
}

}  // namespace r2r::plugins::converter
