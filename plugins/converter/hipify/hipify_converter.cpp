// SPDX-License-Identifier: MIT
#include "hipify_converter.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string_view>

namespace r2r::plugins::converter {
namespace {

plugins::converter::version_code parse_target(const std::string& text, const char* where) {
  if (text.empty()) return 0;
  const auto v = plugins::converter::parse_version(text);
  if (!v) {
    throw sdk::invalid_argument(std::string(where) + ": expected a ROCm release like \"6.2\" or \"6.2.1\", found \"" +
                                text + "\"");
  }
  return *v;
}

std::string directory_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash + 1));
}

}  // namespace

void from_json(const nlohmann::json& j, hipify_converter::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object");
  const hipify_converter::config defaults;
  c.rocm_version = j.value("rocm_version", defaults.rocm_version);
  c.source_extensions = j.value("source_extensions", defaults.source_extensions);
  c.convert_build_files = j.value("convert_build_files", defaults.convert_build_files);
  c.max_file_bytes = j.value("max_file_bytes", defaults.max_file_bytes);
  c.report_unknown_names = j.value("report_unknown_names", defaults.report_unknown_names);
  c.ignore_names = j.value("ignore_names", defaults.ignore_names);
}

hipify_converter::hipify_converter(const config& cfg, const sdk::host& host) : host_(host) {
  options_.target_rocm = parse_target(cfg.rocm_version, "rocm_version");
  options_.report_unknown_names = cfg.report_unknown_names;
  options_.ignore_names.insert(cfg.ignore_names.begin(), cfg.ignore_names.end());
  transform_.converter_id = "r2r.converter.hipify";
  transform_.source_extensions = cfg.source_extensions;
  transform_.build_files = cfg.convert_build_files;
  transform_.max_file_bytes = cfg.max_file_bytes;
}

sdk::converter::convert_response hipify_converter::convert(const sdk::converter::convert_request& request,
                                                           sdk::call_context& ctx) {
  plugins::converter::hipify_options options = options_;
  if (!request.target.rocm.empty()) options.target_rocm = parse_target(request.target.rocm, "target.rocm");

  // A quoted include is the project's own header when that file is in the request or under root,
  // relative to the including file's directory or to the project root; an angle-bracket one
  // (cuda-samples' <helper_cuda.h>, found on -I Common/) when a file of the request ends in /NAME.
  std::set<std::string, std::less<>> request_paths;
  for (const auto& f : request.files) request_paths.insert(f.path);
  const std::string root = request.root;
  options.include_exists = [&request_paths, root](std::string_view include, std::string_view including) {
    if (include.size() > 2 && include.front() == '<' && include.back() == '>') {
      const std::string tail = "/" + std::string(include.substr(1, include.size() - 2));
      return std::any_of(request_paths.begin(), request_paths.end(), [&tail](const std::string& p) {
        return p.size() > tail.size() && p.compare(p.size() - tail.size(), tail.size(), tail) == 0;
      });
    }
    const std::string candidates[] = {directory_of(including) + std::string(include), std::string(include)};
    for (const auto& c : candidates) {
      if (request_paths.count(c) != 0) return true;
      std::error_code ec;
      if (!root.empty() && std::filesystem::is_regular_file(std::filesystem::path(root) / c, ec)) return true;
    }
    return false;
  };

  if (!request.root.empty()) {
    const auto& macros = project_macros(request.root, ctx);
    options.project_names.insert(macros.begin(), macros.end());
  }
  auto response = plugins::converter::transform_files(
      request, transform_,
      [&options](const plugins::converter::loaded_input& input, plugins::converter::file_kind kind) {
        return kind == plugins::converter::file_kind::build
                   ? plugins::converter::convert_build_file(input.path, input.text)
                   : plugins::converter::convert_source(input.path, input.text, options);
      },
      [&ctx] { ctx.throw_if_cancelled(); },
      [&options](const std::vector<const plugins::converter::loaded_input*>& inputs) {
        // Macros any file of the request defines are the project's, not unknown CUDA names.
        for (const auto* input : inputs) plugins::converter::collect_defined_names(input->text, options.project_names);
      });
  R2R_LOG(host_, info,
          "hipify: " << response.summary["files"] << " files, " << response.summary["converted"] << " converted, "
                     << response.summary["diagnostics_error"] << " errors left for review");
  return response;
}

const std::set<std::string, std::less<>>& hipify_converter::project_macros(const std::string& root,
                                                                           sdk::call_context& ctx) {
  if (auto it = macros_by_root_.find(root); it != macros_by_root_.end()) return it->second;
  std::set<std::string, std::less<>> names;
  std::error_code ec;
  const std::filesystem::path base(root);
  for (auto it = std::filesystem::recursive_directory_iterator(base, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    // Links are never followed (issue 19: a link may point out of the project); FIFOs and
    // devices are not regular files.
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    const std::string rel = it->path().lexically_relative(base).generic_string();
    if (ec ||
        plugins::converter::classify_path(rel, transform_.source_extensions) != plugins::converter::file_kind::source)
      continue;
    ctx.throw_if_cancelled();
    const auto input = plugins::converter::load_input({rel, std::nullopt}, root, transform_.max_file_bytes);
    if (!input.problem) plugins::converter::collect_defined_names(input.text, names);
  }
  return macros_by_root_[root] = std::move(names);
}

}  // namespace r2r::plugins::converter
