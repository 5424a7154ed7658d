// SPDX-License-Identifier: MIT
// Typed messages of the converter kind. The wire shapes are
// plugin_api/schemas/converter/convert.{request,response}.schema.json; these structs mirror them.
// A converter plugin implements one method:
//   r2r::sdk::converter::convert_response convert(const r2r::sdk::converter::convert_request&,
//                                                 r2r::sdk::call_context&);
// and lists it with r2r::sdk::converter::methods<T>().
//
// Every converter answers the same request with the same response shape, so converters chain
// (hipify -> hazard scan -> build check) and swap by configuration: a converter that changes code
// fills files[].text/diff; a scanner fills hazards; a build checker fills builds.
#pragma once

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/methods.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::sdk::converter {

/// Device code that a rename does not fix. `affects` lists "cdna" (wave64) and/or "rdna" (wave32).
struct hazard {
  std::string file;
  std::int64_t line = 0;
  std::int64_t column = 0;
  std::string severity = "warning";  // "error" (will not compile or is wrong) | "warning" | "note"
  std::string rule;                  // stable id, e.g. "wave32-mask"
  std::string message;               // what was found (with the code excerpt)
  std::string why;                   // why it breaks on AMD GPUs
  std::string fix;                   // what to change
  std::vector<std::string> affects;
  std::string excerpt;  // the source line, trimmed
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(hazard, file, line, column, severity, rule, message, why, fix, affects,
                                                excerpt)

/// One input file. `path` is relative (forward slashes, no "..", not absolute). When `text` is
/// absent the plugin reads root/path itself (so binary or invalid UTF-8 files can be reported).
/// `hazards`, when present, are the hazards an earlier stage of the chain found in the file's
/// current text (possibly none); absent means nobody scanned this text, and a converter that needs
/// hazards scans it itself.
struct input_file {
  std::string path;
  std::optional<std::string> text;
  std::optional<std::vector<hazard>> hazards;
};
inline void from_json(const nlohmann::json& j, input_file& f) {
  f.path = j.at("path").get<std::string>();
  if (auto it = j.find("text"); it != j.end() && !it->is_null()) f.text = it->get<std::string>();
  if (auto it = j.find("hazards"); it != j.end() && !it->is_null()) f.hazards = it->get<std::vector<hazard>>();
}
inline void to_json(nlohmann::json& j, const input_file& f) {
  j = nlohmann::json{{"path", f.path}};
  if (f.text) j["text"] = *f.text;
  if (f.hazards) j["hazards"] = *f.hazards;
}

/// What the code is ported to. `rocm` is "MAJOR.MINOR[.PATCH]"; empty means "newest known".
struct target_spec {
  std::string rocm;
  std::vector<std::string> arch;  // gfx names, e.g. "gfx90a"
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(target_spec, rocm, arch)

struct convert_request {
  std::vector<input_file> files;
  std::string root;                 // absolute directory for files without text; empty when all are inline
  std::string out_root;             // absolute directory where changed files are written; empty: return text only
  std::string base_root;            // absolute directory holding the originals diffs are made against
  std::optional<bool> return_text;  // default: true when out_root is empty
  target_spec target;
};
inline void from_json(const nlohmann::json& j, convert_request& r) {
  r.files = j.at("files").get<std::vector<input_file>>();
  r.root = j.value("root", std::string());
  r.out_root = j.value("out_root", std::string());
  r.base_root = j.value("base_root", std::string());
  if (auto it = j.find("return_text"); it != j.end() && !it->is_null()) r.return_text = it->get<bool>();
  r.target = j.value("target", target_spec{});
}
inline void to_json(nlohmann::json& j, const convert_request& r) {
  j = nlohmann::json{{"files", r.files}, {"target", r.target}};
  if (!r.root.empty()) j["root"] = r.root;
  if (!r.out_root.empty()) j["out_root"] = r.out_root;
  if (!r.base_root.empty()) j["base_root"] = r.base_root;
  if (r.return_text) j["return_text"] = *r.return_text;
}

/// A finding about the code at file:line:column (1-based; column counts bytes).
struct diagnostic {
  std::string file;
  std::int64_t line = 0;
  std::int64_t column = 0;
  std::string severity = "error";  // "error" | "warning" | "note"
  std::string category;            // unsupported, rocm_too_old, removed_in_rocm, manual_port, unknown_cuda_name,
                                   // left_unconverted, deprecated, experimental, bad_input, syntax, build_system, tool
  std::string name;                // the CUDA name or header concerned; may be empty
  std::string message;             // what was found and why it was left unchanged
  std::string hint;                // what to do
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(diagnostic, file, line, column, severity, category, name, message, hint)

/// Result for one input file. `status`: "converted" (text changed), "unchanged", "skipped" (not a
/// file this converter handles) or "error" (bad input or a failure; diagnostics say why).
struct file_result {
  std::string path;
  std::string status = "unchanged";
  std::optional<std::string> text;  // output text, when return_text
  std::string diff;                 // unified diff against the base (empty when unchanged)
  std::map<std::string, std::int64_t> stats;
  std::vector<diagnostic> diagnostics;
};
inline void to_json(nlohmann::json& j, const file_result& f) {
  j = nlohmann::json{
      {"path", f.path}, {"status", f.status}, {"diff", f.diff}, {"stats", f.stats}, {"diagnostics", f.diagnostics}};
  if (f.text) j["text"] = *f.text;
}
inline void from_json(const nlohmann::json& j, file_result& f) {
  f.path = j.at("path").get<std::string>();
  f.status = j.at("status").get<std::string>();
  if (auto it = j.find("text"); it != j.end() && !it->is_null()) f.text = it->get<std::string>();
  f.diff = j.value("diff", std::string());
  f.stats = j.value("stats", std::map<std::string, std::int64_t>{});
  f.diagnostics = j.value("diagnostics", std::vector<diagnostic>{});
}

/// One translation unit compiled for one gfx target. `status`: "passed", "failed",
/// "not_checkable_here" (the local toolchain cannot compile for the target) or
/// "checked_in_container" (needs headers only a ROCm image has: PyTorch, ROCm libraries not
/// installed here). A target the toolchain cannot compile for is never "passed".
struct build_result {
  std::string file;
  std::string arch;
  std::string status;
  std::string failure_class;  // none, missing_header, missing_library, undeclared_identifier,
                              // target_unknown, needs_pytorch, compile_error, timeout, tool_error
  std::string message;
  std::vector<std::string> names;  // missing headers or undeclared identifiers
  std::string command;
  std::string log;  // compiler output (truncated)
  double seconds = 0;
  std::string toolchain;  // which compiler judged it: "HIP 6.4.43484 (rootfs)"; empty when unknown
};
inline void to_json(nlohmann::json& j, const build_result& b) {
  j = nlohmann::json{{"file", b.file},           {"arch", b.arch},       {"status", b.status},
                     {"class", b.failure_class}, {"message", b.message}, {"names", b.names},
                     {"command", b.command},     {"log", b.log},         {"seconds", b.seconds}};
  if (!b.toolchain.empty()) j["toolchain"] = b.toolchain;
}
inline void from_json(const nlohmann::json& j, build_result& b) {
  b.file = j.at("file").get<std::string>();
  b.arch = j.at("arch").get<std::string>();
  b.status = j.at("status").get<std::string>();
  b.failure_class = j.value("class", std::string());
  b.message = j.value("message", std::string());
  b.names = j.value("names", std::vector<std::string>{});
  b.command = j.value("command", std::string());
  b.log = j.value("log", std::string());
  b.toolchain = j.value("toolchain", std::string());
  b.seconds = j.value("seconds", 0.0);
}

/// The external tool a converter ran, when it ran one.
struct tool_info {
  std::string name;
  std::string path;
  std::string version;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(tool_info, name, path, version)

struct convert_response {
  std::string converter;  // the plugin id that answered
  std::vector<file_result> files;
  std::vector<hazard> hazards;
  std::vector<build_result> builds;
  std::optional<tool_info> tool;
  std::map<std::string, std::int64_t> summary;  // counts: files, converted, unchanged, skipped, errors, ...
};
inline void to_json(nlohmann::json& j, const convert_response& r) {
  j = nlohmann::json{{"converter", r.converter},
                     {"files", r.files},
                     {"hazards", r.hazards},
                     {"builds", r.builds},
                     {"summary", r.summary}};
  if (r.tool) j["tool"] = *r.tool;
}
inline void from_json(const nlohmann::json& j, convert_response& r) {
  r.converter = j.at("converter").get<std::string>();
  r.files = j.value("files", std::vector<file_result>{});
  r.hazards = j.value("hazards", std::vector<hazard>{});
  r.builds = j.value("builds", std::vector<build_result>{});
  if (auto it = j.find("tool"); it != j.end() && !it->is_null()) r.tool = it->get<tool_info>();
  r.summary = j.value("summary", std::map<std::string, std::int64_t>{});
}

/// The method table every converter exposes.
template <class T>
method_table<T> methods() {
  return {method("convert", &T::convert)};
}

}  // namespace r2r::sdk::converter
