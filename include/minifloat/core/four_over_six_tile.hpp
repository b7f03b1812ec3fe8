// SPDX-License-Identifier: Apache-2.0
// core/four_over_six_tile.hpp: 4over6's per-block selection (issue 25 items 2 and 9) on the core's tile step:
// one 1×16 NVFP4 block quantized under both candidate scales (core/four_over_six.hpp's arithmetic,
// core/tile_step.hpp's element step) and the candidate with the strictly smaller error kept. Header-only,
// host and device: the host tile loop (src/quant/tile_loops.cpp fourover6_segment) and the CUDA block body
// (cuda/blocks.hpp BlockQuantBody) both call fourover6_tile, so the selection is written once. (Its own
// header, not four_over_six.hpp: scheme.hpp includes that one for ScaleSelect, and needs no tile step.)
#pragma once
#include <cstdint>

#include "four_over_six.hpp"
#include "tile_step.hpp"

namespace minifloat {

/// Elements of one 4over6 block: TE's 1×16.
inline constexpr unsigned kFourOverSixBlock = 16;
/// One block's 4over6 result: the kept candidate's e4m3fn block-scale code, which one it is
/// (QuantizedTensor::scale_select: 0 = map-to-6, 1 = map-to-4), and its elements el[0 .. len).
struct FourOverSixTile {
  std::uint8_t code = 0;
  std::uint8_t choice = 0;
  TileElement el[kFourOverSixBlock];
};
/// The 4over6 selection of one block of `len` ≤ 16 binary32 values x[0 .. len) (a partial last block: fewer),
/// under `r` (nvfp4, r.s_enc = fourover6_global_encode_scale(global_amax)) and `sel` (four_over_six_mse: the
/// MSE; else the MAE): the block amax (NaN ignored), its two candidate codes
/// (fourover6_block_codes), each candidate's elements by the core's element step (encode_in_tile with the
/// candidate's multiplier nvfp4_element_encode_scale; rbits[i] the SR bits of element i, rbits nullable = 0)
/// and its error (fourover6_error_step over i = 0 .. len in order); map-to-4 kept only if its error is
/// strictly smaller (ties and NaN errors: map-to-6).
MINIFLOAT_HOST_DEVICE inline FourOverSixTile fourover6_tile(const float* x, unsigned len, const std::uint64_t* rbits,
                                                            float global_amax, ScaleSelect sel, const TileRule& r,
                                                            RoundingSpec spec, Profile prof) noexcept {
  TileStat<float> st;  // the tile statistic's amax: NaN ignored
  for (unsigned i = 0; i < len; ++i) st.add(x[i]);
  const FourOverSixCodes cand = fourover6_block_codes(st.amax, r.s_enc);
  const bool mse = sel == ScaleSelect::four_over_six_mse;
  FourOverSixTile out[2];
  float err[2] = {0.0f, 0.0f};
  const std::uint8_t code[2] = {cand.map6, cand.map4};
  for (int k = 0; k < 2; ++k) {
    TileScale sc{};
    sc.kind = TileScale::Kind::nvfp4;
    sc.code = code[k];
    sc.enc = nvfp4_element_encode_scale(code[k], r.s_enc);
    const float sf = to_float(formats::e4m3fn, code[k]);
    out[k].code = code[k];
    out[k].choice = static_cast<std::uint8_t>(k);
    for (unsigned i = 0; i < len; ++i) {
      out[k].el[i] = encode_in_tile(x[i], sc, r, spec, prof, rbits ? rbits[i] : 0);
      const float qv = static_cast<float>(element_value(r.element, out[k].el[i].r.code));
      err[k] = fourover6_error_step(err[k], qv, sf, global_amax, x[i], mse);
    }
  }
  return err[1] < err[0] ? out[1] : out[0];  // map-to-4 only if strictly smaller (ties, NaN: map-to-6)
}

}  // namespace minifloat
