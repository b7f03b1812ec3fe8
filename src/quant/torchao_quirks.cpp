// SPDX-License-Identifier: Apache-2.0
// quant/torchao_quirks.cpp: torchao 0.18's MX and NVFP4 quantizers (torchao_quirks.hpp).
#include "quant/torchao_quirks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "minifloat/core/convert.hpp"

namespace minifloat::quant_detail {
namespace {
// The binary32 operations of torchao's NVFP4 path with the NaN results of torch's x86 CPU kernels (SSE):
// the first NaN operand, quieted; an invalid operation gives the default NaN 0xffc00000.
constexpr std::uint32_t kX86DefaultNan = 0xffc00000u;
float quiet_f32(float a) { return detail::bit_cast<float>(detail::bit_cast<std::uint32_t>(a) | 0x400000u); }
float tao_clamp(float v, float lo, float hi) { return std::isnan(v) ? v : std::clamp(v, lo, hi); }
/// torchao's `_f32_to_floatx_unpacked` (custom_fp_utils.py) on a NaN: it has no NaN case, so the NaN's bits go
/// through the normal-number path (bias change, round-half-even adder, shift, int32 -> uint8 wrap), sign ORed in.
std::uint8_t torchao_floatx_nan(Format f, float y) {
  const std::uint32_t bits = detail::bit_cast<std::uint32_t>(y), b = bits & 0x7fffffffu;
  const int m = f.mantissa_bits;
  const std::int64_t v = static_cast<std::int64_t>(b) +
                         ((static_cast<std::int64_t>(f.bias) - 127) * (std::int64_t{1} << 23)) +
                         ((std::int64_t{1} << (22 - m)) - 1) + ((b >> (23 - m)) & 1u);
  std::uint32_t code = static_cast<std::uint32_t>(v >> (23 - m)) & 0xffu;
  if (bits >> 31) code |= 1u << (f.exponent_bits + m);
  return static_cast<std::uint8_t>(code & static_cast<std::uint32_t>(code_mask(f)));
}

}  // namespace

float tao_x86_div(float a, float b) {
  if (std::isnan(a)) return quiet_f32(a);
  if (std::isnan(b)) return quiet_f32(b);
  if ((a == 0.0f && b == 0.0f) || (std::isinf(a) && std::isinf(b))) return detail::bit_cast<float>(kX86DefaultNan);
  return fdiv_rn(a, b);
}
float tao_x86_mul(float a, float b) {
  if (std::isnan(a)) return quiet_f32(a);
  if (std::isnan(b)) return quiet_f32(b);
  if ((a == 0.0f && std::isinf(b)) || (std::isinf(a) && b == 0.0f)) return detail::bit_cast<float>(kX86DefaultNan);
  return fmul_rn(a, b);
}
/// MxQuirks torchao_0_18 / torchao_0_18_no_tensor_scale for one NVFP4 tile (quant.hpp): the e4m3 code of
/// s = clamp(fl32(A/6) [/ pts], 2^-6, 448) and the element multiplier r. `pts` is NaN-free unless the tensor is.
std::uint8_t torchao_nvfp4_scale(bool two_level, bool nan, float amax, float pts, QTileScale& sc) {
  sc.tao = sc.tao_nvfp4 = sc.tao_clamp = true;
  const float a = nan ? detail::bit_cast<float>(0x7fc00000u) : amax;  // torch.amax(abs(x)): +NaN
  float s = tao_x86_div(a, 6.0f);
  if (two_level) s = tao_x86_div(s, pts);
  s = tao_clamp(s, 0x1p-6f, 448.0f);
  std::uint8_t code;
  float sf;
  if (std::isnan(s)) {  // torch's e4m3fn cast: 0x7f with the sign; back to f32 as 0x7ff00000 with the sign
    const std::uint32_t sign = detail::bit_cast<std::uint32_t>(s) & 0x80000000u;
    code = static_cast<std::uint8_t>(0x7fu | (sign >> 24));
    sf = detail::bit_cast<float>(0x7ff00000u | sign);
  } else {
    code = static_cast<std::uint8_t>(from_float(s, formats::e4m3fn, {Rounding::rne, Overflow::satfinite}).code);
    sf = to_float(formats::e4m3fn, code);
  }
  sc.tao_mul = two_level ? tao_x86_div(tao_x86_div(1.0f, pts), sf) : tao_x86_div(1.0f, sf);
  return code;
}

/// MxQuirks::torchao_0_18 for one tile (see quant.hpp): the E8M0 code and how the elements are scaled.
std::uint8_t torchao_scale(ScaleRule rule, ElementType el, bool nan, float amax, QTileScale& sc) {
  sc.tao = true;
  const float mx = static_cast<float>(element_max(el));
  if (rule == ScaleRule::rceil) {
    sc.tao_clamp = true;
    if (nan) {
      sc.tao_mul = std::numeric_limits<float>::quiet_NaN();
      return 0xff;
    }
    const float descale = fdiv_rn(amax, mx);
    if (std::isinf(descale)) {
      sc.tao_mul = 0x1p-127f;
      return 0xfe;
    }
    const float lg = static_cast<float>(std::log2(static_cast<double>(descale)));  // log2 rounded to FP32
    const double e = std::clamp(std::ceil(static_cast<double>(lg)), -127.0, 127.0);
    const int code = static_cast<int>(e) + 127;
    sc.tao_mul = code == 0 ? 1.0f : std::ldexp(1.0f, 127 - code);
    return static_cast<std::uint8_t>(code);
  }
  sc.tao_divide = true;
  sc.tao_clamp = el.format.bits == 8;
  if (nan) {
    sc.tao_div = std::numeric_limits<float>::infinity();
    return 0xff;
  }
  std::uint32_t b = detail::bit_cast<std::uint32_t>(amax);
  const int m = el.format.mantissa_bits;
  if (rule == ScaleRule::even) b = (b + (std::uint32_t{1} << (22 - m))) & 0xff800000u;
  int p2 = static_cast<int>((b >> 23) & 0xffu) - 127;
  if (rule == ScaleRule::ceil && (b & 0x7fffffu) != 0) ++p2;
  const int biased = std::clamp(p2 - element_emax(el), -127, 128) + 127;
  sc.tao_div = std::max(detail::bit_cast<float>(static_cast<std::uint32_t>(biased) << 23), 0x1p-126f);
  return static_cast<std::uint8_t>(biased);
}

namespace {
template <class T>
ElementResult torchao_element_of(const QTileScale& sc, T x, ElementType el, RoundingSpec spec, Profile prof,
                                 std::uint64_t rb, Mxint8Min mn) {
  const float emax_f = static_cast<float>(element_max(el));
  float y;
  if (sc.tao_nvfp4) y = tao_clamp(tao_x86_mul(sc.tao_mul, static_cast<float>(x)), -emax_f, emax_f);
  else if (!sc.tao_divide && std::isnan(sc.tao_mul)) y = detail::bit_cast<float>(0x7fc00000u);  // x * (+NaN descale)
  else if (std::isnan(x)) y = quiet_f32(static_cast<float>(x));
  else y = sc.tao_divide ? detail::src_div32(x, sc.tao_div) : detail::src_mul32(x, sc.tao_mul);
  if (sc.tao_clamp && !std::isnan(y)) y = std::clamp(y, -emax_f, emax_f);  // (NVFP4: clamped above)
  if (std::isnan(y) && el.format.bits < 8) return {torchao_floatx_nan(el.format, y), flag_invalid, false};
  return quantize_element(el, detail::exact_f32(y), 0, spec, prof, rb, mn);
}
}  // namespace

ElementResult torchao_element(const QTileScale& sc, float x, ElementType el, RoundingSpec spec, Profile prof,
                              std::uint64_t rbits, Mxint8Min mn) {
  return torchao_element_of(sc, x, el, spec, prof, rbits, mn);
}
ElementResult torchao_element(const QTileScale& sc, double x, ElementType el, RoundingSpec spec, Profile prof,
                              std::uint64_t rbits, Mxint8Min mn) {
  return torchao_element_of(sc, x, el, spec, prof, rbits, mn);
}

}  // namespace minifloat::quant_detail
