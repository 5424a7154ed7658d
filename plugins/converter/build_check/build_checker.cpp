// SPDX-License-Identifier: MIT
#include "build_checker.hpp"

#include "compile_log.hpp"

#include <r2r/convert/file_io.hpp>
#include <r2r/convert/scratch_dir.hpp>
#include <r2r/convert/transform_files.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

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

bool is_cxx_source(std::string_view path) {
  const std::string ext = extension_of(path);
  return ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c++";
}

/// Files PyTorch's hipify may read or write: what the copy of the project for it holds.
bool is_source_like(const fs::path& p) {
  static const std::set<std::string> exts{".cu",  ".cuh", ".hip", ".h",  ".hh",  ".hpp", ".hxx", ".inl",
                                          ".inc", ".tcc", ".cpp", ".cc", ".cxx", ".c++", ".c"};
  return exts.count(p.extension().string()) != 0;
}

/// Copies the source-like regular files beneath `from` to the same places beneath `to` (no
/// symlinks, no hidden directories, none larger than `max_bytes`), at most `max_files` of them.
void copy_sources(const fs::path& from, const fs::path& to, std::uintmax_t max_bytes, std::size_t max_files) {
  std::error_code ec;
  if (from.empty() || !fs::is_directory(from, ec)) return;
  std::size_t copied = 0;
  fs::recursive_directory_iterator it(from, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto& e = *it;
    if (e.is_symlink(ec)) continue;
    if (e.is_directory(ec)) {
      if (e.path().filename().string().starts_with(".")) it.disable_recursion_pending();
      continue;
    }
    if (!e.is_regular_file(ec) || !is_source_like(e.path()) || e.file_size(ec) > max_bytes) continue;
    const fs::path dest = to / e.path().lexically_relative(from);
    fs::create_directories(dest.parent_path(), ec);
    fs::copy_file(e.path(), dest, fs::copy_options::overwrite_existing, ec);
    if (++copied >= max_files) break;
  }
}

/// True when `text` (the file `path` of the project) or a project header it reaches through quoted
/// includes uses PyTorch headers. `read` returns a project file's text (nullopt: not in the
/// project); includes resolve against the includer's directory, then the root, then `dirs`.
bool uses_pytorch(const std::string& path, const std::string& text,
                  const std::function<std::optional<std::string>(const std::string&)>& read,
                  const std::vector<std::string>& dirs) {
  // Breadth first over (project path, text); a project reaches PyTorch within a few headers, so the
  // walk stops after max_headers files rather than reading a large include graph for every unit.
  constexpr std::size_t max_headers = 256;
  std::vector<std::pair<std::string, std::string>> queue{{path, text}};
  std::set<std::string> seen{path};
  for (std::size_t i = 0; i < queue.size() && i < max_headers; ++i) {
    const std::string current = queue[i].first;
    const std::string content = std::move(queue[i].second);
    if (includes_pytorch_header(content)) return true;
    for (const auto& inc : quoted_includes(content)) {
      std::vector<fs::path> candidates{fs::path(current).parent_path() / inc, fs::path(inc)};
      for (const auto& d : dirs) candidates.push_back(fs::path(d) / inc);
      for (const auto& c : candidates) {
        const std::string rel = c.lexically_normal().generic_string();
        if (rel.empty() || rel.starts_with("..") || rel.front() == '/') continue;
        if (seen.count(rel) != 0) break;
        if (auto t = read(rel)) {
          seen.insert(rel);
          queue.emplace_back(rel, std::move(*t));
          break;
        }
      }
    }
  }
  return false;
}

}  // namespace

std::string default_torch_rootfs() {
  const std::string base = default_rootfs();
  return base.empty() ? base : base + "-torch";
}

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
  c.torch_rootfs = j.value("torch_rootfs", d.torch_rootfs);
  if (!c.torch_rootfs.empty() && c.torch_rootfs.front() != '/') {
    throw sdk::invalid_argument("torch_rootfs: expected an absolute directory, found '" + c.torch_rootfs + "'");
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

build_checker::torch_toolchain* build_checker::pytorch_toolchain() {
  if (torch_looked_for_) return torch_ ? &*torch_ : nullptr;
  torch_looked_for_ = true;
  if (config_.toolchain == "host") return nullptr;
  const auto bwrap = plugins::converter::find_program(config_.bwrap, {});
  std::string rootfs = config_.torch_rootfs;
  if (rootfs.empty()) {
    const std::string main = config_.rootfs.empty() ? default_rootfs() : config_.rootfs;
    rootfs = read_torch_install(main) ? main : default_torch_rootfs();
  }
  auto torch = has_hipcc(rootfs) ? read_torch_install(rootfs) : std::nullopt;
  if (!bwrap || !torch) {
    if (!config_.torch_rootfs.empty()) {
      R2R_LOG(host_, warn,
              "torch_rootfs " << rootfs << (bwrap ? " holds no HIP toolchain with PyTorch" : ": bwrap not found")
                              << "; PyTorch extensions are left to the container (build it: "
                                 "scripts/toolchains/hip.sh 6.4 "
                              << rootfs << " --with-torch)");
    }
    return nullptr;
  }
  try {
    rootfs_jail jail(rootfs, *bwrap);
    torch_.emplace(torch_toolchain{hipcc_toolchain::in_rootfs(jail), jail, std::move(*torch)});
  } catch (const std::invalid_argument& e) {
    R2R_LOG(host_, warn, "torch rootfs " << rootfs << " is unusable: " << e.what());
    return nullptr;
  }
  return &*torch_;
}

sdk::converter::convert_response build_checker::convert(const sdk::converter::convert_request& request,
                                                        sdk::call_context& ctx) {
  plugins::converter::check_root(request.root, "root");
  for (const auto& f : request.files) plugins::converter::check_relative_path(f.path);
  hipcc_toolchain& hipcc = toolchain();
  torch_toolchain* torch = pytorch_toolchain();
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
  // A project file's text, for following includes: the request's inline text, else root/path.
  std::map<std::string, std::string> inline_text;
  for (const auto& f : request.files) {
    if (f.text) inline_text[f.path] = *f.text;
  }
  const auto read_project_file = [&](const std::string& rel) -> std::optional<std::string> {
    if (auto it = inline_text.find(rel); it != inline_text.end()) return it->second;
    if (request.root.empty()) return std::nullopt;
    std::error_code ec;
    const fs::path p = fs::path(request.root) / rel;
    if (!fs::is_regular_file(p, ec) || fs::file_size(p, ec) > config_.max_file_bytes) return std::nullopt;
    std::ifstream in(p, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  // Inline files are written under the scratch directory, so their relative includes resolve.
  struct unit {
    std::size_t file_index;
    fs::path source;
    bool torch = false;  // a PyTorch-extension unit, compiled with the torch toolchain
    bool device = true;  // false: an extension's host C++ file (compiled once, -x c++)
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
    const bool tu = is_translation_unit(f.path, input.text);
    // An extension's .cpp without device code is built by the host compiler; it is checked only
    // where PyTorch is there to check it.
    const bool host_torch_unit = !tu && torch != nullptr && is_cxx_source(f.path) &&
                                 uses_pytorch(f.path, input.text, read_project_file, config_.include_dirs);
    if (!tu && !host_torch_unit) {
      result.status = "skipped";
      response.files.push_back(std::move(result));
      continue;
    }
    result.status = "unchanged";
    unit u{response.files.size(), f.text ? inline_root / f.path : fs::path(request.root) / f.path};
    u.torch = host_torch_unit ||
              (torch != nullptr && uses_pytorch(f.path, input.text, read_project_file, config_.include_dirs));
    u.device = !host_torch_unit;
    units.push_back(std::move(u));
    response.files.push_back(std::move(result));
  }
  include_dirs.push_back(inline_root.string());
  if (!request.root.empty()) {
    include_dirs.push_back(request.root);
    for (const auto& dir : config_.include_dirs) include_dirs.push_back((fs::path(request.root) / dir).string());
  }

  // PyTorch's hipify runs over a copy of the project's sources (it writes k.hip next to k.cu),
  // once for every extension unit of the request, as CUDAExtension runs it over its sources.
  const fs::path torch_root = scratch.path() / "torch";
  std::map<std::size_t, fs::path> torch_source;  // unit position -> the hipified file to compile
  std::optional<pytorch_hipify_result> hipify_failure;
  if (torch != nullptr && std::any_of(units.begin(), units.end(), [](const unit& u) { return u.torch; })) {
    torch->hipcc.bind(request.root, scratch.path().string());
    torch->jail.bind(request.root, scratch.path().string());
    copy_sources(request.root, torch_root, config_.max_file_bytes, 100000);
    copy_sources(inline_root, torch_root, config_.max_file_bytes, 100000);
    const auto guest = [&](const fs::path& p) { return torch->jail.guest_path(p.string()).value_or(p.string()); };
    std::vector<std::string> header_dirs{guest(torch_root)};
    for (const auto& dir : config_.include_dirs) header_dirs.push_back(guest(torch_root / dir));
    std::vector<std::string> guest_units;
    for (const auto& u : units) {
      if (u.torch) guest_units.push_back(guest(torch_root / response.files[u.file_index].path));
    }
    auto h = run_pytorch_hipify(torch->jail, guest(torch_root), header_dirs, guest_units,
                                std::chrono::seconds(config_.timeout_seconds), cancelled);
    if (h.cancelled) throw sdk::cancelled();
    if (!h.ok) {
      hipify_failure = std::move(h);
    } else {
      for (const auto& [from, to] : h.hipified) {
        const fs::path host_from = torch->jail.host_text(from);
        const fs::path host_to = torch->jail.host_text(to);
        const fs::path rel = host_from.lexically_relative(torch_root);
        if (host_from == host_to || rel.empty() || *rel.begin() == "..") continue;
        // Diagnostics name the file the user has: the inline copy or root/path.
        std::error_code ec;
        const fs::path original = fs::exists(inline_root / rel, ec) ? inline_root / rel : fs::path(request.root) / rel;
        std::ifstream hin(host_to, std::ios::binary), oin(host_from, std::ios::binary);
        std::stringstream hipified, before;
        hipified << hin.rdbuf();
        before << oin.rdbuf();
        std::ofstream(host_to, std::ios::binary | std::ios::trunc)
            << map_hipified_lines(hipified.str(), before.str(), guest(original));
      }
      for (std::size_t i = 0; i < units.size(); ++i) {
        if (!units[i].torch) continue;
        const fs::path copy = torch_root / response.files[units[i].file_index].path;
        const auto it = h.hipified.find(guest(copy));
        torch_source[i] = it == h.hipified.end() ? copy : fs::path(torch->jail.host_text(it->second));
      }
    }
  }

  int object_index = 0;
  // An extension's host C++ file compiles the same for every target: compiled once, reported per target.
  std::map<std::size_t, sdk::converter::build_result> host_results;
  for (const auto& arch : archs) {
    if (units.empty()) break;
    for (std::size_t ui = 0; ui < units.size(); ++ui) {
      const auto& u = units[ui];
      auto& file = response.files[u.file_index];
      hipcc_toolchain& tc = u.torch ? torch->hipcc : hipcc;
      sdk::converter::build_result b;
      b.file = file.path;
      b.arch = arch;
      b.toolchain = u.torch ? tc.label() + " + PyTorch " + torch->torch.version : label;
      const auto& probe = tc.probe(arch, scratch.path().string(), cancelled);
      ctx.throw_if_cancelled();
      if (!probe.supported) {
        const compile_verdict v = classify_compile_failure(probe.output);
        b.status = v.failure_class == "target_unknown" ? "not_checkable_here" : "failed";
        b.failure_class = v.failure_class == "target_unknown" ? "target_unknown" : "tool_error";
        b.message = v.failure_class == "target_unknown"
                        ? "hipcc (" + tc.version() + ") cannot compile for " + arch +
                              ": not checkable here; it is checked in a ROCm container whose toolchain knows " + arch
                        : "hipcc cannot compile even a one-kernel file for " + arch + " (" + v.message +
                              "): the toolchain is broken, so this unit was not checked";
        b.log = to_utf8(truncate_log(probe.output, config_.max_log_bytes));
        file.stats["builds_" + b.status] += 1;
        response.builds.push_back(std::move(b));
        continue;
      }
      if (u.torch && hipify_failure) {
        b.status = "failed";
        b.failure_class = "tool_error";
        b.message =
            "PyTorch's hipify (the step CUDAExtension runs on ROCm) failed, so this extension unit was "
            "not compiled; see the log";
        b.command = hipify_failure->command;
        b.log = to_utf8(truncate_log(hipify_failure->output, config_.max_log_bytes));
        file.stats["builds_" + b.status] += 1;
        response.builds.push_back(std::move(b));
        continue;
      }
      if (!u.device) {
        if (auto it = host_results.find(ui); it != host_results.end()) {
          sdk::converter::build_result again = it->second;
          again.arch = arch;
          file.stats["builds_" + again.status] += 1;
          response.builds.push_back(std::move(again));
          continue;
        }
      }
      const fs::path source = u.torch ? torch_source.at(ui) : u.source;
      std::vector<std::string> dirs{source.parent_path().string()};
      std::vector<std::string> flags = config_.flags;
      if (u.torch) {
        dirs.push_back(torch_root.string());
        for (const auto& dir : config_.include_dirs) dirs.push_back((torch_root / dir).string());
        flags = torch_compile_flags(fs::path(file.path).stem().string(), torch->torch);
      } else {
        // Include the unit's own directory first, as the compiler does for "..." includes.
        dirs.insert(dirs.end(), include_dirs.begin(), include_dirs.end());
      }
      const std::string object = (scratch.path() / ("unit" + std::to_string(object_index++) + ".o")).string();
      const auto r = tc.compile(source.string(), object, arch, dirs, flags,
                                std::chrono::seconds(config_.timeout_seconds), cancelled, b.command, u.device);
      if (r.cancelled) throw sdk::cancelled();
      b.seconds = r.seconds;
      const std::string output = r.start_error + r.err + r.out;
      b.log = to_utf8(truncate_log(output, config_.max_log_bytes));
      const std::string what =
          u.device ? "compiled for " + arch : "compiled as the extension's host C++ (no device code)";
      if (r.ok()) {
        b.status = "passed";
        b.failure_class = "none";
        b.message = u.torch ? what + " after PyTorch's hipify, with PyTorch " + torch->torch.version : what;
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
      if (!u.device) host_results[ui] = b;
      file.stats["builds_" + b.status] += 1;
      R2R_LOG(host_, info, "build-check " << file.path << " " << arch << ": " << b.status);
      response.builds.push_back(std::move(b));
    }
  }
  plugins::converter::summarize(response);
  return response;
}

}  // namespace r2r::plugins::converter
