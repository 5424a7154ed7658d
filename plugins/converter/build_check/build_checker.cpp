// SPDX-License-Identifier: MIT
#include "build_checker.hpp"

#include "compile_log.hpp"

#include <r2r/convert/file_io.hpp>
#include <r2r/convert/scratch_dir.hpp>
#include <r2r/convert/transform_files.hpp>

#include <cstdlib>
#include <filesystem>
#include <regex>

namespace r2r::plugins::converter {
namespace {

namespace fs = std::filesystem;

std::string extension_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return {};
  return std::string(path.substr(dot));
}

std::string truncate_log(const std::string& log, std::size_t max) {
  if (log.size() <= max) return log;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(log[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return log.substr(0, cut) + "\n[... " + std::to_string(log.size() - cut) + " more bytes]";
}

/// Compiler output is bytes; JSON needs UTF-8. Invalid sequences become '?'.
std::string to_utf8(std::string text) {
  for (std::size_t at = plugins::converter::first_invalid_utf8(text); at != std::string::npos;
       at = plugins::converter::first_invalid_utf8(text)) {
    text[at] = '?';
  }
  return text;
}

bool has_hipcc(const std::string& rootfs) {
  std::error_code ec;
  return fs::exists(fs::path(rootfs) / "usr/bin/hipcc", ec);
}

}  // namespace

std::string default_rootfs() {
  fs::path state;
  if (const char* d = std::getenv("R2R_STATE_DIR"); d && *d) {
    state = d;
  } else if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) {
    state = fs::path(x) / "repo2rocm";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    state = fs::path(h) / ".local/state/repo2rocm";
  } else {
    return {};
  }
  return (state / "toolchains/hip-6.4").string();
}

bool is_translation_unit(std::string_view path, std::string_view text) {
  const std::string ext = extension_of(path);
  if (ext == ".cu" || ext == ".hip") return true;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c++") {
    return text.find("__global__") != std::string_view::npos ||
           text.find("hip/hip_runtime") != std::string_view::npos || text.find("<<<") != std::string_view::npos;
  }
  return false;
}

void from_json(const nlohmann::json& j, build_checker::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object");
  const build_checker::config d;
  c.toolchain = j.value("toolchain", d.toolchain);
  if (c.toolchain != "host" && c.toolchain != "rootfs" && c.toolchain != "auto") {
    throw sdk::invalid_argument("toolchain: expected host, rootfs or auto, found '" + c.toolchain + "'");
  }
  c.rootfs = j.value("rootfs", d.rootfs);
  if (!c.rootfs.empty() && c.rootfs.front() != '/') {
    throw sdk::invalid_argument("rootfs: expected an absolute directory, found '" + c.rootfs + "'");
  }
  c.bwrap = j.value("bwrap", d.bwrap);
  c.hipcc = j.value("hipcc", d.hipcc);
  c.search_dirs = j.value("search_dirs", d.search_dirs);
  c.default_arch = j.value("default_arch", d.default_arch);
  c.flags = j.value("flags", d.flags);
  c.include_dirs = j.value("include_dirs", d.include_dirs);
  c.timeout_seconds = j.value("timeout_seconds", d.timeout_seconds);
  c.max_log_bytes = j.value("max_log_bytes", d.max_log_bytes);
  c.max_file_bytes = j.value("max_file_bytes", d.max_file_bytes);
}

build_checker::build_checker(const config& cfg, const sdk::host& host) : config_(cfg), host_(host) {
  static const std::regex gfx("^gfx[0-9a-f]+(:[a-z0-9_]+[+-])*$");
  for (const auto& arch : cfg.default_arch) {
    if (!std::regex_match(arch, gfx)) {
      throw sdk::invalid_argument("default_arch: expected gfx target names like gfx90a, found '" + arch + "'");
    }
  }
  for (const auto& dir : cfg.include_dirs) plugins::converter::check_relative_path(dir);
}

hipcc_toolchain& build_checker::toolchain() {
  if (toolchain_) return *toolchain_;
  const std::string rootfs = config_.rootfs.empty() ? default_rootfs() : config_.rootfs;
  const auto bwrap = plugins::converter::find_program(config_.bwrap, {});
  const bool use_rootfs = config_.toolchain == "rootfs" || (config_.toolchain == "auto" && bwrap && has_hipcc(rootfs));
  if (use_rootfs) {
    if (!bwrap) {
      throw sdk::unavailable("bubblewrap ('" + config_.bwrap +
                             "') was not found in $PATH, so the toolchain rootfs cannot run. Install it (apt-get "
                             "install bubblewrap) or set `toolchain` to host");
    }
    if (!has_hipcc(rootfs)) {
      throw sdk::unavailable("the toolchain rootfs '" + rootfs +
                             "' has no usr/bin/hipcc. Build it with scripts/toolchains/hip.sh 6.4 " + rootfs +
                             ", set `rootfs`, or set `toolchain` to host");
    }
    try {
      toolchain_ = hipcc_toolchain::in_rootfs(rootfs_jail(rootfs, *bwrap));
    } catch (const std::invalid_argument& e) {
      throw sdk::unavailable(e.what());
    }
    return *toolchain_;
  }
  toolchain_ = hipcc_toolchain::find(config_.hipcc, config_.search_dirs);
  if (!toolchain_) {
    std::string where;
    for (const auto& d : config_.search_dirs) where += d + ", ";
    throw sdk::unavailable("hipcc ('" + config_.hipcc + "') was not found in " + where +
                           "or $PATH, so nothing can be compiled here. Install ROCm's hipcc (on Debian 12: apt-get "
                           "install hipcc libamdhip64-dev rocm-device-libs) or set `hipcc` in the plugin config");
  }
  return *toolchain_;
}

sdk::converter::convert_response build_checker::convert(const sdk::converter::convert_request& request,
                                                        sdk::call_context& ctx) {
  plugins::converter::check_root(request.root, "root");
  for (const auto& f : request.files) plugins::converter::check_relative_path(f.path);
  hipcc_toolchain& hipcc = toolchain();
  const std::vector<std::string> archs = request.target.arch.empty() ? config_.default_arch : request.target.arch;
  const auto cancelled = [&ctx] { return ctx.cancelled(); };

  sdk::converter::convert_response response;
  response.converter = "r2r.converter.build-check";
  plugins::converter::scratch_dir scratch("r2r-build-check");
  hipcc.bind(request.root, scratch.path().string());
  response.tool = sdk::converter::tool_info{"hipcc", hipcc.path(), hipcc.version()};
  const std::string label = hipcc.label();
  const fs::path inline_root = scratch.path() / "src";
  std::vector<std::string> include_dirs;
  // Inline files are written under the scratch directory, so their relative includes resolve.
  struct unit {
    std::size_t file_index;
    fs::path source;
  };
  std::vector<unit> units;
  for (const auto& f : request.files) {
    ctx.throw_if_cancelled();
    sdk::converter::file_result result;
    result.path = f.path;
    const auto input = plugins::converter::load_input(f, request.root, config_.max_file_bytes);
    if (input.problem) {
      response.files.push_back(plugins::converter::bad_input_result(f.path, *input.problem));
      continue;
    }
    if (f.text) plugins::converter::write_output(inline_root.string(), f.path, *f.text);
    if (!is_translation_unit(f.path, input.text)) {
      result.status = "skipped";
      response.files.push_back(std::move(result));
      continue;
    }
    result.status = "unchanged";
    units.push_back({response.files.size(), f.text ? inline_root / f.path : fs::path(request.root) / f.path});
    response.files.push_back(std::move(result));
  }
  include_dirs.push_back(inline_root.string());
  if (!request.root.empty()) {
    include_dirs.push_back(request.root);
    for (const auto& dir : config_.include_dirs) include_dirs.push_back((fs::path(request.root) / dir).string());
  }

  int object_index = 0;
  for (const auto& arch : archs) {
    if (units.empty()) break;
    const auto& probe = hipcc.probe(arch, scratch.path().string(), cancelled);
    ctx.throw_if_cancelled();
    for (const auto& u : units) {
      auto& file = response.files[u.file_index];
      sdk::converter::build_result b;
      b.file = file.path;
      b.arch = arch;
      b.toolchain = label;
      if (!probe.supported) {
        const compile_verdict v = classify_compile_failure(probe.output);
        b.status = v.failure_class == "target_unknown" ? "not_checkable_here" : "failed";
        b.failure_class = v.failure_class == "target_unknown" ? "target_unknown" : "tool_error";
        b.message = v.failure_class == "target_unknown"
                        ? "hipcc (" + hipcc.version() + ") cannot compile for " + arch +
                              ": not checkable here; it is checked in a ROCm container whose toolchain knows " + arch
                        : "hipcc cannot compile even a one-kernel file for " + arch + " (" + v.message +
                              "): the toolchain is broken, so this unit was not checked";
        b.log = to_utf8(truncate_log(probe.output, config_.max_log_bytes));
        file.stats["builds_" + b.status] += 1;
        response.builds.push_back(std::move(b));
        continue;
      }
      // Include the unit's own directory first, as the compiler does for "..." includes.
      std::vector<std::string> dirs{u.source.parent_path().string()};
      dirs.insert(dirs.end(), include_dirs.begin(), include_dirs.end());
      const std::string object = (scratch.path() / ("unit" + std::to_string(object_index++) + ".o")).string();
      const auto r = hipcc.compile(u.source.string(), object, arch, dirs, config_.flags,
                                   std::chrono::seconds(config_.timeout_seconds), cancelled, b.command);
      if (r.cancelled) throw sdk::cancelled();
      b.seconds = r.seconds;
      const std::string output = r.start_error + r.err + r.out;
      b.log = to_utf8(truncate_log(output, config_.max_log_bytes));
      if (r.ok()) {
        b.status = "passed";
        b.failure_class = "none";
        b.message = "compiled for " + arch;
      } else if (r.timed_out) {
        b.status = "failed";
        b.failure_class = "timeout";
        b.message = "hipcc did not finish within " + std::to_string(config_.timeout_seconds) + " s";
      } else if (!r.started) {
        b.status = "failed";
        b.failure_class = "tool_error";
        b.message = "hipcc did not start: " + r.start_error;
      } else {
        const compile_verdict v = classify_compile_failure(output);
        b.status = v.status;
        b.failure_class = v.failure_class;
        b.message = v.message;
        b.names = v.names;
      }
      file.stats["builds_" + b.status] += 1;
      R2R_LOG(host_, info, "build-check " << file.path << " " << arch << ": " << b.status);
      response.builds.push_back(std::move(b));
    }
  }
  plugins::converter::summarize(response);
  return response;
}

}  // namespace r2r::plugins::converter
