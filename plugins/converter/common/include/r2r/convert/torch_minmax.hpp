// SPDX-License-Identifier: MIT
// Keeps std::max/std::min calls of PyTorch-extension sources intact through PyTorch's own hipify.
//
// On ROCm, torch.utils.cpp_extension runs PyTorch's hipify over the port's output; in every .cu and
// .cuh file it replaces the text `std::max(` with `::max(` and `std::min(` with `::min(`
// (MATH_TRANSPILATIONS, a workaround from before HIP could call std:: functions in device code).
// HIP's ::max/::min take exactly two arguments of one type and are not constexpr, so valid CUDA
// breaks: `std::max({a, b, c})` (initializer list), `constexpr int n = std::min(8, k)` (constant
// expression), and `::std::max(` becomes `::::max(`. clang compiles std::max/std::min in device
// code, so the port writes such a call `(std::max)(...)`: the same function, called the same way,
// and text PyTorch's hipify does not match. Each rewrite is a "ported" note.
//
// Only .cu/.cuh files (those PyTorch's replacement touches) that include a PyTorch header
// (<torch/...>, <ATen/...>, <c10/...>: compiled as an extension) are changed; `std::max<T>(` and
// names in comments, strings and directives are left as they are. Lines keep their numbers.
// THREADING: a pure function of its input.
#pragma once

#include <r2r/convert/cuda_idioms.hpp>

#include <string_view>

namespace r2r::plugins::converter {

/// The port above of `text` (the file `path`); text the lexer cannot read is returned unchanged.
idiom_port port_torch_minmax(std::string_view path, std::string_view text);

}  // namespace r2r::plugins::converter
