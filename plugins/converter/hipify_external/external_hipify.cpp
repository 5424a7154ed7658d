// SPDX-License-Identifier: MIT
#include "external_hipify.hpp"

#include <r2r/convert/file_io.hpp>
#include <r2r/convert/scratch_dir.hpp>
#include <r2r/convert/subprocess.hpp>
#include <r2r/convert/transform_files.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace r2r::plugins::converter {
namespace {

namespace fs = std::filesystem;

plugins::converter::conversion tool_failure(const std::string& path, const std::string& text, std::string message,
                                            std::string hint) {
  plugins::converter::conversion c;
  c.failed = true;
  c.text = text;
  sdk::converter::diagnostic d;
  d.file = path;
  d.severity = "error";
  d.category = "tool";
  d.message = std::move(message);
  d.hint = std::move(hint);
  c.diagnostics.push_back(std::move(d));
  return c;
}

std::string first_line(const std::string& s) {
  const std::size_t eol = s.find('\n');
  std::string line = s.substr(0, eol);
  if (line.size() > 300) line.resize(300);
  return line;
}

}  // namespace

void from_json(const nlohmann::json& j, external_hipify::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object");
  const external_hipify::config d;
  c.tool = j.value("tool", d.tool);
  c.search_dirs = j.value("search_dirs", d.search_dirs);
  c.tool_args = j.value("tool_args", d.tool_args);
  c.clang_args = j.value("clang_args", d.clang_args);
  c.timeout_seconds = j.value("timeout_seconds", d.timeout_seconds);
  c.rocm_version = j.value("rocm_version", d.rocm_version);
  c.source_extensions = j.value("source_extensions", d.source_extensions);
  c.max_file_bytes = j.value("max_file_bytes", d.max_file_bytes);
}

external_hipify::external_hipify(const config& cfg, const sdk::host& host) : config_(cfg), host_(host) {
  if (cfg.tool != "auto" && cfg.tool != "hipify-perl" && cfg.tool != "hipify-clang") {
    throw sdk::invalid_argument("tool must be auto, hipify-perl or hipify-clang; found '" + cfg.tool + "'");
  }
  if (!cfg.rocm_version.empty()) {
    const auto v = plugins::converter::parse_version(cfg.rocm_version);
    if (!v)
      throw sdk::invalid_argument("rocm_version: expected a release like \"6.2\", found \"" + cfg.rocm_version + "\"");
    audit_.target_rocm = *v;
  }
  audit_.rewrite = false;
}

external_hipify::located_tool external_hipify::locate() const {
  std::vector<std::string> names;
  if (config_.tool == "auto") {
    names = {"hipify-perl", "hipify-clang"};
  } else {
    names = {config_.tool};
  }
  for (const auto& name : names) {
    if (auto path = plugins::converter::find_program(name, config_.search_dirs)) {
      located_tool t{name, *path, {}};
      plugins::converter::process_options o;
      o.argv = {*path, "--version"};
      o.timeout = std::chrono::seconds(30);
      const auto r = plugins::converter::run_process(o);
      if (r.ok()) t.version = first_line(r.out.empty() ? r.err : r.out);
      return t;
    }
  }
  std::string where;
  for (const auto& d : config_.search_dirs) where += d + ", ";
  std::string wanted;
  for (const auto& n : names) wanted += (wanted.empty() ? "" : " or ") + n;
  throw sdk::unavailable(wanted + " was not found in " + where +
                         "or $PATH. ROCm images ship them in /opt/rocm/bin; Debian 12 does not package them. Run this "
                         "converter inside a ROCm image, set search_dirs, or use r2r.converter.hipify");
}

plugins::converter::conversion external_hipify::run_tool(const located_tool& tool, const std::string& path,
                                                         const std::string& text, const std::string& scratch,
                                                         sdk::call_context& ctx) const {
  const fs::path input = fs::path(scratch) / "in" / path;
  const fs::path output = fs::path(scratch) / "out" / path;
  plugins::converter::write_output((fs::path(scratch) / "in").string(), path, text);
  fs::create_directories(output.parent_path());
  plugins::converter::process_options o;
  o.argv = {tool.path};
  o.argv.insert(o.argv.end(), config_.tool_args.begin(), config_.tool_args.end());
  o.argv.push_back(input.string());
  const bool clang = tool.name == "hipify-clang";
  if (clang) {
    o.argv.insert(o.argv.end(), {"-o", output.string(), "--"});
    o.argv.insert(o.argv.end(), config_.clang_args.begin(), config_.clang_args.end());
  }
  o.timeout = std::chrono::seconds(config_.timeout_seconds);
  o.max_output = config_.max_file_bytes * 2 + 4096;
  o.cancelled = [&ctx] { return ctx.cancelled(); };
  const auto r = plugins::converter::run_process(o);
  if (r.cancelled) throw sdk::cancelled();
  const std::string command = plugins::converter::command_line(o.argv);
  if (!r.started)
    return tool_failure(path, text, tool.name + " did not start: " + r.start_error, "check the installation");
  if (r.timed_out) {
    return tool_failure(path, text,
                        tool.name + " did not finish within " + std::to_string(config_.timeout_seconds) + " s",
                        "raise timeout_seconds or convert this file with r2r.converter.hipify");
  }
  if (r.exit_code != 0) {
    return tool_failure(
        path, text,
        tool.name + " failed (exit " + std::to_string(r.exit_code) + "): " + first_line(r.err) + " [" + command + "]",
        clang ? "hipify-clang needs a CUDA installation and the project's compile flags (clang_args)"
              : "check the file with the compiler; r2r.converter.hipify reports syntax problems");
  }
  plugins::converter::conversion c;
  if (clang) {
    std::ifstream in(output, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    c.text = s.str();
  } else {
    c.text = r.out;
  }
  if (c.text.empty() && !text.empty()) {
    return tool_failure(path, text, tool.name + " exited 0 but produced no output [" + command + "]",
                        "run the command by hand to see what it does with this file");
  }
  if (auto problem = plugins::converter::check_text(c.text, o.max_output)) {
    return tool_failure(path, text, tool.name + " produced unusable output: " + problem->message, "report it upstream");
  }
  return c;
}

sdk::converter::convert_response external_hipify::convert(const sdk::converter::convert_request& request,
                                                          sdk::call_context& ctx) {
  const located_tool tool = locate();
  plugins::converter::hipify_options audit = audit_;
  if (!request.target.rocm.empty()) {
    const auto v = plugins::converter::parse_version(request.target.rocm);
    if (!v)
      throw sdk::invalid_argument("target.rocm: expected a release like \"6.2\", found \"" + request.target.rocm +
                                  "\"");
    audit.target_rocm = *v;
  }
  plugins::converter::scratch_dir scratch("r2r-hipify-external");
  plugins::converter::transform_options options;
  options.converter_id = "r2r.converter.hipify-external";
  options.source_extensions = config_.source_extensions;
  options.build_files = false;  // the tools convert source files only
  options.max_file_bytes = config_.max_file_bytes;
  auto response = plugins::converter::transform_files(
      request, options,
      [&](const plugins::converter::loaded_input& input, plugins::converter::file_kind) {
        plugins::converter::conversion c = run_tool(tool, input.path, input.text, scratch.path().string(), ctx);
        if (c.failed) return c;
        // The tool says nothing about what it left: audit its output with the tables.
        plugins::converter::conversion checked = plugins::converter::convert_source(input.path, c.text, audit);
        c.changed = c.text != input.text;
        c.diagnostics = std::move(checked.diagnostics);
        c.stats = std::move(checked.stats);
        c.stats["bytes_in"] = static_cast<std::int64_t>(input.text.size());
        c.stats["bytes_out"] = static_cast<std::int64_t>(c.text.size());
        c.stats.erase("renamed");
        c.stats.erase("includes_rewritten");
        return c;
      },
      [&ctx] { ctx.throw_if_cancelled(); });
  response.tool = sdk::converter::tool_info{tool.name, tool.path, tool.version};
  R2R_LOG(host_, info,
          tool.name << ": " << response.summary["converted"] << " converted, " << response.summary["left_unconverted"]
                    << " CUDA names left that HIP has");
  return response;
}

}  // namespace r2r::plugins::converter
