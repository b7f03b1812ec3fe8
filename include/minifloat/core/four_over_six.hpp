// SPDX-License-Identifier: Apache-2.0
// core/four_over_six.hpp: NVFP4's "4over6" adaptive block scale (issue 25 item 2; TE PR 2972). Each 1×16
// block is quantized twice, its amax mapped to 6 (the usual E2M1 max) and to 4 (a 1.5× larger E4M3 block
// scale), and the candidate with the smaller error is kept. The arithmetic is TransformerEngine's reference
// (transformer_engine/pytorch/custom_recipes/reference_nvfp4.py at d0067d0), every step one binary32 RNE
// operation, no FMA:
//  - tensor scale S_enc = min(fl32(1536 / amax), FLT_MAX), 1 for amax 0 or a result 0 (:712-729; 1536 =
//    6 · 256, the E4M3 bound nvfp4_e4m3_max = 256 that 4over6 uses, :696);
//  - block base fl32(fl32(amax / 6) · S_enc) (:551, a different order from plain NVFP4's
//    amax · fl32(S_enc · fl32(1/6))); map-to-6 code e4m3fn(base), map-to-4 code e4m3fn(fl32(base · 1.5))
//    (:552-559, clamped to ±448 then RNE: = RNE + satfinite);
//  - elements of each candidate as plain NVFP4's: fl32(x · min(fl32(1 / fl32(sf · fl32(1/S_enc))), FLT_MAX))
//    rounded to E2M1 (:566-586);
//  - error of a candidate (the default, not fast-math, path, :610-635): for i = 0..15 in order,
//    val = fl32(fl32(fl32(q_i · sf) · amax) / 1536), d = fl32(val − x_i), err = fl32(err + fl32(d · d)) (MSE)
//    or fl32(err + |d|) (MAE), from err = 0;
//  - map-to-4 only if err4 < err6 (strictly: ties and NaN errors keep map-to-6, :637).
#pragma once
#include <cfloat>
#include <cstdint>

#include "block_scale.hpp"

namespace minifloat {

/// How an NVFP4 block picks its scale (Scheme::scale_select): the rule's one scale (none, the default),
/// or 4over6 with the MSE or the MAE error (TE nvfp4_4over6_err_mode).
enum class ScaleSelect : std::uint8_t { none, four_over_six_mse, four_over_six_mae };

/// 4over6's tensor encode scale: min(fl32(1536 / amax), FLT_MAX); 1 for amax 0 or a result 0 (amax Inf).
/// **Example**: amax 10 → fl32(153.6) (0x4319999a).
MINIFLOAT_HOST_DEVICE inline float fourover6_global_encode_scale(float global_amax) noexcept {
  const float s = detail::fmin_flt_max(fdiv_rn(1536.0f, global_amax));
  if (global_amax == 0.0f || s == 0.0f) return 1.0f;
  return s;
}

/// The two candidate E4M3 block-scale codes of a block with amax `block_amax` (binary32).
struct FourOverSixCodes {
  std::uint8_t map6 = 0, map4 = 0;
};
/// base = fl32(fl32(amax / 6) · S_enc); map6 = e4m3fn(base), map4 = e4m3fn(fl32(base · 1.5)), RNE + satfinite.
/// **Example**: amax 6, S_enc 1 → base 1: map6 0x38 (1.0), map4 0x3c (1.5).
MINIFLOAT_HOST_DEVICE inline FourOverSixCodes fourover6_block_codes(float block_amax, float s_enc) noexcept {
  const float base = fmul_rn(fdiv_rn(block_amax, 6.0f), s_enc);
  const RoundingSpec rs{Rounding::rne, Overflow::satfinite};
  FourOverSixCodes c;
  c.map6 = static_cast<std::uint8_t>(from_float(base, formats::e4m3fn, rs).code);
  c.map4 = static_cast<std::uint8_t>(from_float(fmul_rn(base, 1.5f), formats::e4m3fn, rs).code);
  return c;
}

/// The value an element's error compares with x: fl32(fl32(fl32(q · sf) · global_amax) / 1536) (q: the element's
/// E2M1 value, sf: the candidate's E4M3 block scale value). Odd in q: val(−q) = −val(q).
MINIFLOAT_HOST_DEVICE inline float fourover6_value(float q, float sf, float global_amax) noexcept {
  return fdiv_rn(fmul_rn(fmul_rn(q, sf), global_amax), 1536.0f);
}
/// One step of a candidate's error: d = fl32(fourover6_value(q, sf, global_amax) − x), then
/// err + d² (MSE) or err + |d| (MAE), each rounded to binary32.
MINIFLOAT_HOST_DEVICE inline float fourover6_error_step(float err, float q, float sf, float global_amax, float x,
                                                        bool mse) noexcept {
  const float d = fadd_rn(fourover6_value(q, sf, global_amax), -x);
  return fadd_rn(err, mse ? fmul_rn(d, d) : detail::bit_cast<float>(detail::bit_cast<std::uint32_t>(d) & 0x7fffffffu));
}

}  // namespace minifloat
