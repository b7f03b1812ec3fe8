// SPDX-License-Identifier: Apache-2.0
// train/recipe.cpp: the built-in recipes of training-sim.md §4.3 as one table.
#include "minifloat/train/recipe.hpp"

#include <string>

#include "minifloat/error.hpp"

namespace minifloat::train {
namespace {

constexpr RoundingSpec kRneSat{Rounding::rne, Overflow::satfinite};
constexpr RoundingSpec kSrSat{Rounding::sr, Overflow::satfinite, SrVariant::exact, 8};
using K = OperandQuant::Kind;

OperandQuant cast(Format f) { return OperandQuant{K::cast, {}, std::nullopt, f, kRneSat, 16}; }
OperandQuant scheme(std::string_view name, std::optional<Format> element = std::nullopt, RoundingSpec r = kRneSat) {
  return OperandQuant{K::scheme, find_scheme(name), std::nullopt, element, r, 16};
}
OperandQuant delayed(Format f) { return OperandQuant{K::delayed, {}, std::nullopt, f, kRneSat, 16}; }

std::vector<Recipe> build() {
  const Format e4m3 = formats::e4m3fn, e5m2 = formats::e5m2;
  // NVFP4 weights use 16x16 tiles so the row- and column-wise copies agree (TE NVFP4BlockScaling).
  const Scheme nvfp4_2d{"nvfp4_16x16", elements::e2m1fn, 16, 16, ScaleRule::nvfp4, "NVFP4 with 16x16 weight tiles"};
  std::vector<Recipe> v;
  v.push_back({"fp32", "baseline", {}, {}, {}, WeightStorage::fp32, 0, false, 6});
  v.push_back({"bf16", "baseline: BF16 GEMM operands (RNE)", cast(formats::bf16), cast(formats::bf16),
               cast(formats::bf16), WeightStorage::fp32, 0, false, 6});
  v.push_back({"fp8-delayed", "Transformer Engine DelayedScaling (HYBRID: E4M3 fwd, E5M2 grads), history 16, margin 0",
               delayed(e4m3), delayed(e4m3), delayed(e5m2), WeightStorage::fp32, 0, false, 6});
  v.push_back({"fp8-current", "Transformer Engine Float8CurrentScaling (HYBRID), torchao tensorwise",
               scheme("fp8_tensor"), scheme("fp8_tensor"), scheme("fp8_tensor", e5m2), WeightStorage::fp32, 0, false, 6});
  v.push_back({"deepseek-block", "DeepSeek-V3 §3.3: E4M3, 1x128 activation/gradient tiles, 128x128 weight blocks, FP32 scales",
               scheme("fp8_1x128"), scheme("fp8_128x128"), scheme("fp8_1x128"), WeightStorage::fp32, 0, false, 6});
  v.push_back({"infir2-ue8m0", "InfiR2 (arXiv 2509.22536): token-wise 1x128 / 128x128 blocks, UE8M0 scales rounded up (rceil)",
               scheme("fp8_1x128_ue8m0"), scheme("fp8_128x128_ue8m0"), scheme("fp8_1x128_ue8m0"), WeightStorage::fp32, 0,
               false, 6});
  v.push_back({"mxfp8", "OCP MX v1.0 MXFP8 E4M3, 32-element blocks, ocp_floor E8M0 scales", scheme("mxfp8_e4m3"),
               scheme("mxfp8_e4m3"), scheme("mxfp8_e4m3"), WeightStorage::fp32, 0, false, 6});
  v.push_back({"mxfp4", "OCP MX v1.0 MXFP4 (E2M1), 32-element blocks, ocp_floor E8M0 scales", scheme("mxfp4"),
               scheme("mxfp4"), scheme("mxfp4"), WeightStorage::fp32, 0, false, 6});
  v.push_back({"nvfp4", "NVIDIA NVFP4 (arXiv 2509.25149): E2M1 1x16 blocks (16x16 weights), E4M3 + FP32 scales, SR on gradients",
               scheme("nvfp4"), OperandQuant{K::scheme, nvfp4_2d, std::nullopt, std::nullopt, kRneSat, 16},
               scheme("nvfp4", std::nullopt, kSrSat), WeightStorage::fp32, 0, false, 6});
  v.push_back({"gaussws-pqt", "GaussWS (arXiv 2505.11170): w + R*max|w|*2^(1-b) over 32x32 blocks, cast to BF16, b = 6",
               {}, {}, {}, WeightStorage::fp32, 0, true, 6});
  v.push_back({"fail-unscaled", "failure F1: E4M3 everywhere with scale 1 (gradients underflow)", cast(e4m3), cast(e4m3),
               cast(e4m3), WeightStorage::fp32, 0, false, 6});
  v.push_back({"fp32-lr0.01", "baseline for F2: FP32 at lr 0.01", {}, {}, {}, WeightStorage::fp32, 0.01, false, 6});
  v.push_back({"fail-bf16-rne-weights", "failure F2: master weights stored in BF16 with RNE, lr 0.01 (update swamping)",
               {}, {}, {}, WeightStorage::bf16_rne, 0.01, false, 6});
  v.push_back({"bf16-sr-weights", "F2 twin: master weights stored in BF16 with stochastic rounding, lr 0.01",
               {}, {}, {}, WeightStorage::bf16_sr, 0.01, false, 6});
  return v;
}

}  // namespace

const std::vector<Recipe>& recipes() {
  static const std::vector<Recipe> v = build();
  return v;
}

std::vector<Recipe> parse_recipes(std::string_view list) {
  if (list == "all") return recipes();
  std::vector<Recipe> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    const std::string_view name = list.substr(start, end - start);
    bool found = false;
    for (const auto& r : recipes())
      if (r.name == name) {
        out.push_back(r);
        found = true;
      }
    if (!found) {
      std::string accepted;
      for (const auto& r : recipes()) accepted += (accepted.empty() ? "" : ", ") + r.name;
      throw NameError("unknown recipe '" + std::string(name) + "'; accepted: all, " + accepted);
    }
    start = end + 1;
  }
  return out;
}

}  // namespace minifloat::train
