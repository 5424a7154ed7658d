// SPDX-License-Identifier: MIT
#include "hipcc_toolchain.hpp"

#include <filesystem>
#include <fstream>
#include <regex>

namespace r2r::plugins::converter {

std::optional<hipcc_toolchain> hipcc_toolchain::find(const std::string& hipcc, const std::vector<std::string>& dirs) {
  auto path = plugins::converter::find_program(hipcc, dirs);
  if (!path) return std::nullopt;
  return hipcc_toolchain(*path);
}

hipcc_toolchain hipcc_toolchain::in_rootfs(rootfs_jail jail) {
  hipcc_toolchain t("/usr/bin/hipcc");
  t.jail_ = std::move(jail);
  return t;
}

std::string hipcc_toolchain::path() const {
  return jail_ ? jail_->rootfs() + path_ : path_;
}

void hipcc_toolchain::bind(const std::string& sources, const std::string& scratch) {
  if (jail_) jail_->bind(sources, scratch);
}

plugins::converter::process_result hipcc_toolchain::run(std::vector<std::string> args, std::chrono::seconds timeout,
                                                        const std::function<bool()>& cancelled,
                                                        std::string& command) const {
  plugins::converter::process_options o;
  if (jail_) {
    o.argv = jail_->prefix();
    o.argv.push_back(path_);
    for (auto& a : args) {
      // Paths are passed as "-I/x", "--flag=/x" or "/x"; each must map into the jail.
      const std::size_t slash = a.find('/');
      if (slash == std::string::npos || (slash > 0 && a.compare(0, 2, "-I") != 0)) {
        o.argv.push_back(std::move(a));
        continue;
      }
      const auto guest = jail_->guest_path(a.substr(slash));
      if (!guest) {
        plugins::converter::process_result r;
        r.start_error = "path " + a.substr(slash) +
                        " is outside the directories bound into the toolchain rootfs; nothing was compiled";
        command = plugins::converter::command_line(o.argv);
        return r;
      }
      o.argv.push_back(a.substr(0, slash) + *guest);
    }
  } else {
    o.argv = {path_};
    o.argv.insert(o.argv.end(), args.begin(), args.end());
  }
  o.timeout = timeout;
  o.cancelled = cancelled;
  o.max_output = std::size_t{256} << 10;
  command = plugins::converter::command_line(o.argv);
  auto r = plugins::converter::run_process(o);
  if (jail_) {
    r.out = jail_->host_text(std::move(r.out));
    r.err = jail_->host_text(std::move(r.err));
  }
  return r;
}

const std::string& hipcc_toolchain::version() {
  if (version_) return *version_;
  std::string command;
  const auto r = run({"--version"}, std::chrono::seconds(60), {}, command);
  std::string v;
  const std::string text = r.start_error + r.out + r.err;
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

std::string hipcc_toolchain::label() {
  static const std::regex hip("HIP version: *([0-9]+\\.[0-9]+(\\.[0-9]+)?)");
  std::smatch m;
  const std::string& v = version();
  const std::string number = std::regex_search(v, m, hip) ? m[1].str() : std::string("unknown");
  return "HIP " + number + " (" + kind() + ")";
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

plugins::converter::process_result hipcc_toolchain::compile(
    const std::string& source, const std::string& object, const std::string& arch,
    const std::vector<std::string>& include_dirs, const std::vector<std::string>& flags, std::chrono::seconds timeout,
    const std::function<bool()>& cancelled, std::string& command, bool device_code) const {
  std::vector<std::string> args;
  if (device_code) args.push_back("--offload-arch=" + arch);
  for (const auto& dir : include_dirs) args.push_back("-I" + dir);
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"-x", device_code ? "hip" : "c++", "-c", source, "-o", object});
  return run(std::move(args), timeout, cancelled, command);
}

}  // namespace r2r::plugins::converter
