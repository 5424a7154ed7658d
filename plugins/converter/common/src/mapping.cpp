// SPDX-License-Identifier: MIT
#include <r2r/convert/mapping.hpp>

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <string_view>
#include <vector>

// The generated tables (namespace r2r::plugins::converter::generated). See tools/generate_hipify_map.py.
#include "hipify_map.inc"

namespace r2r::plugins::converter {
namespace {

std::uint64_t hash_bytes(std::string_view s) noexcept {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

/// Open-addressing index over a span of rows keyed by a string member. Built once, immutable.
template <class Row>
class string_index {
 public:
  template <class Key>
  string_index(std::span<const Row> rows, Key key) : rows_(rows) {
    std::size_t size = 16;
    while (size < rows.size() * 2) size *= 2;
    slots_.assign(size, empty);
    mask_ = size - 1;
    for (std::uint32_t i = 0; i < rows.size(); ++i) {
      const std::string_view k = key(rows[i]);
      if (k.empty()) continue;
      std::size_t slot = hash_bytes(k) & mask_;
      while (slots_[slot] != empty) slot = (slot + 1) & mask_;
      slots_[slot] = i;
    }
  }

  template <class Key>
  const Row* find(std::string_view name, Key key) const noexcept {
    std::size_t slot = hash_bytes(name) & mask_;
    while (slots_[slot] != empty) {
      const Row& row = rows_[slots_[slot]];
      if (key(row) == name) return &row;
      slot = (slot + 1) & mask_;
    }
    return nullptr;
  }

 private:
  static constexpr std::uint32_t empty = 0xffffffffu;
  std::span<const Row> rows_;
  std::vector<std::uint32_t> slots_;
  std::size_t mask_ = 0;
};

constexpr auto cuda_key = [](const name_row& r) { return r.cuda; };
constexpr auto hip_key = [](const name_row& r) { return r.hip; };

struct indexes {
  string_index<name_row> by_cuda{name_rows(), cuda_key};
  string_index<name_row> by_hip{name_rows(), hip_key};
  std::bitset<65536> prefixes;

  indexes() {
    for (const auto& row : name_rows()) prefixes.set(prefix_bits(row.cuda));
    for (const auto& row : namespace_rows()) prefixes.set(prefix_bits(row.cuda));
    for (const auto& row : unlisted_rows()) prefixes.set(prefix_bits(row.cuda));
  }
  static std::size_t prefix_bits(std::string_view s) noexcept {
    const auto first = static_cast<unsigned char>(s.empty() ? '\0' : s[0]);
    const auto second = static_cast<unsigned char>(s.size() < 2 ? '\0' : s[1]);
    return static_cast<std::size_t>(first) << 8 | second;
  }
};

const indexes& index() {
  static const indexes built;  // thread-safe initialisation (C++11 magic statics)
  return built;
}

}  // namespace

std::string_view api_name(api a) noexcept {
  switch (a) {
    case api::runtime:
      return "runtime";
    case api::driver:
      return "driver";
    case api::device:
      return "device";
    case api::rtc:
      return "rtc";
    case api::complex:
      return "complex";
    case api::blas:
      return "blas";
    case api::rand:
      return "rand";
    case api::fft:
      return "fft";
    case api::sparse:
      return "sparse";
    case api::solver:
      return "solver";
    case api::dnn:
      return "dnn";
    case api::cub:
      return "cub";
    case api::nccl:
      return "nccl";
    case api::thrust:
      return "thrust";
    case api::libcudacxx:
      return "libcudacxx";
    case api::samples:
      return "samples";
  }
  return "unknown";
}

std::string_view api_display_name(api a) noexcept {
  switch (a) {
    case api::runtime:
      return "CUDA runtime API";
    case api::driver:
      return "CUDA driver API";
    case api::device:
      return "CUDA device API";
    case api::rtc:
      return "NVRTC";
    case api::complex:
      return "cuComplex";
    case api::blas:
      return "cuBLAS";
    case api::rand:
      return "cuRAND";
    case api::fft:
      return "cuFFT";
    case api::sparse:
      return "cuSPARSE";
    case api::solver:
      return "cuSOLVER";
    case api::dnn:
      return "cuDNN";
    case api::cub:
      return "CUB";
    case api::nccl:
      return "NCCL";
    case api::thrust:
      return "Thrust";
    case api::libcudacxx:
      return "libcu++";
    case api::samples:
      return "CUDA samples";
  }
  return "unknown";
}

std::span<const name_row> name_rows() noexcept {
  return generated::names;
}
std::span<const std::string_view> section_names() noexcept {
  return generated::section_names;
}
std::span<const header_row> header_rows() noexcept {
  return generated::headers;
}
std::span<const header_row> header_prefix_rows() noexcept {
  return generated::header_prefixes;
}
std::span<const library_row> library_rows() noexcept {
  return generated::libraries;
}
std::span<const namespace_row> namespace_rows() noexcept {
  return generated::namespaces;
}
std::span<const unlisted_row> unlisted_rows() noexcept {
  return generated::unlisted_names;
}

const name_row* find_name(std::string_view cuda_name) noexcept {
  return index().by_cuda.find(cuda_name, cuda_key);
}

bool may_be_name(char first, char second) noexcept {
  const auto bits =
      static_cast<std::size_t>(static_cast<unsigned char>(first)) << 8 | static_cast<unsigned char>(second);
  return index().prefixes.test(bits);
}

bool is_hip_name(std::string_view hip_name) noexcept {
  return !hip_name.empty() && index().by_hip.find(hip_name, hip_key) != nullptr;
}

const header_row* find_header(std::string_view include_path) noexcept {
  for (const auto& row : header_rows()) {
    if (row.cuda == include_path) return &row;
  }
  const header_row* best = nullptr;
  for (const auto& row : header_prefix_rows()) {
    if (include_path.substr(0, row.cuda.size()) == row.cuda && (best == nullptr || row.cuda.size() > best->cuda.size()))
      best = &row;
  }
  return best;
}

const library_row* find_library(std::string_view cuda_link_name) noexcept {
  for (const auto& row : library_rows()) {
    if (row.cuda == cuda_link_name) return &row;
  }
  return nullptr;
}

const library_row* find_cmake_target(std::string_view cuda_cmake_target) noexcept {
  for (const auto& row : library_rows()) {
    if (!row.cmake_cuda.empty() && row.cmake_cuda == cuda_cmake_target) return &row;
  }
  return nullptr;
}

const namespace_row* find_namespace(std::string_view cuda_namespace) noexcept {
  for (const auto& row : namespace_rows()) {
    if (row.cuda == cuda_namespace) return &row;
  }
  return nullptr;
}

const unlisted_row* find_unlisted(std::string_view cuda_name) noexcept {
  const auto rows = unlisted_rows();
  const auto it = std::lower_bound(rows.begin(), rows.end(), cuda_name,
                                   [](const unlisted_row& row, std::string_view name) { return row.cuda < name; });
  return it != rows.end() && it->cuda == cuda_name ? &*it : nullptr;
}

}  // namespace r2r::plugins::converter
