// SPDX-License-Identifier: Apache-2.0
// core/random.hpp: counter-based random bits for stochastic rounding, identical on CPU and GPU.
// Philox4x32-10 comes from Random123 (Debian librandom123-dev; host and nvcc); this header only
// fixes how (seed, stream, step, element index) map to counters and words.
#pragma once
#include <Random123/philox.h>

#include <cstddef>
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
  const PhiloxBlock b =
      philox4x32_10(static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                    static_cast<std::uint32_t>(subsequence), static_cast<std::uint32_t>(subsequence >> 32),
                    static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  return b.w[offset & 3];
}

/// Random words per element: 2 for SrVariant::exact (a 64-bit R), 1 otherwise.
MINIFLOAT_HOST_DEVICE constexpr unsigned sr_words(SrVariant v) noexcept { return v == SrVariant::exact ? 2u : 1u; }
/// Random words per element of a spec: 2 for SrVariant::exact and for A/B/C/stochastic_odd with
/// sr_bits > 32 (R = word[2i] | word[2i+1] << 32, the low word first, as exact), else 1. With
/// sr_bits ≤ 32 the stream is the one sr_words(variant) gives, so those outputs never move.
MINIFLOAT_HOST_DEVICE constexpr unsigned sr_words(const RoundingSpec& spec) noexcept {
  return spec.sr_variant == SrVariant::exact || (spec.sr_variant != SrVariant::equal && spec.sr_bits > 32) ? 2u : 1u;
}

/// minifloat's stochastic-rounding stream layout. Element `index` of tensor/stream `stream` at
/// training step `step` under `seed` reads the cuRAND stream
///     subsequence = step · 2^32 + stream,   offset = index · words   (words = sr_words(spec): 1 or 2)
/// i.e. Philox counter (c0, c1) = 64-bit block number, c2 = stream, c3 = step, key = seed.
///   - 2 words (exact; A/B/C/stochastic_odd with sr_bits > 32): R = word[offset] | word[offset + 1] << 32
///     (two consecutive words, low word first; element i uses block i/2, words 2(i mod 2) and 2(i mod 2) + 1);
///   - 1 word (A/B/C/stochastic_odd with sr_bits ≤ 32, equal): R = word[offset] (block i/4, word i mod 4).
/// The variant reads the low N bits of R. The result depends only on (seed, stream, step, index):
/// never on threads or chunking, and a CUDA kernel calling this with the same arguments gets the same bits.
MINIFLOAT_HOST_DEVICE inline std::uint64_t sr_bits_words(std::uint64_t seed, std::uint32_t stream, std::uint32_t step,
                                                         std::uint64_t index, unsigned words) noexcept {
  const std::uint64_t sub = (std::uint64_t{step} << 32) | stream;
  if (words == 2) {
    const std::uint64_t off = index * 2;
    const std::uint64_t block = off >> 2;
    const PhiloxBlock b =
        philox4x32_10(static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32), stream, step,
                      static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
    const unsigned w = static_cast<unsigned>(off & 3);
    return std::uint64_t{b.w[w]} | (std::uint64_t{b.w[w + 1]} << 32);
  }
  return curand_word(seed, sub, index);
}
/// The bits of `variant` at its default width (exact: 2 words; others 1): sr_bits_words(…, sr_words(variant)).
MINIFLOAT_HOST_DEVICE inline std::uint64_t sr_bits(std::uint64_t seed, std::uint32_t stream, std::uint32_t step,
                                                   std::uint64_t index, SrVariant variant) noexcept {
  return sr_bits_words(seed, stream, step, index, sr_words(variant));
}
/// The bits of `spec` (sr_words(spec) words: the form every conversion with a RoundingSpec uses).
MINIFLOAT_HOST_DEVICE inline std::uint64_t sr_bits(std::uint64_t seed, std::uint32_t stream, std::uint32_t step,
                                                   std::uint64_t index, const RoundingSpec& spec) noexcept {
  return sr_bits_words(seed, stream, step, index, sr_words(spec));
}

/// Where the random bits of one array come from (`sr_bits` above): element i of the array reads
/// `sr_bits(seed, stream, step, index_base + i, spec.sr_variant)`.
///
/// Convention: `stream` names the tensor, `step` the training step, `index_base` the position of
/// the array's first element in the tensor (row-major flat index). Splitting a tensor into chunks
/// and calling once per chunk with `index_base` = the chunk's offset gives exactly the codes of
/// one call over the whole tensor.
struct SrStream {
  std::uint64_t seed = 0;        ///< Philox key (k0 = low 32 bits, k1 = high 32 bits)
  std::uint32_t stream = 0;      ///< tensor / stream id: Philox counter word c2
  std::uint32_t step = 0;        ///< training step: Philox counter word c3
  std::uint64_t index_base = 0;  ///< flat index of element 0 of the array

  friend constexpr bool operator==(const SrStream&, const SrStream&) = default;
};

/// Fill `out[0…n)` with `sr_bits_words(s.seed, s.stream, s.step, s.index_base + i, words)`, computing
/// each Philox block once (2 elements per block for 2 words, else 4). These are the `rbits` the engine
/// reads: with 2 words all 64 bits (two consecutive 32-bit cuRAND draws, low word first), with 1 word
/// one 32-bit draw (the engine reads its low `sr_bits` bits; `equal` its bit 0). Scalar and
/// device-safe; the compiled library's span overload (stochastic.hpp) gives the same words with the
/// blocks computed in vectors.
MINIFLOAT_HOST_DEVICE inline void fill_sr_bits_words(const SrStream& s, unsigned words, std::uint64_t* out,
                                                     std::size_t n) noexcept {
  const auto k0 = static_cast<std::uint32_t>(s.seed);
  const auto k1 = static_cast<std::uint32_t>(s.seed >> 32);
  for (std::size_t i = 0; i < n;) {
    const std::uint64_t block = ((s.index_base + i) * words) >> 2;
    const PhiloxBlock b = philox4x32_10(static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                                        s.stream, s.step, k0, k1);
    // The elements of this block: those whose first word lies in [4·block, 4·block + 4).
    for (; i < n; ++i) {
      const std::uint64_t off = (s.index_base + i) * words;
      if ((off >> 2) != block) break;
      const unsigned w = static_cast<unsigned>(off & 3);
      out[i] = words == 2 ? (std::uint64_t{b.w[w]} | (std::uint64_t{b.w[w + 1]} << 32)) : std::uint64_t{b.w[w]};
    }
  }
}
/// fill_sr_bits_words with sr_words(variant) (exact: 2; the others 1).
MINIFLOAT_HOST_DEVICE inline void fill_sr_bits(const SrStream& s, SrVariant variant, std::uint64_t* out,
                                               std::size_t n) noexcept {
  fill_sr_bits_words(s, sr_words(variant), out, n);
}
/// fill_sr_bits_words with sr_words(spec): the bits every conversion under `spec` reads.
MINIFLOAT_HOST_DEVICE inline void fill_sr_bits(const SrStream& s, const RoundingSpec& spec, std::uint64_t* out,
                                               std::size_t n) noexcept {
  fill_sr_bits_words(s, sr_words(spec), out, n);
}

}  // namespace minifloat
