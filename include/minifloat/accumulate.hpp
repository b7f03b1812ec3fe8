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
  fp64_fma,  ///< FP64 DMMA (Ampere mma m8n8k4.f64, Hopper m16n8k{4,8,16}.f64): a sequential IEEE
             ///< binary64 FMA chain in k order from C, acc ← fma_f64(a_i, b_i, acc), RNE (MMA-Sim
             ///< arXiv 2511.10909 `mma` f64 path: `fma(A[i,l], B[l,j], sum)` for l in 0..k−1);
             ///< the accumulator and the result are f64
};

/// A complete accumulation model (data). The accumulator format is f32 for every kind but
/// `tfdpa` (its model's dest) and `fp64_fma` (f64); the dot result is that register's code
/// (result_format()).
struct DotModel {
  std::string name;
  AccumKind kind = AccumKind::exact;
  TfdpaModel tensor_core = mma_models::hopper_fp8;  ///< for blocked and tfdpa
  int block = 128;                                  ///< N_C for blocked
  RoundingSpec rounding{};                          ///< f32 rounding of fp32/pairwise/kahan/blocked and of exact
};

/// The format of the codes dot() and gemm() return under `m`: the tensor core's dest for tfdpa,
/// f64 for fp64_fma, else f32.
Format result_format(const DotModel& m);

/// A tensor-core preset as the registry names it: the model and the operand formats its MMA
/// instruction multiplies (FP8 presets: e4m3fn and e5m2; *-f16: f16; *-bf16: bf16; *-tf32: tf32),
/// a view of the model's `operands`.
struct TensorCorePreset {
  const TfdpaModel* model;
  std::span<const Format> operands;
};
/// "tensor-core" (registry.hpp NameTable): every preset of mma_models::all (core/tfdpa.hpp, where each
/// model carries its name, summary and operands), Volta to Blackwell; a name ends in "-unvalidated" unless the preset reproduces a measured set bit for bit.
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

/// Codes of FP32 values re-expressed in the operand format a tensor core multiplies, so that the
/// model sees the element format's exponent rules (an e4m3fn subnormal m·2^−9 has nominal
/// exponent emin = −6 in the T-FDPA max, not the −9 an FP32 code of the same value gives:
/// MMA-Sim `extract_significand_exponent`, dtype_min_exponent[e4m3fn] = −6).
struct OperandCodes {
  Format format;                     ///< the operand format chosen, or f32 (see operand_codes)
  std::vector<std::uint64_t> codes;  ///< the same values as codes of `format`
};
/// The first of operand_formats(m) that holds every FP32 value of `f32_codes` exactly, with the
/// values converted into it. When `m` takes any format (exact, fp32, pairwise, kahan) or no
/// operand format holds every value exactly (e.g. dequantized values of a scaled recipe), the
/// FP32 codes are returned unchanged with format f32.
OperandCodes operand_codes(const DotModel& m, std::span<const std::uint64_t> f32_codes);

/// How float operands become the operand format a model multiplies (`dot --operand-round`, Python
/// `operand_round=`). Each choice is defined per target format; round_operands() refuses the others.
enum class OperandRound : std::uint8_t {
  satfinite,  ///< the default (what `dot` has always done): RNE, finite overflow and ±Inf → ±max finite,
              ///< NaN → NaN (convert with rne + satfinite), any target format and any float input
  cvt,        ///< the PTX cvt a kernel makes the operand with from an f32 register (PTX ISA 9.7.9.21 cvt):
              ///< tf32 cvt.rna.tf32.f32 (ties away; Inf and NaN kept; finite overflow → Inf); f16/bf16
              ///< cvt.rn.{f16,bf16}.f32 (RNE; overflow → Inf); e4m3fn e5m2 e2m3fn e3m2fn e2m1fn
              ///< cvt.rn.satfinite.{e4m3x2,…}.f32 (RNE, overflow and Inf → ±max: as satfinite)
  truncate,   ///< tf32 only: the f32 register's low 13 bits ignored (a tf32 mma fed raw f32 registers)
};
/// "operand-round" (registry.hpp NameTable): satfinite, cvt, truncate.
const NameTable<OperandRound>& name_table(OperandRound);

/// Float codes of `from` (f32, f16, bf16, f64) as codes of the operand format `to` under `how`.
/// cvt and truncate model f32 registers: they take f32, f16 and bf16 inputs (widened exactly to
/// f32 first) and refuse f64; cvt is defined for tf32 f16 bf16 e4m3fn e5m2 e2m3fn e3m2fn e2m1fn
/// (the PTX cvt destinations), truncate for tf32. Throws Error naming the choice, the format and
/// what is accepted otherwise.
std::vector<std::uint64_t> round_operands(Format from, std::span<const std::uint64_t> codes, Format to,
                                          OperandRound how);

/// Dot product Σ a_i·b_i + c of codes (a of format fa, b of fb, c a code of f32) under `model`;
/// returns a code of result_format(model) (f32; tfdpa: its model's dest; fp64_fma: f64; C is
/// widened exactly into that register first). `scales_a`/`scales_b`
/// (optional; empty = unit scales) are per-block scales:
///   - blocked kind: f32 codes, one per `model.block` lanes (multiplied on CUDA cores);
///   - tfdpa kind with a block-scaled preset (tensor_core.scale, e.g. blackwell-tcgen05-nvf4-
///     unvalidated): codes of tensor_core.scale.format (UE8M0 = e8m0fnu, UE4M3 = ue4m3; an 8-bit
///     UE4M3 code's sign bit is ignored), one per tensor_core.scale.block lanes, both or neither.
/// `fc` is the format of c: f32 (the default: rounded once, rne, into a narrower accumulator register,
/// an f16 destination) or result_format(model) (used as is: an f16 C of an FP16-destination preset,
/// an f64 C of fp64_fma); the exact kind takes any format.
/// Throws Error when the lengths differ, a scale count is wrong, a scale is not a code of its
/// format, an unscaled tensor-core preset is given scales, or `fc` is none of those formats.
RoundResult dot(const DotModel& model, Format fa, std::span<const std::uint64_t> a, Format fb,
                std::span<const std::uint64_t> b, std::uint64_t c = 0, std::span<const std::uint64_t> scales_a = {},
                std::span<const std::uint64_t> scales_b = {}, Format fc = formats::f32);

/// The exact Σ a_i·b_i + c (c of format fc) rounded once into `out` (a Kulisch-style wide
/// fixed-point accumulator sized from the operands' exponent ranges; any formats ≤ f64).
RoundResult dot_exact(Format fa, std::span<const std::uint64_t> a, Format fb, std::span<const std::uint64_t> b,
                      Format fc, std::uint64_t c, Format out, RoundingSpec spec = {});

/// GEMM D = A·B + C under `model`: A is m×k (row-major codes of fa), B is k×n (row-major codes of
/// fb), C is m×n codes of `fc` (f32 by default, or result_format(model): as dot()) or empty (zeros).
/// Returns m×n codes (f32, or the tfdpa model's dest).
/// `scales_A` (m × nb, row-major) and `scales_B` (nb × n, row-major; nb = ceil(k / block)) are the
/// per-block scales of dot() (PTX tcgen05 scale_A M×SFA_N, scale_B SFB_M×N); empty = unit scales.
std::vector<std::uint64_t> gemm(const DotModel& model, std::size_t m, std::size_t n, std::size_t k, Format fa,
                                std::span<const std::uint64_t> A, Format fb, std::span<const std::uint64_t> B,
                                std::span<const std::uint64_t> C = {}, std::span<const std::uint64_t> scales_A = {},
                                std::span<const std::uint64_t> scales_B = {}, Format fc = formats::f32);

}  // namespace minifloat
