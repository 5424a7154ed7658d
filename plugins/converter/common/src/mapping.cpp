// SPDX-License-Identifier: MIT
#include <r2r/convert/mapping.hpp>

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <cstring>
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

/// A word-at-a-time hash for find_any_name, a few instructions per 8 bytes where FNV-1a takes
/// three per byte. It reads only the bytes of `s` (short tails by overlapping loads).
std::uint64_t hash_words(std::string_view s) noexcept {
  const char* p = s.data();
  const std::size_t n = s.size();
  std::uint64_t h = 0x9e3779b97f4a7c15ull * (n + 1);
  const auto mix = [&h](std::uint64_t w) {
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  };
  if (n >= 8) {
    std::uint64_t w;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::memcpy(&w, p + i, 8);
      mix(w);
    }
    if (i < n) {
      std::memcpy(&w, p + n - 8, 8);
      mix(w);
    }
  } else if (n >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    mix(static_cast<std::uint64_t>(a) | static_cast<std::uint64_t>(b) << 32);
  } else if (n > 0) {
    const auto byte = [p](std::size_t i) { return static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])); };
    mix(byte(0) | byte(n / 2) << 8 | byte(n - 1) << 16);
  }
  return h;
}

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

/// Every name of the name, namespace and unlisted tables with what the three lookups answer for
/// it, computed by those lookups themselves, so find_any_name cannot disagree with them.
class any_name_index {
 public:
  any_name_index() {
    std::size_t size = 16;
    while (size < 2 * (name_rows().size() + namespace_rows().size() + unlisted_rows().size())) size *= 2;
    slots_.assign(size, empty);
    mask_ = size - 1;
    const auto add = [this](std::string_view name) {
      if (name.empty()) return;
      std::size_t slot = hash_words(name) & mask_;
      for (; slots_[slot] != empty; slot = (slot + 1) & mask_) {
        if (entries_[slots_[slot]].name == name) return;  // a name in two tables: one entry answers for both
      }
      entries_.push_back({name, {find_name(name), find_namespace(name), find_unlisted(name)}});
      slots_[slot] = static_cast<std::uint32_t>(entries_.size() - 1);
      prefixes_.set(indexes::prefix_bits(name));
    };
    for (const auto& row : name_rows()) add(row.cuda);
    for (const auto& row : namespace_rows()) add(row.cuda);
    for (const auto& row : unlisted_rows()) add(row.cuda);
  }

  name_lookup find(std::string_view name) const noexcept {
    if (name.empty() || !prefixes_.test(indexes::prefix_bits(name))) return {};
    for (std::size_t slot = hash_words(name) & mask_; slots_[slot] != empty; slot = (slot + 1) & mask_) {
      const entry& e = entries_[slots_[slot]];
      if (e.name == name) return e.found;
    }
    return {};
  }

 private:
  struct entry {
    std::string_view name;
    name_lookup found;
  };
  static constexpr std::uint32_t empty = 0xffffffffu;
  std::vector<entry> entries_;
  std::vector<std::uint32_t> slots_;
  std::size_t mask_ = 0;
  std::bitset<65536> prefixes_;  // the first two bytes of every name: most identifiers stop here
};

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

name_lookup find_any_name(std::string_view name) noexcept {
  static const any_name_index names;  // built on first use (thread-safe); it calls the lookups above
  return names.find(name);
}

const unlisted_row* find_unlisted(std::string_view cuda_name) noexcept {
  const auto rows = unlisted_rows();
  const auto it = std::lower_bound(rows.begin(), rows.end(), cuda_name,
                                   [](const unlisted_row& row, std::string_view name) { return row.cuda < name; });
  return it != rows.end() && it->cuda == cuda_name ? &*it : nullptr;
}

}  // namespace r2r::plugins::converter
