// SPDX-License-Identifier: Apache-2.0
// core/random.hpp: counter-based random bits for stochastic rounding, identical on CPU and GPU.
// Philox4x32-10 comes from Random123 (Debian librandom123-dev; host and nvcc); this header only
// fixes how (seed, stream, step, element index) map to counters and words.
#pragma once
#include <Random123/philox.h>

#include <cstdint>

#include "config.hpp"
#include "rounding.hpp"

namespace minifloat {

/// One Philox4x32-10 block: 4 words for a 128-bit counter (c0 least significant) and a 64-bit
/// key (k0 = low half). Known answers (Random123 kat_vectors): counter 0, key 0 →
/// 6627e8d5 e169c58d bc57ac4c 9b00dbd8.
struct PhiloxBlock {
  std::uint32_t w[4];
};
MINIFLOAT_HOST_DEVICE inline PhiloxBlock philox4x32_10(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2,
                                                       std::uint32_t c3, std::uint32_t k0, std::uint32_t k1) noexcept {
  r123::Philox4x32_R<10> gen;
  r123::Philox4x32_R<10>::ctr_type ctr = {{c0, c1, c2, c3}};
  r123::Philox4x32_R<10>::key_type key = {{k0, k1}};
  const auto out = gen(ctr, key);
  return PhiloxBlock{{out.v[0], out.v[1], out.v[2], out.v[3]}};
}

/// The `offset`-th 32-bit word of the stream that cuRAND's `curand_init(seed, subsequence,
/// offset = 0, &state)` followed by `curand(&state)` calls produces (spec-digest §8, T25):
/// key = (seed lo32, seed hi32); counter = (offset/4 as the low 64 bits, subsequence as the
/// high 64 bits); word = offset mod 4. NB: cuRAND's offset counts 32-bit draws; PyTorch's
/// `philox_engine(seed, subsequence, offset)` and TE's curanddx count 128-bit blocks, so
/// PyTorch offset k is cuRAND offset 4k.
MINIFLOAT_HOST_DEVICE inline std::uint32_t curand_word(std::uint64_t seed, std::uint64_t subsequence,
                                                       std::uint64_t offset) noexcept {
  const std::uint64_t block = offset >> 2;
  const PhiloxBlock b = philox4x32_10(static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                                      static_cast<std::uint32_t>(subsequence),
                                      static_cast<std::uint32_t>(subsequence >> 32), static_cast<std::uint32_t>(seed),
                                      static_cast<std::uint32_t>(seed >> 32));
  return b.w[offset & 3];
}

/// Random words per element: 2 for SrVariant::exact (a 64-bit R), 1 otherwise.
MINIFLOAT_HOST_DEVICE constexpr unsigned sr_words(SrVariant v) noexcept { return v == SrVariant::exact ? 2u : 1u; }

/// minifloat's stochastic-rounding stream layout. Element `index` of tensor/stream `stream` at
/// training step `step` under `seed` reads the cuRAND stream
///     subsequence = step · 2^32 + stream,   offset = index · sr_words(variant)
/// i.e. Philox counter (c0, c1) = 64-bit block number, c2 = stream, c3 = step, key = seed.
///   - exact: R = word[offset] | word[offset + 1] << 32 (two consecutive words; element i uses
///     block i/2, words 2(i mod 2) and 2(i mod 2) + 1);
///   - A/B/C/equal: R = word[offset] (block i/4, word i mod 4); the variant reads its low N bits.
/// The result depends only on (seed, stream, step, index): never on threads or chunking, and a
/// CUDA kernel calling this with the same arguments gets the same bits.
MINIFLOAT_HOST_DEVICE inline std::uint64_t sr_bits(std::uint64_t seed, std::uint32_t stream, std::uint32_t step,
                                                   std::uint64_t index, SrVariant variant) noexcept {
  const std::uint64_t sub = (std::uint64_t{step} << 32) | stream;
  if (variant == SrVariant::exact) {
    const std::uint64_t off = index * 2;
    const std::uint64_t block = off >> 2;
    const PhiloxBlock b = philox4x32_10(static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                                        stream, step, static_cast<std::uint32_t>(seed),
                                        static_cast<std::uint32_t>(seed >> 32));
    const unsigned w = static_cast<unsigned>(off & 3);
    return std::uint64_t{b.w[w]} | (std::uint64_t{b.w[w + 1]} << 32);
  }
  return curand_word(seed, sub, index);
}

}  // namespace minifloat
