// SPDX-License-Identifier: Apache-2.0
// accumulate.hpp: dot products and GEMM under named accumulation models: exact, sequential /
// pairwise / Kahan FP32, blocked FP32 promotion (DeepSeek-V3), and the tensor-core T-FDPA model
// (core/tfdpa.hpp: the model, its hardware presets and the group evaluation).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/format.hpp"
#include "core/profile.hpp"
#include "core/round_pack.hpp"
#include "core/rounding.hpp"
#include "core/tfdpa.hpp"
#include "core/unpacked.hpp"
#include "error.hpp"
#include "registry.hpp"

namespace minifloat {

// =============================================================================================
// Named accumulation models for whole dot products (compiled: src/accumulate.cpp)
// =============================================================================================

/// How a dot product accumulates.
enum class AccumKind : std::uint8_t {
  exact,     ///< Σ a_i·b_i + c computed exactly, rounded once into the result format
  fp32,      ///< sequential FFMA chain: acc ← fma_f32(a_i, b_i, acc), acc₀ = c (CUDA-core loop)
  pairwise,  ///< p_i = rne_f32(a_i·b_i); pairwise tree sum (halves) in rne f32; then + c
  kahan,     ///< Kahan compensated sum of p_i = rne_f32(a_i·b_i) in f32, starting from c
  blocked,   ///< blocked promotion: every `block` lanes, partial = tfdpa_dot(block, c = +0) under
             ///< `tensor_core`, then acc ← fma_f32(partial, s, acc) with s = rne_f32(sA_j·sB_j) the
             ///< per-block scales (1 when none): DeepSeek-V3 §3.3.2 / DeepGEMM with N_C = 128
  tfdpa,     ///< the tensor-core model alone over all k (chained groups; "fast accumulation")
};

/// A complete accumulation model (data). The accumulator format is f32 for every kind but
/// `tfdpa` (its model's dest); the dot result is that register's code.
struct DotModel {
  std::string name;
  AccumKind kind = AccumKind::exact;
  TfdpaModel tensor_core = mma_models::hopper_fp8;  ///< for blocked and tfdpa
  int block = 128;                                  ///< N_C for blocked
  RoundingSpec rounding{};                          ///< f32 rounding of fp32/pairwise/kahan/blocked and of exact
};

/// A tensor-core preset as the registry names it: the model and the operand formats its MMA
/// instruction multiplies (FP8 presets: e4m3fn and e5m2; *-f16: f16; *-bf16: bf16; *-tf32: tf32).
struct TensorCorePreset {
  const TfdpaModel* model;
  std::span<const Format> operands;
};
/// "tensor-core" (registry.hpp NameTable): every mma_models:: preset (core/tfdpa.hpp), Volta to
/// Blackwell; a name ends in "-unvalidated" unless the preset reproduces a measured set bit for bit.
const NameTable<TensorCorePreset>& tensor_core_table();
/// "accumulation": the fixed names exact, fp32, pairwise, kahan and the tensor-core presets
/// (alone over all k), with the patterns blocked<N> (hopper-fp8 inside, promoted to FP32 every N
/// lanes, e.g. blocked128) and <preset>+blocked<N>. The value is the kind (tfdpa for the presets).
const NameTable<AccumKind>& dot_model_table();
/// Resolve a model name of dot_model_table() or one of its patterns. Throws NameError listing them.
DotModel parse_dot_model(std::string_view name);
/// The tensor-core preset of that name, or throws NameError listing tensor_core_table().
const TfdpaModel& parse_mma_model(std::string_view name);
/// The operand formats the tensor core of `m` multiplies (its TensorCorePreset::operands) for the
/// blocked and tfdpa kinds; empty for exact, fp32, pairwise and kahan, which take any format.
std::span<const Format> operand_formats(const DotModel& m);

/// Dot product Σ a_i·b_i + c of codes (a of format fa, b of fb, c a code of f32) under `model`;
/// returns an f32 code (the tfdpa kind: a code of its model's dest). `scales_a`/`scales_b`
/// (optional, f32 codes, one per `model.block` lanes) are the blocked kind's per-block scales.
/// Throws Error when the lengths differ.
RoundResult dot(const DotModel& model, Format fa, std::span<const std::uint64_t> a, Format fb,
                std::span<const std::uint64_t> b, std::uint64_t c = 0, std::span<const std::uint64_t> scales_a = {},
                std::span<const std::uint64_t> scales_b = {});

/// The exact Σ a_i·b_i + c (c of format fc) rounded once into `out` (a Kulisch-style wide
/// fixed-point accumulator sized from the operands' exponent ranges; any formats ≤ f64).
RoundResult dot_exact(Format fa, std::span<const std::uint64_t> a, Format fb, std::span<const std::uint64_t> b,
                      Format fc, std::uint64_t c, Format out, RoundingSpec spec = {});

/// GEMM D = A·B + C under `model`: A is m×k (row-major codes of fa), B is k×n (row-major codes of
/// fb), C is m×n f32 codes or empty (zeros). Returns m×n codes (f32, or the tfdpa model's dest).
std::vector<std::uint64_t> gemm(const DotModel& model, std::size_t m, std::size_t n, std::size_t k, Format fa,
                                std::span<const std::uint64_t> A, Format fb, std::span<const std::uint64_t> B,
                                std::span<const std::uint64_t> C = {});

}  // namespace minifloat
