// SPDX-License-Identifier: Apache-2.0
// quant/te2_quirks.hpp: MxQuirks::te_2 (quant.hpp) — TransformerEngine 2.x's PyTorch reference quantizers
// (custom_recipes/reference_current_scaling.py, tests/pytorch/references/quantize_scale_calc.py and
// blockwise_quantizer_reference.py for the FP8 current-scaling schemes; custom_recipes/reference_nvfp4.py for
// NVFP4) emulated on purpose, with the NaN results of torch's x86 CPU kernels. The scalar path only (the fast
// path skips every tile with sc.tao set).
#pragma once
#include <cstdint>

#include "quant/internal.hpp"

namespace minifloat::quant_detail {

/// MxQuirks::te_2 for one FP32-scaled tile (rules fp32_amax, fp32_pow2): sets sc (kind fp32, sc.scale the
/// stored scale_inv, sc.tao_mul the encode scale) from the tile's statistics.
/// `source`: the input's value type (QuantOptions::source), whose max replaces an encode scale that overflows.
void te2_fp32_scale(ScaleRule rule, ElementType el, float eps, bool nan, bool inf, float amax, ArrayType source,
                    QTileScale& sc);
/// MxQuirks::te_2's tensor scales for NVFP4 from the tensor amax (NaN when the tensor holds one): the encode
/// scale fl32(2688 / G) kept NaN, min(., FLT_MAX), 0 → 1; the decode scale fl32(1 / encode).
void te2_nvfp4_tensor_scales(bool nan, float amax, float& encode, float& decode);
/// MxQuirks::te_2 for one NVFP4 tile: its e4m3fn scale code (0x7f / 0xff for a NaN); sets sc's multiplier.
std::uint8_t te2_nvfp4_scale(bool nan, bool inf, float amax, float s_enc, float s_dec, QTileScale& sc);
/// One element of a te_2 tile (sc.te2): y = fl32(x · sc.tao_mul) as torch computes it, clamped to ±max, then
/// the element (NVFP4: −0 and NaN give code 0, reference_nvfp4.py:49-71).
ElementResult te2_element(const QTileScale& sc, float x, ElementType el, RoundingSpec spec, Profile prof,
                          std::uint64_t rbits);

}  // namespace minifloat::quant_detail
