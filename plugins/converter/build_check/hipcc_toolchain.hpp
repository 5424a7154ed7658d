// SPDX-License-Identifier: MIT
// A hipcc to compile with: either the host's (found in search dirs or $PATH) or the one inside a
// toolchain rootfs run through bubblewrap (rootfs_jail.hpp, what scripts/toolchains/hip.sh builds).
// Knows its version, which gfx targets it can compile for (probed once per target with a
// one-kernel file) and compiles one translation unit.
// THREADING: not thread-safe (probe results are cached); the plugin's calls are serialised.
#pragma once

#include "rootfs_jail.hpp"

#include <r2r/convert/subprocess.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::converter {

class hipcc_toolchain {
 public:
  /// The host's hipcc: `hipcc` is a name or a path; `dirs` are searched before $PATH. nullopt when not found.
  static std::optional<hipcc_toolchain> find(const std::string& hipcc, const std::vector<std::string>& dirs);

  /// The hipcc of a toolchain rootfs, run through `jail`.
  static hipcc_toolchain in_rootfs(rootfs_jail jail);

  /// Host: the hipcc path; rootfs: "<rootfs>/usr/bin/hipcc".
  std::string path() const;

  /// "host" or "rootfs".
  const char* kind() const noexcept { return jail_ ? "rootfs" : "host"; }

  /// "HIP version: 6.4.43484-9999; Debian clang version 21.1.8" (from hipcc --version), computed once.
  const std::string& version();

  /// "HIP 6.4.43484 (rootfs)": what each build result names as its toolchain.
  std::string label();

  /// Rootfs only: the host directories the next compiles see (rootfs_jail::bind). No-op on the host.
  void bind(const std::string& sources, const std::string& scratch);

  struct probe_result {
    bool supported = false;
    std::string output;  // compiler output when not supported
  };
  /// Whether this hipcc compiles device code for `arch`; cached per arch.
  const probe_result& probe(const std::string& arch, const std::string& scratch_dir,
                            const std::function<bool()>& cancelled);

  /// Compiles `source` to `object` for one arch: hipcc -x hip --offload-arch=ARCH -c, or, when
  /// `device_code` is false, as host C++ (hipcc -x c++ -c, no offload target: how
  /// torch.utils.cpp_extension builds an extension's .cpp files). In a rootfs, every path must lie
  /// beneath a bound directory (else the result says so and nothing runs), except a flag joined to
  /// its path such as -isystem/usr/include/x, which names a rootfs directory; the output names host
  /// paths. `command` receives the command line as run.
  plugins::converter::process_result compile(const std::string& source, const std::string& object,
                                             const std::string& arch, const std::vector<std::string>& include_dirs,
                                             const std::vector<std::string>& flags, std::chrono::seconds timeout,
                                             const std::function<bool()>& cancelled, std::string& command,
                                             bool device_code = true) const;

 private:
  explicit hipcc_toolchain(std::string path) : path_(std::move(path)) {}
  plugins::converter::process_result run(std::vector<std::string> args, std::chrono::seconds timeout,
                                         const std::function<bool()>& cancelled, std::string& command) const;

  std::string path_;  // host hipcc, or "hipcc" inside the rootfs
  std::optional<rootfs_jail> jail_;
  std::optional<std::string> version_;
  std::map<std::string, probe_result> probes_;
  probe_result uncached_;  // the result of a cancelled probe
};

}  // namespace r2r::plugins::converter
