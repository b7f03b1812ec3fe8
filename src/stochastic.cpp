// SPDX-License-Identifier: Apache-2.0
// stochastic.cpp: the Philox words of an array (fill_sr_bits, random.hpp layout), the SR path, and
// the sr_convert_* wrappers over the array door (convert_array.cpp runs the chunks and threads).
#include "minifloat/stochastic.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "minifloat/convert_array.hpp"
#include "minifloat/convert_span.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/registry.hpp"
#include "simd/convert_simd.hpp"
#include "simd/sr_table.hpp"

namespace minifloat {

namespace {

void fill_words(const SrStream& s, std::uint64_t words, std::span<std::uint64_t> out) noexcept {
  // The same words as random.hpp's sr_bits_words: Philox blocks are computed in vectors (simd::philox_blocks,
  // run-time dispatched Highway kernel), up to kBlocks at a time and never across a wrap of counter
  // word c0, then element i takes its one or two words of block (index_base + i)·words / 4.
  const auto k0 = static_cast<std::uint32_t>(s.seed);
  const auto k1 = static_cast<std::uint32_t>(s.seed >> 32);
  constexpr std::uint64_t kBlocks = 256;
  std::array<std::uint32_t, 4 * kBlocks> w;
  const std::size_t n = out.size();
  for (std::size_t i = 0; i < n;) {
    const std::uint64_t block = ((s.index_base + i) * words) >> 2;
    const std::uint64_t last_block = ((s.index_base + n - 1) * words) >> 2;
    const std::uint64_t to_wrap = (std::uint64_t{1} << 32) - (block & 0xFFFFFFFFu);
    const std::uint64_t nb = std::min({kBlocks, last_block - block + 1, to_wrap});
    simd::philox_blocks(static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32), s.stream, s.step,
                        k0, k1, static_cast<std::size_t>(nb), w.data());
    const std::uint64_t end = (block + nb) * 4;
    if (words == 2) {  // little-endian pairs (low word first) are the 64-bit words themselves
      const std::uint64_t off = (s.index_base + i) * 2;
      const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>((end - off) / 2, n - i));
      const std::size_t rel = static_cast<std::size_t>(off - block * 4);
      if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out.data() + i, w.data() + rel, m * 8);
      } else {
        for (std::size_t k = 0; k < m; ++k)
          out[i + k] = std::uint64_t{w[rel + 2 * k]} | (std::uint64_t{w[rel + 2 * k + 1]} << 32);
      }
      i += m;
      continue;
    }
    for (; i < n; ++i) {
      const std::uint64_t off = (s.index_base + i) * words;
      if (off >= end) break;
      const std::size_t rel = static_cast<std::size_t>(off - block * 4);
      out[i] = words == 2 ? (std::uint64_t{w[rel]} | (std::uint64_t{w[rel + 1]} << 32)) : std::uint64_t{w[rel]};
    }
  }
}

}  // namespace

void fill_sr_bits(const SrStream& s, SrVariant variant, std::span<std::uint64_t> out) noexcept {
  fill_words(s, sr_words(variant), out);
}
void fill_sr_bits(const SrStream& s, const RoundingSpec& spec, std::span<std::uint64_t> out) noexcept {
  fill_words(s, sr_words(spec), out);
}

ArrayPath sr_path(Format to, RoundingSpec spec, Profile prof) {
  if (spec.rounding != Rounding::sr) return ArrayPath::engine;
  return simd::sr_table(to, spec, prof) != nullptr ? ArrayPath::simd : ArrayPath::engine;
}

Flags sr_convert_f32(std::span<const float> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof, unsigned threads) {
  return convert_array(ArrayIn::f32(in), out, {to, spec, prof, s, {}, threads}, "sr_convert_f32");
}
Flags sr_convert_f32(std::span<const float> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof, unsigned threads) {
  return convert_array(ArrayIn::f32(in), out, {to, spec, prof, s, {}, threads}, "sr_convert_f32");
}
Flags sr_convert_f64(std::span<const double> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof, unsigned threads) {
  return convert_array(ArrayIn::f64(in), out, {to, spec, prof, s, {}, threads}, "sr_convert_f64");
}
Flags sr_convert_f64(std::span<const double> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof, unsigned threads) {
  return convert_array(ArrayIn::f64(in), out, {to, spec, prof, s, {}, threads}, "sr_convert_f64");
}
Flags sr_convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                          const SrStream& s, Profile prof, unsigned threads) {
  return convert_array(ArrayIn::f16(in), out, {to, spec, prof, s, {}, threads}, "sr_convert_f16_bits");
}
Flags sr_convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                          const SrStream& s, Profile prof, unsigned threads) {
  return convert_array(ArrayIn::f16(in), out, {to, spec, prof, s, {}, threads}, "sr_convert_f16_bits");
}
Flags sr_convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                           const SrStream& s, Profile prof, unsigned threads) {
  return convert_array(ArrayIn::bf16(in), out, {to, spec, prof, s, {}, threads}, "sr_convert_bf16_bits");
}
Flags sr_convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to,
                           RoundingSpec spec, const SrStream& s, Profile prof, unsigned threads) {
  return convert_array(ArrayIn::bf16(in), out, {to, spec, prof, s, {}, threads}, "sr_convert_bf16_bits");
}

}  // namespace minifloat
