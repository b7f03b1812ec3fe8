// SPDX-License-Identifier: Apache-2.0
// quant/torchao_quirks.hpp: MxQuirks::torchao_0_18 and torchao_0_18_no_tensor_scale (quant.hpp) — torchao
// 0.18's MX and NVFP4 quantizers emulated on purpose, with their scale formulas, the NaN results of
// torch's x86 CPU kernels and the floatx cast's NaN path. The scalar path only (the fast path's
// whitelist refuses the quirks).
#pragma once
#include <cstdint>

#include "quant/internal.hpp"

namespace minifloat::quant_detail {

/// x86 (SSE) binary32 division / product: the first NaN operand quieted; an invalid operation gives
/// the default NaN 0xffc00000.
float tao_x86_div(float a, float b);
float tao_x86_mul(float a, float b);
/// MxQuirks torchao_0_18 / torchao_0_18_no_tensor_scale for one NVFP4 tile: its e4m3 scale code; sets
/// sc's element multiplier.
std::uint8_t torchao_nvfp4_scale(bool two_level, bool nan, float amax, float pts, QTileScale& sc);
/// MxQuirks::torchao_0_18 for one E8M0 tile: its E8M0 code; sets how sc's elements are scaled.
std::uint8_t torchao_scale(ScaleRule rule, ElementType el, bool nan, float amax, QTileScale& sc);
/// One element of a torchao tile (sc.tao): y as torchao computes it, then the element.
ElementResult torchao_element(const QTileScale& sc, float x, ElementType el, RoundingSpec spec, Profile prof,
                              std::uint64_t rbits, Mxint8Min mn);
ElementResult torchao_element(const QTileScale& sc, double x, ElementType el, RoundingSpec spec, Profile prof,
                              std::uint64_t rbits, Mxint8Min mn);

}  // namespace minifloat::quant_detail
