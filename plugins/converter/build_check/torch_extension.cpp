// SPDX-License-Identifier: MIT
#include "torch_extension.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace r2r::plugins::converter {
namespace {

namespace fs = std::filesystem;

/// The include target of an `#include` line ("torch/extension.h"), and whether it was quoted;
/// nullopt for any other line.
std::optional<std::pair<std::string_view, bool>> include_target(std::string_view line) {
  std::size_t at = line.find_first_not_of(" \t");
  if (at == std::string_view::npos || line[at] != '#') return std::nullopt;
  at = line.find_first_not_of(" \t", at + 1);
  if (at == std::string_view::npos || line.substr(at, 7) != "include") return std::nullopt;
  at = line.find_first_not_of(" \t", at + 7);
  if (at == std::string_view::npos || (line[at] != '"' && line[at] != '<')) return std::nullopt;
  const char close = line[at] == '"' ? '"' : '>';
  const std::size_t end = line.find(close, at + 1);
  if (end == std::string_view::npos) return std::nullopt;
  return std::make_pair(line.substr(at + 1, end - at - 1), close == '"');
}

template <typename F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t eol = text.find('\n', start);
    if (eol == std::string_view::npos) eol = text.size();
    f(text.substr(start, eol - start));
    start = eol + 1;
  }
}

std::size_t count_lines(std::string_view text) {
  std::size_t n = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  return (!text.empty() && text.back() != '\n') ? n + 1 : n;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// PyTorch's hipify as torch.utils.cpp_extension.CUDAExtension calls it on ROCm (its defaults for
// everything else, hip_clang_launch included); prints the output path of every file it hipified.
constexpr const char* hipify_driver = R"PY(import json, os, sys
from torch.utils.hipify import hipify_python as h
project, n = sys.argv[1], int(sys.argv[2])
dirs, units = sys.argv[3:3 + n], sys.argv[3 + n:]
r = h.hipify(project_directory=project, output_directory=project, header_include_dirs=dirs,
             includes=[os.path.join(project, "*")], extra_files=units, show_detailed=False,
             is_pytorch_extension=True, hipify_extra_files_only=True, show_progress=False)
print("R2R-HIPIFY " + json.dumps({k: v.hipified_path for k, v in r.items() if v.hipified_path}))
)PY";

}  // namespace

bool includes_pytorch_header(std::string_view text) {
  bool found = false;
  for_each_line(text, [&](std::string_view line) {
    if (found) return;
    const auto target = include_target(line);
    if (!target) return;
    const std::string_view t = target->first;
    found = t.starts_with("torch/") || t.starts_with("ATen/") || t.starts_with("c10/") || t.starts_with("pybind11/");
  });
  return found;
}

std::vector<std::string> quoted_includes(std::string_view text) {
  std::vector<std::string> out;
  for_each_line(text, [&](std::string_view line) {
    if (const auto target = include_target(line); target && target->second) out.emplace_back(target->first);
  });
  return out;
}

std::optional<torch_install> read_torch_install(const std::string& rootfs) {
  std::error_code ec;
  const fs::path root(rootfs);
  if (!fs::exists(root / ".r2r-torch", ec)) return std::nullopt;
  const fs::path hip = root / "opt/r2r-torch-hip";
  torch_install t;
  std::istringstream version(read_text(hip / "torch_version.txt"));
  std::getline(version, t.version);
  std::istringstream dirs(read_text(hip / "include_dirs.txt"));
  for (std::string line; std::getline(dirs, line);) {
    if (!line.empty() && line.front() == '/') t.include_dirs.push_back(line);
  }
  if (t.version.empty() || t.include_dirs.empty()) return std::nullopt;
  return t;
}

std::vector<std::string> torch_compile_flags(const std::string& extension, const torch_install& torch) {
  std::string name;
  for (const char c : extension) name += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) != 0) name = "ext_" + name;
  std::vector<std::string> flags{"-D__HIP_PLATFORM_AMD__=1",
                                 "-DUSE_ROCM=1",
                                 "-DHIPBLAS_V2",
                                 "-fPIC",
                                 "-DCUDA_HAS_FP16=1",
                                 "-D__HIP_NO_HALF_OPERATORS__=1",
                                 "-D__HIP_NO_HALF_CONVERSIONS__=1",
                                 "-DHIP_ENABLE_WARP_SYNC_BUILTINS=1",
                                 "-DTORCH_API_INCLUDE_EXTENSION_H",
                                 "-DTORCH_EXTENSION_NAME=" + name,
                                 "-std=c++20",
                                 "-O1"};
  // Joined to the flag, so the toolchain passes them as guest paths (they name rootfs directories).
  for (const auto& dir : torch.include_dirs) flags.push_back("-isystem" + dir);
  return flags;
}

std::string map_hipified_lines(const std::string& hipified, std::string_view original,
                               const std::string& original_guest_path) {
  const std::size_t have = count_lines(hipified);
  const std::size_t had = count_lines(original);
  if (have < had || have - had > 4) return hipified;
  std::size_t at = 0;
  for (std::size_t i = 0; i < have - had; ++i) {
    at = hipified.find('\n', at);
    if (at == std::string::npos) return hipified;
    ++at;
  }
  std::string quoted;
  for (const char c : original_guest_path) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return hipified.substr(0, at) + "#line 1 \"" + quoted + "\"\n" + hipified.substr(at);
}

pytorch_hipify_result run_pytorch_hipify(const rootfs_jail& jail, const std::string& project,
                                         const std::vector<std::string>& header_dirs,
                                         const std::vector<std::string>& units, std::chrono::seconds timeout,
                                         const std::function<bool()>& cancelled) {
  plugins::converter::process_options o;
  o.argv = jail.prefix();
  o.argv.insert(o.argv.end(), {"python3", "-c", hipify_driver, project, std::to_string(header_dirs.size())});
  o.argv.insert(o.argv.end(), header_dirs.begin(), header_dirs.end());
  o.argv.insert(o.argv.end(), units.begin(), units.end());
  o.timeout = timeout;
  o.cancelled = cancelled;
  o.max_output = std::size_t{1} << 20;
  pytorch_hipify_result result;
  result.command = plugins::converter::command_line(o.argv);
  const auto r = plugins::converter::run_process(o);
  result.cancelled = r.cancelled;
  result.output = jail.host_text(r.start_error + r.err + r.out);
  if (!r.ok()) return result;
  const std::size_t marker = r.out.rfind("R2R-HIPIFY ");
  if (marker == std::string::npos) return result;
  const std::size_t eol = r.out.find('\n', marker);
  const auto json = nlohmann::json::parse(r.out.substr(marker + 11, eol == std::string::npos ? eol : eol - marker - 11),
                                          nullptr, false);
  if (!json.is_object()) return result;
  for (const auto& [from, to] : json.items()) {
    if (to.is_string()) result.hipified[from] = to.get<std::string>();
  }
  result.ok = true;
  return result;
}

}  // namespace r2r::plugins::converter
