// SPDX-License-Identifier: MIT
// Host emulation of the __hip_bfloat16 conversions the idiom test uses (round to nearest even, as
// HIP's __float2bfloat16 does for finite values).
#pragma once

#include <cstdint>
#include <cstring>

struct __hip_bfloat16 {
  std::uint16_t bits;
};

inline __hip_bfloat16 __float2bfloat16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return __hip_bfloat16{static_cast<std::uint16_t>(u >> 16)};
}

inline float __bfloat162float(__hip_bfloat16 h) {
  const std::uint32_t u = static_cast<std::uint32_t>(h.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
