// SPDX-License-Identifier: Apache-2.0
// simd/sr_simd.cpp: compiles simd/sr-inl.h once per Highway target (foreach_target.h), exports the
// fused SR kernel for run-time dispatch, and finishes what the kernel leaves: table lookups of its
// indices, the engine for marked keys, and fill_sr_bits + the table loop for the elements the
// vectors do not take (simd/sr_table.hpp, sr_fused_f32_bits).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/sr_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "simd/sr-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <array>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/random.hpp"
#include "simd/sr_table.hpp"

namespace minifloat::simd {

HWY_EXPORT(SrIndex);

namespace {

int variant_code(SrVariant v) {
  switch (v) {
    case SrVariant::exact: return 0;
    case SrVariant::a: return 1;
    case SrVariant::b: return 2;
    case SrVariant::c: return 3;
    case SrVariant::equal: return 4;
    case SrVariant::stochastic_odd: return -1;  // never: sr_table builds no table for it (engine path)
  }
  return 0;
}

/// Elements [0, n) through fill_sr_bits (core/random.hpp) and the table loop (the path of sr_encode_f32_bits).
unsigned table_loop(const SrTable& t, const RoundingSpec& spec, const std::uint32_t* x, std::size_t n,
                    const SrStream& s, std::uint8_t* out) {
  std::array<std::uint64_t, 64> rb;
  unsigned flags = 0;
  for (std::size_t i = 0; i < n; i += rb.size()) {
    const std::size_t len = std::min(rb.size(), n - i);
    SrStream c = s;
    c.index_base = s.index_base + i;
    fill_sr_bits(c, spec, rb.data(), len);
    flags |= sr_encode_f32_bits(t, spec, x + i, rb.data(), out + i, len);
  }
  return flags;
}

}  // namespace

unsigned sr_fused_f32_bits(const SrTable& t, const RoundingSpec& spec, const std::uint32_t* x, std::size_t n,
                           const SrStream& s, std::uint8_t* out, std::uint32_t* idx_out) {
  constexpr std::size_t kTile = 1024;  // a multiple of every target's elements per Philox vector
  alignas(64) std::array<std::uint32_t, kTile> idx;
  const std::uint64_t E = sr_words(spec.sr_variant) == 2 ? 2 : 4;  // elements per Philox block
  const RoundingSpec sv{
      .rounding = Rounding::sr, .overflow = spec.overflow, .sr_variant = spec.sr_variant, .sr_bits = spec.sr_bits};
  const std::uint16_t* word4 = t.word4.data();
  unsigned acc = 0, flags = 0;
  for (std::size_t i = 0; i < n;) {
    const std::uint64_t g = s.index_base + i;
    SrStream c = s;
    c.index_base = g;
    if (g % E != 0) {  // align to a block
      const std::size_t m = std::min<std::size_t>(n - i, static_cast<std::size_t>(E - g % E));
      flags |= table_loop(t, sv, x + i, m, c, out + i);
      if (idx_out != nullptr) std::fill(idx_out + i, idx_out + i + m, UINT32_MAX);
      i += m;
      continue;
    }
    const std::uint64_t block = g / E;
    const std::uint64_t to_wrap = (std::uint64_t{1} << 32) - (block & 0xFFFFFFFFu);
    const std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>({kTile, n - i, to_wrap * E}));
    const SrLaneParams p{.c0 = static_cast<std::uint32_t>(block),
                         .c1 = static_cast<std::uint32_t>(block >> 32),
                         .c2 = s.stream,
                         .c3 = s.step,
                         .k0 = static_cast<std::uint32_t>(s.seed),
                         .k1 = static_cast<std::uint32_t>(s.seed >> 32),
                         .shift = t.shift,
                         .emin_biased = t.emin_biased,
                         .variant = variant_code(spec.sr_variant),
                         .sr_bits = spec.sr_bits < 1 ? 1 : (spec.sr_bits > 32 ? 32 : spec.sr_bits),
                         .mantissa_bits = t.to.mantissa_bits};
    std::uint8_t* o = out + i;
    std::uint32_t tile = 0;  // the OR of the words the kernel took (codes written)
    const std::size_t done = HWY_DYNAMIC_DISPATCH(SrIndex)(x + i, len, p, word4, idx.data(), o, &tile);
    if ((tile & kEngineMark) != 0) {  // rare: keys the engine rounds element by element (sr_table.hpp)
      tile = 0;
      for (std::size_t j = 0; j < done; ++j) {
        unsigned w = word4[idx[j]];
        if ((w & kEngineMark) != 0) {
          const std::uint64_t rbits = sr_bits(s.seed, s.stream, s.step, g + j, spec);
          const RoundResult r = convert(formats::f32, x[i + j], t.to, sv, t.prof, rbits);
          w = static_cast<unsigned>(r.code) | (static_cast<unsigned>(r.flags) << 8);
          o[j] = static_cast<std::uint8_t>(w);
        }
        tile |= w;
      }
    }
    acc |= tile;
    if (idx_out != nullptr) std::copy(idx.data(), idx.data() + done, idx_out + i);
    if (done < len) {
      c.index_base = g + done;
      flags |= table_loop(t, sv, x + i + done, len - done, c, out + i + done);
      if (idx_out != nullptr) std::fill(idx_out + i + done, idx_out + i + len, UINT32_MAX);
    }
    i += len;
  }
  return flags | ((acc >> 8) & 0x7Fu);
}

}  // namespace minifloat::simd
#endif  // HWY_ONCE
