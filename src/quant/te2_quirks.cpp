// SPDX-License-Identifier: Apache-2.0
// quant/te2_quirks.cpp: TransformerEngine 2.x's PyTorch reference quantizers (te2_quirks.hpp). Derived from
// TE d0067d0 (read, not copied): tests/pytorch/references/quantize_scale_calc.py:9-60 (= the
// _scale_from_amax_tensor of transformer_engine/pytorch/custom_recipes/reference_current_scaling.py:155-198),
// tests/pytorch/references/blockwise_quantizer_reference.py:114-167, and
// transformer_engine/pytorch/custom_recipes/reference_nvfp4.py:49-71 and 651-777.
#include "quant/te2_quirks.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "minifloat/core/convert.hpp"
#include "quant/torchao_quirks.hpp"

namespace minifloat::quant_detail {
namespace {
const float kNan = detail::bit_cast<float>(0x7fc00000u);  // torch.amax / torch.min / reciprocal of a NaN: +qNaN
// torch.min(t, FLT_MAX) on the CPU: a NaN operand gives the canonical +NaN
float min_flt_max_keep_nan(float v) { return std::isnan(v) ? kNan : std::min(v, FLT_MAX); }
// torch.clamp(t, -m, m): a NaN stays the same NaN
float clamp_keep_nan(float v, float m) { return std::isnan(v) ? v : std::clamp(v, -m, m); }

// torch.finfo(x_dtype).max (quantize_scale_calc.py:35; TE's CUDA value_for_inf = TypeInfo<IType>::max_finite_value,
// transformer_engine/common/recipe/recipe_common.cuh:67): bf16 0x7f7f0000 (3.38953139e38), f16 65504, else FLT_MAX
float te2_value_for_inf(ArrayType source) {
  if (source == ArrayType::bf16) return detail::bit_cast<float>(0x7f7f0000u);
  if (source == ArrayType::f16) return 65504.0f;
  return FLT_MAX;
}
}  // namespace

void te2_fp32_scale(ScaleRule rule, ElementType el, float eps, bool nan, bool inf, float amax, ArrayType source,
                    QTileScale& sc) {
  sc.kind = TileScale::Kind::fp32;
  sc.tao = sc.te2 = sc.tao_clamp = true;
  const float mx = static_cast<float>(element_max(el));
  // amax = torch.amax(torch.abs(x)) (+NaN when the tile holds one); torch.max(amax, eps) keeps the NaN
  float a = nan ? kNan : inf ? INFINITY : amax;
  if (!std::isnan(a) && a < eps) a = eps;
  float s = tao_x86_div(mx, a);  // fp8_max / amax: Inf amax → 0, NaN → NaN (quantize_scale_calc.py:32)
  if (std::isinf(s)) s = te2_value_for_inf(source);  // torch.finfo(x_dtype).max (:35)
  if (rule == ScaleRule::fp32_pow2) {
    // frexp's exponent, 0 for NaN, Inf and 0 as torch.frexp gives it; 2^(exp - 1) (:38-48); Inf amax → 0 (:52)
    int e = 0;
    if (std::isfinite(s) && s != 0.0f) (void)std::frexp(s, &e);
    s = std::ldexp(1.0f, e - 1);
    if (a == INFINITY) s = 0.0f;
  }
  if (a == 0.0f) s = 1.0f;  // torch.where(amax == 0, 1.0, scale) (:55)
  sc.tao_mul = s;           // y = x * scale, clamped to ±max (blockwise_quantizer_reference.py:165-166)
  sc.enc = s;
  sc.scale = sc.dec = tao_x86_div(1.0f, s);  // scale_inv = torch.reciprocal(scale) (:58): 1/0 = +Inf
}

void te2_nvfp4_tensor_scales(bool nan, float amax, float& encode, float& decode) {
  // global_amax = torch.max(torch.abs(x)) (reference_nvfp4.py:892); S = fl32(448·6 / G) (:712), torch.min with
  // FLT_MAX keeping a NaN (:713-720), 0 (G = Inf) → 1 (:721-723); decode = fl32(1 / S) (:730). So an all-zero
  // tensor gets S = FLT_MAX and decode 1/FLT_MAX, a NaN anywhere S = decode = NaN.
  const float g = nan ? kNan : amax;
  float s = min_flt_max_keep_nan(tao_x86_div(2688.0f, g));
  if (s == 0.0f) s = 1.0f;
  encode = s;
  decode = tao_x86_div(1.0f, s);
}

std::uint8_t te2_nvfp4_scale(bool nan, bool inf, float amax, float s_enc, float s_dec, QTileScale& sc) {
  sc.kind = TileScale::Kind::nvfp4;
  sc.tao = sc.te2 = sc.te2_nvfp4 = sc.tao_clamp = true;
  // decode_scale = vec_max · fl32(S · fl32(1/6)) (:748-752), torch.min with FLT_MAX (:753-760), clamped to
  // ±448 (:761), cast to e4m3fn (:762): a NaN gives 0x7f
  const float vm = nan ? kNan : inf ? INFINITY : amax;
  const float mult = tao_x86_mul(s_enc, frcp_rn(6.0f));
  const float ds = clamp_keep_nan(min_flt_max_keep_nan(tao_x86_mul(vm, mult)), 448.0f);
  std::uint8_t code;
  float sf;
  if (std::isnan(ds)) {
    code = 0x7f;
    sf = kNan;
  } else {
    code = static_cast<std::uint8_t>(from_float(ds, formats::e4m3fn, {Rounding::rne, Overflow::satfinite}).code);
    sf = to_float(formats::e4m3fn, code);
  }
  // encode_scale = torch.min(1 / (fl32(e4m3) · S_dec), FLT_MAX) (:764-771)
  sc.tao_mul = sc.enc = min_flt_max_keep_nan(tao_x86_div(1.0f, tao_x86_mul(sf, s_dec)));
  sc.code = code;
  return code;
}

ElementResult te2_element(const QTileScale& sc, float x, ElementType el, RoundingSpec spec, Profile prof,
                          std::uint64_t rbits) {
  const float mx = static_cast<float>(element_max(el));
  // x.to(float32) * scale on torch's vectorised CPU kernel: the scale's NaN over x's; Inf · 0 the default NaN
  const float y = clamp_keep_nan(tao_x86_mul(sc.tao_mul, x), mx);
  if (sc.te2_nvfp4) {
    // cast_to_fp4x2 (reference_nvfp4.py:49-71): −0 satisfies (x >= 0.0) & (x <= 0.25) → code 0, a NaN satisfies
    // no comparison and keeps torch.zeros_like's 0; every other value is round-to-nearest-even.
    if (std::isnan(y) || y == 0.0f) return {0, std::isnan(y) ? flag_invalid : flag_none, false};
  } else if (std::isnan(y)) {  // torch's e4m3fn / e5m2 cast of a NaN: 0x7f with the sign
    const std::uint32_t sign = detail::bit_cast<std::uint32_t>(y) >> 31;
    return {static_cast<std::uint8_t>(0x7fu | (sign << 7)), flag_invalid, false};
  }
  return quantize_element(el, detail::exact_f32(y), 0, spec, prof, rbits, Mxint8Min{});
}

}  // namespace minifloat::quant_detail
