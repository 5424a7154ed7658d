// SPDX-License-Identifier: MIT
// What r2r.guard.critical-source-edit protects and how it grades an edit. A file is critical when
// it is a kernel source (.cu/.cuh/.hip always; C/C++ with __global__ kernels or launches; a file
// the plan lists in kernel_builds or device hazards), an extension build file (setup.py,
// CMakeLists.txt, *.cmake, pyproject.toml build sections), or attention code (mentions
// flash_attn, xformers, scaled_dot_product_attention, attn_implementation). An edit is graded by
// the worst thing its removed and added lines do:
//   acceleration_disabled (D4): comments out or deletes an import of an accelerator module,
//     stubs a function (body -> pass / ... / return), adds raise NotImplementedError, comments
//     out code of a critical file, removes extension build declarations, deletes a build file;
//   kernel_replaced (D3): removes kernel definitions (__global__, @triton.jit) or launches
//     (<<< >>>, hipLaunchKernelGGL, torch.ops / _C calls), deletes a kernel source;
//   attention_fallback (D2): removes flash-attn / xformers use, or selects sdpa / eager;
//   port (D1): any other edit of a critical file: it keeps every kernel, launch, extension and
//     attention call (hipify renames, wave64 fixes).
#pragma once

#include <r2r/guards/text_change.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace r2r::plugins::guard::critical {

/// What the plan says about the repository's kernels: files of kernel_builds and of device
/// hazards (normalised paths), and the names of its extensions and JIT kernels.
struct plan_facts {
  std::set<std::string> kernel_files;
  std::set<std::string> module_names;
};
plan_facts facts_of(const nlohmann::json& plan);

/// Why `path` is critical, judged from its name and `lines` (any text known of it): "kernel
/// source", "extension build file", "attention code"; "" when it is not.
std::string critical_kind(const std::string& path, const std::vector<std::string>& lines, const plan_facts& facts);

/// True when `module` (as imported: "flash_attn.ops", "my_ext._C") is an accelerator module:
/// flash_attn, xformers, apex, bitsandbytes, triton, deepspeed, vllm, mamba_ssm, causal_conv1d,
/// names with _C / _cuda / _ext / cuda parts, torch.utils.cpp_extension, or a plan module name.
bool accelerator_module(const std::string& module, const plan_facts& facts);

struct grade {
  std::string component;  // acceleration_disabled, kernel_replaced, attention_fallback, port
  std::string what;       // what the edit does, for reason and ledger note
};

/// Grades `change`. `baseline_known` is false when the lines removed are unknown (write_file of
/// a file the guard never saw): then only what the added lines show counts. Empty for an edit of
/// a non-critical file that degrades nothing.
std::vector<grade> grade_change(const file_change& change, bool baseline_known, const plan_facts& facts);

}  // namespace r2r::plugins::guard::critical
