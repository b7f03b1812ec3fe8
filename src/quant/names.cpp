// SPDX-License-Identifier: Apache-2.0
// quant/names.cpp: the name tables of quant.hpp's own kinds, "block-axis" and "mx-quirks" (registry.hpp
// NameTable; listed by names.cpp).
#include "minifloat/quant.hpp"
#include "minifloat/registry.hpp"

namespace minifloat {
namespace {

constexpr NameEntry<BlockAxis> kBlockAxis[] = {
    {BlockAxis::last, "last", "blocks run along the last axis (rows of the [rows, cols] view); the default"},
    {BlockAxis::first, "first",
     "blocks run along axis 0; the scales keep the input's axis order ((40, 5) in blocks of 32: scales (2, 5))"},
};
constexpr NameEntry<MxQuirks> kMxQuirks[] = {
    {MxQuirks::none, "none", "the OCP MX v1.0 and NVIDIA/TE NVFP4 definitions (the default)"},
    {MxQuirks::torchao_0_18, "torchao_0_18",
     "torchao 0.18 to_mx: FP32-bit scales, Inf blocks finite, code 0x00 divides by 2^-126, RCEIL by FP32 log2; "
     "nvfp4_quantize with its per-tensor scale amax/2688: (amax/6)/pts clamped to [2^-6, 448], x*((1/pts)/s)"},
    {MxQuirks::torchao_0_18_no_tensor_scale, "torchao_0_18_no_tensor_scale",
     "nvfp4 only: torchao 0.18 nvfp4_quantize without a per-tensor scale: amax/6 clamped to [2^-6, 448], x*(1/s)"},
    {MxQuirks::te_2, "te_2",
     "TE 2.x's PyTorch reference quantizers: FP32 current scaling (Inf tile: scale_inv +Inf, elements x*0; "
     "pow2 NaN tile: scale_inv 2); nvfp4 (zero tensor: decode scale 1/FLT_MAX; a NaN: every scale NaN; -0 -> +0)"},
};

}  // namespace

const NameTable<BlockAxis>& name_table(BlockAxis) {
  static constexpr NameTable<BlockAxis> t{"block-axis", "block axis", kBlockAxis};
  return t;
}
const NameTable<MxQuirks>& name_table(MxQuirks) {
  static constexpr NameTable<MxQuirks> t{"mx-quirks", "MX quirks", kMxQuirks};
  return t;
}

}  // namespace minifloat
