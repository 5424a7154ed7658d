// SPDX-License-Identifier: MIT
// What a repository is, read statically from its files (fingerprint.json, schema
// configs/schema/fingerprint.schema.json). Every finding carries the file (relative to the
// repository root, '/'-separated) and the 1-based line it came from (0 when the finding is about a
// whole file). Malformed inputs never abort a scan: they become `problems` with file and line.
#pragma once

#include <r2r/planning/knowledge.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace r2r::planning {

/// A fact found at a place: a hazard, a kernel, a framework import, an index URL, an asset...
struct finding {
  std::string kind;    // e.g. "nvidia_smi", "cuda_source", "triton_jit", "import"
  std::string name;    // the subject: a package, a module, a file
  std::string detail;  // the evidence (the line, trimmed) or an explanation
  std::string file;
  int line = 0;
  // Set on dependency-like findings (cuda_packages) only; empty elsewhere:
  std::string scope;        // required, optional, vendored (see dependency::scope)
  std::string source;       // where it was declared (dependency::source) or "import"
  std::string alternative;  // the ROCm path the knowledge table names, or empty
};

struct dependency {
  std::string name;       // PEP 503-normalised distribution name
  std::string specifier;  // PEP 440 specifier, e.g. ">=2.0,<3"; empty: any
  std::vector<std::string> extras;
  std::string marker;         // environment marker text, e.g. "python_version < '3.10'"
  std::string local_version;  // "+cu118" style local label when pinned with one
  std::string source;  // requirements, constraints, setup.py, setup.cfg, pyproject, poetry, build-system, conda, readme
  std::string url;     // direct reference (name @ url, git+…), when given
  bool optional = false;  // optional-dependencies / extras_require / dev groups / a dev or test requirements file
  // required: the repository's own install; optional: extras, dev/test/docs files, helper tools'
  // files; vendored: a nested project's file (third_party/, vendor/, a directory with its own
  // setup.py or pyproject.toml). Set for every dependency by scan_repository().
  std::string scope;
  std::vector<std::string> via;  // pip-tools provenance: the `# via` lines of a compiled lock file
  std::string file;
  int line = 0;
};

struct entry_point {
  std::string command;   // the command as it would run, continuation lines joined
  std::string launcher;  // python, python-module, torchrun, accelerate, deepspeed, shell, vllm, script-file
  std::string kind;      // train, infer, eval, other
  std::string source;    // readme, scripts, python-main
  bool runnable = true;  // false for --help, bare imports, missing scripts, required arguments
  std::string why_not;   // why it is not runnable
  bool own = false;      // runs a Python file or module of the repository (python x.py, python -m pkg.entry)
  std::string file;
  int line = 0;
};

struct metric_claim {
  std::string name;  // canonical metric name, e.g. "accuracy"
  double value = 0;
  std::string unit;  // "%", "x" or empty
  std::string text;  // the README line
  std::string file;
  int line = 0;
};

/// A kernel defined by the repository: a `__global__` function of a build's CUDA/HIP sources or an
/// `@triton.jit` function.
struct kernel_site {
  std::string name;
  std::string file;
  int line = 0;
};

/// Something that compiles the repository's own device code, read statically:
/// setup.py's CUDAExtension/CppExtension, torch.utils.cpp_extension.load()/load_inline(), or a
/// Python file with @triton.jit functions.
struct kernel_build {
  std::string kind;                     // cuda_extension, cpp_extension, jit_load, jit_load_inline, triton
  std::string name;                     // the extension module name (name=...), or the Python file for triton
  std::vector<std::string> sources;     // repository-relative source files that were found
  std::vector<std::string> unresolved;  // source expressions that name no file in the repository
  std::vector<kernel_site> kernels;     // __global__ / @triton.jit functions, in file order
  std::string file;                     // where the build is declared
  int line = 0;
};

struct python_requirement {
  std::string spec;       // PEP 440 specifier set combining every source; empty: unknown
  std::string preferred;  // "X.Y" pinned exactly (.python-version, python=3.10, ==3.10.*)
  std::vector<finding> evidence;
};

struct fingerprint {
  std::string source;                   // what the user gave
  std::string url;                      // the clone URL (credentials removed)
  std::string commit;                   // resolved SHA
  std::vector<std::string> frameworks;  // sorted: torch, jax, tensorflow, vllm, sglang, onnxruntime, ...
  std::vector<finding> framework_evidence;
  std::vector<dependency> dependencies;  // every declared dependency, in file order
  std::vector<finding> index_urls;       // kind "cuda_index" or "index"
  std::vector<finding> cuda_packages;    // name = package, kind = knowledge action
  std::vector<finding>
      kernels;  // cuda_source, load_inline, cpp_extension_load, cuda_extension, cpp_extension, triton_jit
  std::vector<finding> extensions;          // name = extension module built by setup.py (CUDAExtension/CppExtension)
  std::vector<kernel_build> kernel_builds;  // each build with its sources and kernel names
  std::vector<finding> scale_values;        // kind = form (argparse_default, config_key...), name = key, detail = value
  std::vector<finding> hazards;             // python and device-code hazards
  std::vector<finding> dockerfiles;         // kind "cuda_base" for FROM nvidia/cuda..., else "base"
  std::vector<entry_point> entry_points;
  std::vector<finding> assets;        // download_url, hf_model, hf_dataset, gdrive, torch_hub
  std::vector<metric_claim> metrics;  // README metric claims (all of them; the plan decides)
  python_requirement python;
  std::vector<std::string> imports;           // third-party top-level imports (stdlib and local modules removed)
  std::vector<std::string> desired_packages;  // normalised names the ranker scores against
  std::string workload;                       // preferred image workload kind (pytorch, vllm, jax, ...)
  bool installable = false;                   // setup.py or a pyproject build-system: `pip install .` works
  std::string build_system;                   // setuptools, poetry, pep517, none
  std::vector<finding> problems;              // malformed files: kind "parse_error"
  // Links (kept as links, never followed out of the repository) and what readers of the tree
  // leave out: kinds of planning/tree_policy.hpp (symlink, git, special, too_large, too_deep,
  // odd_name), name = file = the path (escaped when not plain), line 0.
  std::vector<finding> tree_entries;
  std::size_t files_scanned = 0;
};

struct scan_options {
  std::size_t max_file_bytes = 2 << 20;  // larger files are skipped (a problem is recorded)
};

/// Scans the checked-out tree at `root`. Never throws for repository content; I/O errors on
/// individual files become problems.
fingerprint scan_repository(const std::filesystem::path& root, const knowledge& k, const scan_options& options = {});

nlohmann::json to_json(const fingerprint& f);
void to_json(nlohmann::json& j, const finding& f);
void to_json(nlohmann::json& j, const dependency& d);
void to_json(nlohmann::json& j, const entry_point& e);
void to_json(nlohmann::json& j, const metric_claim& m);
void to_json(nlohmann::json& j, const kernel_site& k);
void to_json(nlohmann::json& j, const kernel_build& b);

}  // namespace r2r::planning
