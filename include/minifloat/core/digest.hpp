// SPDX-License-Identifier: Apache-2.0
// core/digest.hpp: the digest of the long f32 sweep (scripts/sweep, tests/sweep/sweep_main.cpp), host
// and device, so the CPU sweep, the CUDA engine kernel and the committed golden file
// (tests/cuda/golden/sweep_digests.txt) hash exactly the same bytes.
//
// Definition: FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3) over the low byte of
// the engine's output code of each input of a 2^16-input chunk, in input order (the chunk digest);
// the combination digest is FNV-1a 64 over the chunk digests, each as 8 bytes little-endian, in
// chunk order. Inputs are binary32 bit patterns: index i of the full sweep is the pattern i (stride
// 1: 2^32 inputs, 65536 chunks); with a stride S it is i · S; the structured set is
// ((i / 6) << 16) | {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff}[i % 6] (393216 inputs).
#pragma once
#include <cstdint>

#include "config.hpp"

namespace minifloat {

inline constexpr std::uint64_t kFnv1a64Offset = 0xcbf29ce484222325ull;
inline constexpr std::uint64_t kFnv1a64Prime = 0x100000001b3ull;
/// Inputs per chunk digest of the sweep (2^16).
inline constexpr std::uint64_t kSweepChunk = std::uint64_t{1} << 16;

/// One FNV-1a 64 step: h' = (h xor byte) · prime (mod 2^64).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t fnv1a64_byte(std::uint64_t h, std::uint8_t byte) noexcept {
  return (h ^ byte) * kFnv1a64Prime;
}
/// FNV-1a 64 over the 8 bytes of `v`, least significant first (how chunk digests are combined).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t fnv1a64_u64le(std::uint64_t h, std::uint64_t v) noexcept {
  for (int b = 0; b < 8; ++b) h = fnv1a64_byte(h, static_cast<std::uint8_t>(v >> (8 * b)));
  return h;
}

/// Which binary32 patterns a sweep visits (see the header comment).
enum class SweepSampling : std::uint8_t {
  strided,     ///< i · stride, i < ceil(2^32 / stride)
  structured,  ///< every top-16-bit prefix × the six low halves 0000 0001 7fff 8000 8001 ffff
};

/// The number of inputs of a sweep with `sampling` (stride read only when strided, ≥ 1).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t sweep_input_count(SweepSampling sampling, std::uint64_t stride) noexcept {
  constexpr std::uint64_t all = std::uint64_t{1} << 32;
  return sampling == SweepSampling::structured ? (std::uint64_t{1} << 16) * 6 : (all + stride - 1) / stride;
}
/// The binary32 pattern of sweep input `i`.
MINIFLOAT_HOST_DEVICE constexpr std::uint32_t sweep_input(SweepSampling sampling, std::uint64_t stride,
                                                          std::uint64_t i) noexcept {
  if (sampling == SweepSampling::structured) {
    constexpr std::uint32_t low[6] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};
    return static_cast<std::uint32_t>(((i / 6) << 16) | low[i % 6]);
  }
  return static_cast<std::uint32_t>(i * stride);
}

}  // namespace minifloat
