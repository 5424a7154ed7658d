// SPDX-License-Identifier: MIT
// Classifies GPU kernel names from a dispatch trace or profiler into the families a verdict
// cares about: flash attention, the SDPA/math attention fallback, vendor BLAS, MIOpen/cuDNN,
// collective communication, and the repository's own custom kernels.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier {

enum class kernel_family { flash_attention, sdpa_fallback, blas, dnn, collective, custom, other };
std::string_view to_string(kernel_family f);

/// `custom_names` are the repository's own kernel names (from the plan's kernel_builds and hazards
/// or the `__global__` functions of its sources); a name matches when it equals one of them or
/// contains it as a whole identifier (`my_kernel` matches "void my_kernel<float>(float*)").
/// Custom names win over the built-in families.
kernel_family classify_kernel(std::string_view name, const std::vector<std::string>& custom_names = {});

/// True when `name` contains `ident` delimited by non-identifier characters.
bool contains_identifier(std::string_view name, std::string_view ident);

/// Names of `__global__` functions declared in CUDA/HIP source text.
std::vector<std::string> global_function_names(std::string_view source);

}  // namespace r2r::plugins::verifier
