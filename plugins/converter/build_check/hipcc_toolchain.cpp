// SPDX-License-Identifier: MIT
#include "hipcc_toolchain.hpp"

#include <filesystem>
#include <fstream>

namespace r2r::plugins::converter {

std::optional<hipcc_toolchain> hipcc_toolchain::find(const std::string& hipcc, const std::vector<std::string>& dirs) {
  auto path = convert::find_program(hipcc, dirs);
  if (!path) return std::nullopt;
  return hipcc_toolchain(*path);
}

const std::string& hipcc_toolchain::version() {
  if (version_) return *version_;
  convert::process_options o;
  o.argv = {path_, "--version"};
  o.timeout = std::chrono::seconds(60);
  const auto r = convert::run_process(o);
  std::string v;
  const std::string text = r.out + r.err;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t eol = text.find('\n', start);
    if (eol == std::string::npos) eol = text.size();
    const std::string line = text.substr(start, eol - start);
    if (line.rfind("HIP version", 0) == 0 || line.find("clang version") != std::string::npos) {
      v += (v.empty() ? "" : "; ") + line;
    }
    start = eol + 1;
  }
  version_ = v.empty() ? std::string("unknown (hipcc --version printed no version)") : v;
  return *version_;
}

const hipcc_toolchain::probe_result& hipcc_toolchain::probe(const std::string& arch, const std::string& scratch_dir,
                                                            const std::function<bool()>& cancelled) {
  if (auto it = probes_.find(arch); it != probes_.end()) return it->second;
  const std::filesystem::path source = std::filesystem::path(scratch_dir) / "r2r_probe.hip";
  std::ofstream(source) << "#include <hip/hip_runtime.h>\n__global__ void r2r_probe(int* p) { p[threadIdx.x] = 1; }\n";
  std::string command;
  const auto r = compile(source.string(), (std::filesystem::path(scratch_dir) / ("r2r_probe_" + arch + ".o")).string(),
                         arch, {}, {}, std::chrono::seconds(300), cancelled, command);
  probe_result result;
  result.supported = r.ok();
  if (!result.supported) result.output = r.start_error + r.err + r.out;
  if (r.cancelled) return uncached_ = result;  // not cached under the arch: ask again next time
  return probes_[arch] = result;
}

convert::process_result hipcc_toolchain::compile(const std::string& source, const std::string& object,
                                                 const std::string& arch, const std::vector<std::string>& include_dirs,
                                                 const std::vector<std::string>& flags, std::chrono::seconds timeout,
                                                 const std::function<bool()>& cancelled, std::string& command) const {
  convert::process_options o;
  o.argv = {path_, "--offload-arch=" + arch};
  for (const auto& dir : include_dirs) o.argv.push_back("-I" + dir);
  o.argv.insert(o.argv.end(), flags.begin(), flags.end());
  o.argv.insert(o.argv.end(), {"-x", "hip", "-c", source, "-o", object});
  o.timeout = timeout;
  o.cancelled = cancelled;
  o.max_output = std::size_t{256} << 10;
  command = convert::command_line(o.argv);
  return convert::run_process(o);
}

}  // namespace r2r::plugins::converter
