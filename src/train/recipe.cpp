// SPDX-License-Identifier: Apache-2.0
// train/recipe.cpp: the built-in recipes of training-sim.md §4.3 as one table.
#include "minifloat/train/recipe.hpp"

#include <algorithm>
#include <string>

#include "minifloat/error.hpp"

namespace minifloat::train {
namespace {

constexpr RoundingSpec kRneSat{Rounding::rne, Overflow::satfinite};
constexpr RoundingSpec kSrSat{Rounding::sr, Overflow::satfinite, SrVariant::exact, 8};
using K = OperandQuant::Kind;

OperandQuant cast(Format f) { return {.kind = K::cast, .element = f, .rounding = kRneSat}; }
OperandQuant scheme(std::string_view name, std::optional<Format> element = std::nullopt, RoundingSpec r = kRneSat) {
  return {.kind = K::scheme, .scheme = find_scheme(name), .element = element, .rounding = r};
}
OperandQuant delayed(Format f) { return {.kind = K::delayed, .element = f, .rounding = kRneSat, .history = 16}; }

std::vector<Recipe> build() {
  const Format e4m3 = formats::e4m3fn, e5m2 = formats::e5m2;
  // NVFP4 weights use 16x16 tiles so the row- and column-wise copies agree (TE NVFP4BlockScaling).
  const Scheme nvfp4_2d{.element = elements::e2m1fn, .block_rows = 16, .block_cols = 16, .rule = ScaleRule::nvfp4};
  std::vector<Recipe> v;
  v.push_back({.name = "fp32", .source = "baseline"});
  v.push_back({.name = "bf16",
               .source = "baseline: BF16 GEMM operands (RNE)",
               .x = cast(formats::bf16),
               .w = cast(formats::bf16),
               .g = cast(formats::bf16)});
  v.push_back({.name = "fp8-delayed",
               .source = "Transformer Engine DelayedScaling (HYBRID: E4M3 fwd, E5M2 grads), history 16, margin 0",
               .x = delayed(e4m3),
               .w = delayed(e4m3),
               .g = delayed(e5m2)});
  v.push_back({.name = "fp8-current",
               .source = "Transformer Engine Float8CurrentScaling (HYBRID), torchao tensorwise",
               .x = scheme("fp8_tensor"),
               .w = scheme("fp8_tensor"),
               .g = scheme("fp8_tensor", e5m2)});
  v.push_back({.name = "deepseek-block",
               .source = "DeepSeek-V3 §3.3: E4M3, 1x128 activation/gradient tiles, 128x128 weight blocks, FP32 scales",
               .x = scheme("fp8_1x128"),
               .w = scheme("fp8_128x128"),
               .g = scheme("fp8_1x128")});
  v.push_back(
      {.name = "infir2-ue8m0",
       .source = "InfiR2 (arXiv 2509.22536): token-wise 1x128 / 128x128 blocks, UE8M0 scales rounded up (rceil)",
       .x = scheme("fp8_1x128_ue8m0"),
       .w = scheme("fp8_128x128_ue8m0"),
       .g = scheme("fp8_1x128_ue8m0")});
  v.push_back({.name = "mxfp8",
               .source = "OCP MX v1.0 MXFP8 E4M3, 32-element blocks, ocp_floor E8M0 scales (TE's rceil_fp32: mxfp8-te)",
               .x = scheme("mxfp8_e4m3"),
               .w = scheme("mxfp8_e4m3"),
               .g = scheme("mxfp8_e4m3")});
  v.push_back({.name = "mxfp8-te",
               .source =
                   "Transformer Engine MXFP8BlockScaling (recipe/__init__.py MXFP8BlockScaling, E4M3 everywhere): "
                   "E8M0 scales by rceil_fp32 (quantize_mxfp8.cuh), row- and column-wise copies per GEMM",
               .x = scheme("mxfp8_e4m3"),
               .w = scheme("mxfp8_e4m3"),
               .g = scheme("mxfp8_e4m3")});
  v.back().x.rule = v.back().w.rule = v.back().g.rule = ScaleRule::rceil_fp32;
  v.push_back({.name = "mxfp4",
               .source = "OCP MX v1.0 MXFP4 (E2M1), 32-element blocks, ocp_floor E8M0 scales",
               .x = scheme("mxfp4"),
               .w = scheme("mxfp4"),
               .g = scheme("mxfp4")});
  v.push_back(
      {.name = "nvfp4",
       .source =
           "NVIDIA NVFP4 (arXiv 2509.25149): E2M1 1x16 blocks (16x16 weights), E4M3 + FP32 scales, SR on gradients; "
           "no Hadamard transform (TE's recipe with it: nvfp4-te)",
       .x = scheme("nvfp4"),
       .w = {.kind = K::scheme, .scheme = nvfp4_2d, .rounding = kRneSat},
       .g = scheme("nvfp4", std::nullopt, kSrSat)});
  // issue 25 item 8: the stacks' recipes, each named after the stack whose code it follows
  const BlockTransform rht_te = parse_transform("rht16:te");
  OperandQuant x_rht = scheme("nvfp4"), g_rht_sr = scheme("nvfp4", std::nullopt, kSrSat);
  x_rht.wgrad_transform = g_rht_sr.wgrad_transform = rht_te;
  v.push_back({.name = "nvfp4-te",
               .source = "Transformer Engine NVFP4BlockScaling (recipe/__init__.py:489-609): nvfp4 plus the 16-point "
                         "RHT (TE sign vector) on the wgrad operands X and G",
               .x = x_rht,
               .w = {.kind = K::scheme, .scheme = nvfp4_2d, .rounding = kRneSat},
               .g = g_rht_sr});
  OperandQuant mx_x = scheme("mxfp4"), mx_g = scheme("mxfp4", std::nullopt, kSrSat);
  mx_x.wgrad_transform = mx_g.wgrad_transform = rht_te;
  v.push_back({.name = "mxfp4-sr",
               .source = "MXFP4 training (AMD Primus-Turbo, torchao plan): mxfp4, SR on gradients, the 16-point RHT "
                         "on the wgrad operands X and G",
               .x = mx_x,
               .w = scheme("mxfp4"),
               .g = mx_g});
  // issue 25 item 8: TE NVFP4BlockScaling(nvfp4_4over6="all"), which needs disable_rht (TE refuses RHT on a 4over6
  // tensor, quantization.py:1712-1719) and here disable_2d_quantization (the engine's 4over6 takes 1x16 tiles):
  // 4over6 on the non-gradient slots X and W with TE's default error mode MAE (recipe/__init__.py:537-566,
  // quantization.py:1700-1711), gradients plain NVFP4 with SR.
  Scheme nvfp4_46 = find_scheme("nvfp4");
  nvfp4_46.scale_select = ScaleSelect::four_over_six_mae;
  v.push_back({.name = "nvfp4-4over6",
               .source = "Transformer Engine NVFP4BlockScaling with nvfp4_4over6=all (recipe/__init__.py:537-566, "
                         "quantization.py:1700-1719): 4over6 (MAE) on X and W, 1x16; G nvfp4 with SR; no RHT",
               .x = {.kind = K::scheme, .scheme = nvfp4_46, .rounding = kRneSat},
               .w = {.kind = K::scheme, .scheme = nvfp4_46, .rounding = kRneSat},
               .g = scheme("nvfp4", std::nullopt, kSrSat)});
  v.push_back({.name = "gaussws-pqt",
               .source = "GaussWS (arXiv 2505.11170): w + R*max|w|*2^(1-b) over 32x32 blocks, cast to BF16, b = 6",
               .gaussws = true,
               .gaussws_bits = 6});
  v.push_back({.name = "fail-unscaled",
               .source = "failure F1: E4M3 everywhere with scale 1 (gradients underflow)",
               .x = cast(e4m3),
               .w = cast(e4m3),
               .g = cast(e4m3)});
  v.push_back({.name = "fp32-lr0.01", .source = "baseline for F2: FP32 at lr 0.01", .lr = 0.01});
  v.push_back({.name = "fail-bf16-rne-weights",
               .source = "failure F2: master weights stored in BF16 with RNE, lr 0.01 (update swamping)",
               .weights = WeightStorage::bf16_rne,
               .lr = 0.01});
  v.push_back({.name = "bf16-sr-weights",
               .source = "F2 twin: master weights stored in BF16 with stochastic rounding, lr 0.01",
               .weights = WeightStorage::bf16_sr,
               .lr = 0.01});
  return v;
}

}  // namespace

const std::vector<Recipe>& recipes() {
  static const std::vector<Recipe> v = build();
  return v;
}

const NameTable<const Recipe*>& recipe_table() {
  static const std::vector<NameEntry<const Recipe*>> entries = [] {
    std::vector<NameEntry<const Recipe*>> e;
    for (const Recipe& r : recipes()) e.push_back({&r, r.name, r.source});
    return e;
  }();
  static constexpr NamePattern kPatterns[] = {{"all", "every recipe above, in this order"},
                                              {"NAME,NAME,...", "a comma-separated list of recipes, each once"}};
  static const NameTable<const Recipe*> t{"recipe", "recipe", entries, kPatterns};
  return t;
}

std::vector<Recipe> parse_recipes(std::string_view list) {
  if (iequals(list, "all")) return recipes();
  // the one list parser (registry.hpp): no empty item, no recipe twice
  return parse_list<Recipe>(
      list, "recipe", [](const std::string& item) { return *lookup_name(recipe_table(), item).value; },
      [](const Recipe& r) { return r.name; });
}

}  // namespace minifloat::train
