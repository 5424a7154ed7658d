// SPDX-License-Identifier: MIT
// The local hipcc: where it is, what version it is, which gfx targets it can compile for (probed
// once per target with a one-kernel file), and one compile of a translation unit.
// THREADING: not thread-safe (probe results are cached); the plugin's calls are serialised.
#pragma once

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
  /// `hipcc` is a name or a path; `dirs` are searched before $PATH. nullopt when not found.
  static std::optional<hipcc_toolchain> find(const std::string& hipcc, const std::vector<std::string>& dirs);

  const std::string& path() const noexcept { return path_; }

  /// "HIP version: 5.2.21153-0; Debian clang version 15.0.6" (from hipcc --version), computed once.
  const std::string& version();

  struct probe_result {
    bool supported = false;
    std::string output;  // compiler output when not supported
  };
  /// Whether this hipcc compiles device code for `arch`; cached per arch.
  const probe_result& probe(const std::string& arch, const std::string& scratch_dir,
                            const std::function<bool()>& cancelled);

  /// Compiles `source` to `object` for one arch: hipcc -x hip --offload-arch=ARCH -c.
  convert::process_result compile(const std::string& source, const std::string& object, const std::string& arch,
                                  const std::vector<std::string>& include_dirs, const std::vector<std::string>& flags,
                                  std::chrono::seconds timeout, const std::function<bool()>& cancelled,
                                  std::string& command) const;

 private:
  explicit hipcc_toolchain(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::optional<std::string> version_;
  std::map<std::string, probe_result> probes_;
  probe_result uncached_;  // the result of a cancelled probe
};

}  // namespace r2r::plugins::converter
