// SPDX-License-Identifier: Apache-2.0
// gaussws.cpp: GaussWS noise fill, block max and fake quantization (exact sum, one rounding).
#include "minifloat/gaussws.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "minifloat/convert_array.hpp"
#include "minifloat/core/arith.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/stochastic.hpp"

namespace minifloat {

void gauss_noise_fill(GaussNoise variant, const SrStream& s, std::span<std::int8_t> out) noexcept {
  const auto k0 = static_cast<std::uint32_t>(s.seed);
  const auto k1 = static_cast<std::uint32_t>(s.seed >> 32);
  if (variant == GaussNoise::exact) {  // the bits of exact SR (sr_bits(…, SrVariant::exact))
    std::uint64_t r[256];
    for (std::size_t i0 = 0; i0 < out.size(); i0 += 256) {
      const std::size_t n = std::min<std::size_t>(256, out.size() - i0);
      fill_sr_bits(SrStream{s.seed, s.stream, s.step, s.index_base + i0}, SrVariant::exact,
                   std::span<std::uint64_t>(r, n));
      for (std::size_t i = 0; i < n; ++i) out[i0 + i] = static_cast<std::int8_t>(gauss_exact_from_bits(r[i]));
    }
    return;
  }
  std::uint64_t cached = ~std::uint64_t{0};
  std::uint32_t word = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint64_t index = s.index_base + i;
    const std::uint64_t block = index >> 3;
    if (block != cached) {
      const PhiloxBlock b = philox4x32_10(static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                                          s.stream, s.step, k0, k1);
      word = gauss_bitwise_word(b.w[0], b.w[1], b.w[2], b.w[3]);
      cached = block;
    }
    out[i] = static_cast<std::int8_t>(gauss_bitwise_lane(word, static_cast<unsigned>(index & 7)));
  }
}

RoundResult gaussws_fake_quantize_value(float w, int r, float block_max, int b, Format to, RoundingSpec spec,
                                        Profile prof, std::uint64_t rbits) noexcept {
  if (r == 0) return convert(formats::f32, detail::bit_cast<std::uint32_t>(w), to, spec, prof, rbits);
  // R·m·2^(1−b): |R| ≤ 5 (3 bits) times a 24-bit m is exact in binary64, and the power-of-two
  // scale stays inside binary64's normal range for 1 ≤ b ≤ 64.
  const double noise = static_cast<double>(r) * static_cast<double>(block_max) * std::ldexp(1.0, 1 - b);
  // w + noise exactly, rounded once: the core's mixed-format addition (arith.hpp).
  return add(formats::f32, detail::bit_cast<std::uint32_t>(w), formats::f64, detail::bit_cast<std::uint64_t>(noise), to,
             spec, prof, rbits);
}

namespace {

void check_blocks(const GaussWsOptions& opt) {
  if (opt.block_rows == 0 || opt.block_cols == 0)
    throw Error("gaussws: block dimensions are " + std::to_string(opt.block_rows) + "x" +
                std::to_string(opt.block_cols) + "; accepted: both at least 1 (GaussWS uses 32x32)");
}

template <class Code>
Flags fake_quantize(std::span<const float> w, std::size_t rows, std::size_t cols, std::span<const int> bits, Format to,
                    RoundingSpec spec, std::span<Code> out, const GaussWsOptions& opt, Profile prof) {
  const std::string fn = "gaussws_fake_quantize";
  check_blocks(opt);
  const std::size_t n = rows * cols;
  if (w.size() != n)
    throw Error(fn + ": w has " + std::to_string(w.size()) + " elements; a " + std::to_string(rows) + "x" +
                std::to_string(cols) + " matrix needs " + std::to_string(n));
  if (out.size() != n)
    throw Error(fn + ": out has " + std::to_string(out.size()) +
                " elements; accepted: rows*cols = " + std::to_string(n));
  const std::size_t nb = gaussws_block_count(rows, cols, opt);
  if (bits.size() != nb)
    throw Error(fn + ": bits has " + std::to_string(bits.size()) +
                " entries; accepted: one per block = " + std::to_string(nb));
  for (std::size_t k = 0; k < nb; ++k)
    if (bits[k] < 1 || bits[k] > 64)
      throw Error(fn + ": bit-width " + std::to_string(bits[k]) + " of block " + std::to_string(k) +
                  "; accepted: 1..64");
  if (validate(to) != FormatError::ok) throw Error(fn + ": invalid format descriptor " + format_name(to));
  constexpr unsigned max_bits = sizeof(Code) == 1 ? 8 : 16;
  if (to.bits > max_bits)
    throw Error(fn + ": format " + format_name(to) + " has " + std::to_string(to.bits) +
                " bits; this overload holds at most " + std::to_string(max_bits));
  const bool sr = spec.rounding == Rounding::sr;
  if (const std::string p = sr_bits_problem(spec.sr_bits); sr && !p.empty()) throw Error(fn + ": sr_bits " + p);

  const std::vector<float> bmax = gaussws_block_max(w, rows, cols, opt);
  const std::size_t bcols = (cols + opt.block_cols - 1) / opt.block_cols;
  std::vector<std::int8_t> noise(cols);
  unsigned flags = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    SrStream ns = opt.noise_stream;
    ns.index_base += r * cols;
    gauss_noise_fill(opt.noise, ns, noise);
    for (std::size_t c = 0; c < cols; ++c) {
      const std::size_t blk = (r / opt.block_rows) * bcols + c / opt.block_cols;
      const std::size_t i = r * cols + c;
      const std::uint64_t rb = sr ? sr_bits(opt.cast_stream.seed, opt.cast_stream.stream, opt.cast_stream.step,
                                            opt.cast_stream.index_base + i, spec)
                                  : 0;
      const RoundResult res = gaussws_fake_quantize_value(w[i], noise[c], bmax[blk], bits[blk], to, spec, prof, rb);
      out[i] = static_cast<Code>(res.code);
      flags |= res.flags;
    }
  }
  return static_cast<Flags>(flags);
}

}  // namespace

std::size_t gaussws_block_count(std::size_t rows, std::size_t cols, const GaussWsOptions& opt) {
  check_blocks(opt);
  return ((rows + opt.block_rows - 1) / opt.block_rows) * ((cols + opt.block_cols - 1) / opt.block_cols);
}

std::vector<float> gaussws_block_max(std::span<const float> w, std::size_t rows, std::size_t cols,
                                     const GaussWsOptions& opt) {
  check_blocks(opt);
  if (w.size() != rows * cols)
    throw Error("gaussws_block_max: w has " + std::to_string(w.size()) + " elements; a " + std::to_string(rows) + "x" +
                std::to_string(cols) + " matrix needs " + std::to_string(rows * cols));
  const std::size_t bcols = (cols + opt.block_cols - 1) / opt.block_cols;
  std::vector<float> m(gaussws_block_count(rows, cols, opt), 0.0f);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      float& mx = m[(r / opt.block_rows) * bcols + c / opt.block_cols];
      const float a = std::fabs(w[r * cols + c]);
      if (std::isnan(a) || std::isnan(mx)) {
        mx = std::numeric_limits<float>::quiet_NaN();
      } else if (a > mx) {
        mx = a;
      }
    }
  return m;
}

Flags gaussws_fake_quantize(std::span<const float> w, std::size_t rows, std::size_t cols, std::span<const int> bits,
                            Format to, RoundingSpec spec, std::span<std::uint16_t> out, const GaussWsOptions& opt,
                            Profile prof) {
  return fake_quantize(w, rows, cols, bits, to, spec, out, opt, prof);
}
Flags gaussws_fake_quantize(std::span<const float> w, std::size_t rows, std::size_t cols, std::span<const int> bits,
                            Format to, RoundingSpec spec, std::span<std::uint8_t> out, const GaussWsOptions& opt,
                            Profile prof) {
  return fake_quantize(w, rows, cols, bits, to, spec, out, opt, prof);
}

}  // namespace minifloat
