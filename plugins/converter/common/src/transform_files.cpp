// SPDX-License-Identifier: MIT
#include <r2r/convert/transform_files.hpp>
#include <r2r/convert/unified_diff.hpp>

#include <map>

namespace r2r::convert {

sdk::converter::convert_response transform_files(const sdk::converter::convert_request& request,
                                                 const transform_options& options, const transform_fn& transform,
                                                 const std::function<void()>& throw_if_cancelled) {
  check_root(request.root, "root");
  check_root(request.out_root, "out_root");
  check_root(request.base_root, "base_root");
  for (const auto& f : request.files) check_relative_path(f.path);  // reject the request before any work
  const bool return_text = request.return_text.value_or(request.out_root.empty());

  sdk::converter::convert_response response;
  response.converter = options.converter_id;
  response.files.reserve(request.files.size());
  for (const auto& f : request.files) {
    if (throw_if_cancelled) throw_if_cancelled();
    const file_kind kind = classify_path(f.path, options.source_extensions);
    if (kind == file_kind::other || (kind == file_kind::build && !options.build_files)) {
      sdk::converter::file_result skipped;
      skipped.path = f.path;
      skipped.status = "skipped";
      response.files.push_back(std::move(skipped));
      continue;
    }
    loaded_input input = load_input(f, request.root, options.max_file_bytes);
    if (input.problem) {
      response.files.push_back(bad_input_result(f.path, *input.problem));
      continue;
    }
    conversion converted = transform(input, kind);
    sdk::converter::file_result result;
    result.path = f.path;
    result.stats = std::move(converted.stats);
    result.diagnostics = std::move(converted.diagnostics);
    if (converted.failed) {
      result.status = "error";
      response.files.push_back(std::move(result));
      continue;
    }
    result.status = converted.changed ? "converted" : "unchanged";
    if (converted.changed) {
      const auto base = read_base(request.base_root, f.path, options.max_file_bytes);
      result.diff = unified_diff(f.path, base ? *base : input.text, converted.text);
      if (!request.out_root.empty()) write_output(request.out_root, f.path, converted.text);
    }
    if (return_text) result.text = std::move(converted.text);
    response.files.push_back(std::move(result));
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

}  // namespace r2r::convert
