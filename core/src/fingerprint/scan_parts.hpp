// SPDX-License-Identifier: MIT
// The per-file scanners of scan_repository() and the state they share. Each scanner appends
// findings (with file and line) to the fingerprint under construction and never throws for file
// content: malformed content becomes a "parse_error" problem.
#pragma once

#include <r2r/planning/fingerprint.hpp>
#include <r2r/support/safe_fs.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace r2r::planning::detail {

struct scan_state {
  const knowledge& k;
  fingerprint& fp;
  std::filesystem::path root;
  std::size_t max_file_bytes = 2 << 20;
  std::set<std::string> files;                       // every scanned relative path
  std::set<std::string> local_modules;               // top-level importable names defined by the repository
  std::map<std::string, finding> imports;            // top-level module -> first import site
  std::set<std::string> requirement_files;           // already read (for -r / -c cycles)
  const safe_fs::root* tree = nullptr;               // the repository; every read goes through it (never out)
  std::set<std::string> conda_files_named{};         // environment files a README names (conda env create -f)
  std::set<std::string> conda_files_read{};          // environment files already read
  std::set<std::string> named_by_command{};          // dependency files a README or script command names
  std::map<std::string, std::string> included_by{};  // dependency file -> the file whose -r included it

  /// Reads `rel` beneath the repository: never through a link (a link inside the repository is read
  /// as its target when that resolves inside, one hop), never a FIFO or device, never more than
  /// max_file_bytes. False with `why` set otherwise.
  bool read(const std::string& rel, std::string& out, std::string& why) const;

  void problem(const std::string& file, int line, std::string message) {
    fp.problems.push_back({"parse_error", "", std::move(message), file, line});
  }
};

/// Parses one PEP 508 requirement ("name[extra]>=1; marker", "name @ url", "git+url#egg=name").
/// Returns nothing and sets `error` when the text is not a requirement.
std::optional<dependency> parse_requirement(std::string_view text, std::string& error);

void scan_python(scan_state& s, const std::string& rel, std::string_view text);
void scan_cuda_source(scan_state& s, const std::string& rel, std::string_view text);
void scan_requirements_file(scan_state& s, const std::string& rel, const std::string& source_kind);
void scan_setup_py(scan_state& s, const std::string& rel, std::string_view text);
void scan_setup_cfg(scan_state& s, const std::string& rel, std::string_view text);
void scan_pyproject(scan_state& s, const std::string& rel, std::string_view text);
void scan_conda_env(scan_state& s, const std::string& rel, std::string_view text);
/// One conda package spec ("cudatoolkit=11.3", "nvidia::cuda-nvcc", "pytorch") found at rel:line.
void add_conda_spec(scan_state& s, const std::string& rel, const std::string& spec, int line,
                    const std::string& source);
/// A conda channel; "nvidia" (the CUDA channel) is recorded as a `cuda_channel` index.
void note_conda_channel(scan_state& s, const std::string& channel, const std::string& rel, int line);
/// An environment file named by a command (`conda env create -f FILE`), read after the listing.
void conda_file_named(scan_state& s, const std::string& path);
/// pip/conda install commands of a README or script line: dependencies, -r files, channels, indices.
/// `source` is the dependency source of what it names: "readme" or "script".
void scan_install_command(scan_state& s, std::string_view command, const std::string& source, const std::string& rel,
                          int line);

/// The scope of a dependency file: required (top level, requirements/, named by a README command or
/// included by a required file), optional (a dev/test/docs file; a helper directory's own file) or
/// vendored (beneath third_party/, vendor/, external/... or a directory with its own setup.py or
/// pyproject.toml). Needs the full listing (s.files).
std::string file_scope(const scan_state& s, const std::string& rel);
/// True when `rel` lies in a vendored directory (as file_scope describes).
bool vendored_path(const scan_state& s, const std::string& rel);
void scan_dockerfile(scan_state& s, const std::string& rel, std::string_view text);
void scan_readme(scan_state& s, const std::string& rel, std::string_view text);
void scan_shell_script(scan_state& s, const std::string& rel, std::string_view text);
void scan_python_version_file(scan_state& s, const std::string& rel, std::string_view text);

/// setup.py's CUDAExtension/CppExtension calls (also recorded in kernels/extensions).
void scan_setup_py_builds(scan_state& s, const std::string& rel, std::string_view text);
/// cpp_extension.load()/load_inline() calls and @triton.jit functions of one Python file.
void scan_python_builds(scan_state& s, const std::string& rel, std::string_view text);
/// After every file is listed: each extension/load() build's __global__ kernels from its sources.
void resolve_kernel_builds(scan_state& s);
/// `__global__` functions in CUDA/HIP text; `first_line` is the file line of text[0].
std::vector<kernel_site> global_kernels(std::string_view text, const std::string& file, int first_line);

/// Scale-bearing values (epochs, steps, batch size...) of a Python or configuration file.
void scan_scale_values(scan_state& s, const std::string& rel, std::string_view text);

/// Reads a shell command line (README block line or script line) as a workload entry point:
/// python / python -m / torchrun / accelerate launch / deepspeed / bash x.sh / ./x.sh / vllm serve.
/// Returns nothing for other commands (pip, git, cd, echo...).
std::optional<entry_point> command_entry_point(const scan_state& s, std::string_view command, const std::string& source,
                                               const std::string& file, int line);

/// train, infer, eval or other, from the words of a script path or module and its arguments.
std::string classify_words(std::string_view script, std::string_view arguments);

/// Adds the Python requirement `spec` found at file:line (combined with what was found before).
void add_python_spec(scan_state& s, std::string spec, const std::string& file, int line, const std::string& detail);

/// Converts a Poetry constraint ("^3.9", "~1.2", ">=3.8,<4") to a PEP 440 specifier set.
std::string poetry_to_pep440(std::string_view constraint);

}  // namespace r2r::planning::detail
