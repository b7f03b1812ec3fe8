// SPDX-License-Identifier: Apache-2.0
// train/recipe.hpp: a low-precision training recipe as data — which format, scale rule and
// rounding each GEMM operand gets — so a user adds a recipe without touching the loop.
// Names and sources follow training-sim.md §4.3.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <optional>

#include "../core/format.hpp"
#include "../core/rounding.hpp"
#include "../delayed_scaling.hpp"
#include "../quant.hpp"
#include "../registry.hpp"

namespace minifloat::train {

/// GEMM operand classes of a Linear layer Y = X·Wᵀ: activations X, weights W, output gradients G = dY.
enum class Operand { x, w, g };
/// The three GEMMs of a Linear layer: fprop Y = X·Wᵀ, dgrad dX = G·W, wgrad dW = Gᵀ·X.
enum class Gemm { fprop, dgrad, wgrad };

/// The SR stream (and delayed-scaling history key) of one operand of one GEMM of layer `layer`: stochastic
/// rounding of that operand at optimizer step `step` reads sr_bits(seed, sr_stream(layer, op, gemm), step, i)
/// for element i (flat C order of the matrix quantized). One rule for `train` and minifloat.torch.QuantLinear:
/// (layer << 4) | (operand << 2) | gemm, operand x 0, w 1, g 2 and gemm fprop 0, dgrad 1, wgrad 2.
constexpr std::uint32_t sr_stream(std::uint32_t layer, Operand op, Gemm gemm) noexcept {
  return (layer << 4) | (static_cast<std::uint32_t>(op) << 2) | static_cast<std::uint32_t>(gemm);
}

/// The quantization of one operand class, always along the GEMM's contraction axis. The scale
/// rules and block schemes are those of quant.hpp / core/block_scale.hpp (one implementation for the
/// library, the CLI and the simulator).
struct OperandQuant {
  enum class Kind {
    none,     ///< the operand stays FP32
    cast,     ///< plain conversion to `element` with `rounding`, scale 1 (bf16 casts; failure recipe F1)
    scheme,   ///< a block scheme of quant.hpp (`scheme`, optional `rule` and `element` overrides)
    delayed,  ///< per-tensor Transformer Engine DelayedScaling (amax history of `history` steps)
  };
  Kind kind = Kind::none;
  Scheme scheme{};                  ///< Kind::scheme: element, tile and default rule
  std::optional<ScaleRule> rule{};  ///< override of the scheme's default rule
  std::optional<Format> element{};  ///< element override (e5m2 gradients); the target of Kind::cast/delayed
  RoundingSpec rounding{Rounding::rne, Overflow::satfinite};
  std::size_t history = 16;  ///< Kind::delayed: amax history length (TE default 1024; 16 for short runs)
  /// Kind::scheme: the transform applied when this operand feeds the wgrad GEMM (dW = Gᵀ·X), along the
  /// contraction (batch) axis, none elsewhere: TE NVFP4BlockScaling applies its 16-point RHT to the columnwise
  /// copies of X and G only (transformer_engine/common/recipe/__init__.py:593-609 at d0067d0). Both wgrad
  /// operands take the same orthogonal transform T = diag(s)·H16/4, so (GᵀT)(XᵀT)ᵀ = GᵀX: the GEMM needs no
  /// inverse; statistics compare the inverse-transformed dequantized values with the operand.
  BlockTransform wgrad_transform{};
};

/// Master-weight storage after each optimizer step.
enum class WeightStorage { fp32, bf16_rne, bf16_sr };

/// A named recipe: how the three operand classes of every Linear GEMM are quantized (the same
/// OperandQuant for that class in fprop, dgrad and wgrad, always along the GEMM's contraction
/// axis), how master weights are stored, the learning rate and the GaussWS option. Built with
/// designated initialisers (src/train/recipe.cpp); unset fields keep the defaults below.
struct Recipe {
  std::string name;
  std::string source;  ///< paper / library the recipe follows
  OperandQuant x{}, w{}, g{};
  WeightStorage weights = WeightStorage::fp32;
  double lr = 0;         ///< 0: the model's default learning rate; else this one (F2 recipes use 0.01)
  bool gaussws = false;  ///< GaussWS pseudo-quantization of weights in fprop (noise + bf16 cast)
  int gaussws_bits = 6;  ///< bit-width b_t of the GaussWS noise
};

/// The 18 built-in recipes, in this order: fp32 bf16 fp8-delayed fp8-current deepseek-block
/// infir2-ue8m0 mxfp8 mxfp8-te mxfp4 nvfp4 nvfp4-te mxfp4-sr nvfp4-4over6 gaussws-pqt fail-unscaled
/// fp32-lr0.01 fail-bf16-rne-weights bf16-sr-weights.
const std::vector<Recipe>& recipes();
/// "recipe" (registry.hpp NameTable): every entry of recipes() (summary = Recipe::source), with the
/// patterns `all` and `NAME,NAME,...` that parse_recipes also accepts.
const NameTable<const Recipe*>& recipe_table();
/// Look up recipes by comma-separated names (case-insensitive, each at most once) or "all";
/// throws NameError listing the accepted names.
std::vector<Recipe> parse_recipes(std::string_view list);

}  // namespace minifloat::train
