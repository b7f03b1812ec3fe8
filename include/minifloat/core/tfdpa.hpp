// SPDX-License-Identifier: Apache-2.0
// core/tfdpa.hpp: the tensor-core T-FDPA model (truncated fused dot-product-add) as data, its
// hardware presets (Hopper and Ada FP8 validated against measured vectors) and the constexpr
// group / chained-dot evaluation. Header-only, host and device; the named whole-dot-product
// models (DotModel, dot, gemm) are compiled: accumulate.hpp.
#pragma once
#include <cstddef>
#include <cstdint>

#include "arith.hpp"
#include "bits.hpp"
#include "config.hpp"
#include "format.hpp"
#include "profile.hpp"
#include "round_pack.hpp"
#include "rounding.hpp"
#include "unpacked.hpp"

namespace minifloat {

// =============================================================================================
// T-FDPA: truncated fused dot-product-add (training-sim.md §1.2; MMA-Sim arXiv 2511.10909
// `fdpa.t_fdpa`; Khattak & Mikaitis arXiv 2512.07004 `Generic_BFMA_TC.m`)
//
//   one group of L lanes, inputs a_i, b_i (any formats) and the accumulator c (format `dest`):
//     every term t (the L products and c) has a nominal exponent e_t: for an input x,
//       e(x) = max(floor(log2|x|), emin(format)) (subnormals keep emin, significand < 1);
//       a product has e_a + e_b (its significand a_sig·b_sig ∈ [0, 4) is NOT renormalised);
//       a zero term (zero product, c = 0, or an empty lane) has e = zero_exponent;
//     E = max over all terms of e_t;       quantum Q = 2^(E − F)
//     S = Σ align(t / Q)                   (align = trunc toward zero for RZ; exact integer sum)
//     d = round_out(S·Q) in `out`, then widened exactly into the register format `dest`.
//   A dot product longer than L chains groups: c ← tfdpa(next L lanes, c). Missing lanes of the
//   last group are zeros (a kernel pads K to the instruction's k).
//
// Specials (MMA-Sim `nv_fused_dot_add`): any NaN input, 0·Inf, or Inf of both signs among the
// products and c → the canonical NaN `nan_code` (0x7FFFFFFF for an FP32 destination); otherwise
// any Inf → ±Inf. A finite sum beyond `out`'s range → ±Inf under TfdpaOverflow::inf (MMA-Sim
// converts its RZ-truncated value to float32, which overflows to Inf), IEEE RZ (±max) under
// TfdpaOverflow::rz_max.
// Zero result sign (MMA-Sim's exact double sum): −0 only when every aligned term is a negative
// zero, else +0.
// =============================================================================================

/// How each term is rounded to F fraction bits of 2^E before the exact sum.
enum class AlignRounding : std::uint8_t {
  rtz,  ///< truncate the magnitude (sign-magnitude; NVIDIA: MMA-Sim `torch.trunc`, Khattak `armode = 'rz'`)
  rtn,  ///< floor in two's complement (AMD CDNA3: MMA-Sim `torch.floor`)
  rne,  ///< round half to even (not observed on hardware; for experiments)
};

/// What a finite group result beyond the range of `out` becomes.
enum class TfdpaOverflow : std::uint8_t {
  rz_max,  ///< IEEE round-toward-zero overflow: ±max of `out`
  inf,     ///< ±Inf (MMA-Sim: its RZ-truncated value converted to float32 overflows to Inf)
};
/// How far a preset is trusted.
enum class TfdpaValidation : std::uint8_t {
  published,         ///< published parameters only (papers, simulators); its name ends in "-unvalidated"
  hardware_vectors,  ///< bit-exact on every vector of the measured sets in `validated_on`
};

/// The parameters of a T-FDPA tensor-core model (all data; see `mma_models::` for presets).
struct TfdpaModel {
  const char* name;           ///< preset name ("hopper-fp8", …); "-unvalidated" unless hardware_vectors
  int group;                  ///< L: lanes per normalisation group (1..64)
  int frac_bits;              ///< F: fraction bits kept relative to 2^E (1..52)
  AlignRounding align;        ///< rounding of the aligned terms
  Format out;                 ///< precision/range of one group's result (e8m13 = FP32 with 10 low bits zero)
  RoundingSpec out_rounding;  ///< rounding into `out` (NVIDIA FP32 destinations: rtz; FP16 destinations: rne)
  Format dest;                ///< the destination register format (f32 or f16); `out` must embed exactly
  int zero_exponent;          ///< nominal exponent of a zero term in the max (MMA-Sim's "exponent for zero")
  TfdpaOverflow overflow;     ///< finite overflow of `out`: ±Inf (MMA-Sim) or IEEE RZ's ±max
  std::uint64_t nan_code;     ///< canonical NaN written to `dest`
  TfdpaValidation validation; ///< hardware_vectors only when bit-exact against hardware-measured vectors
  const char* validated_on;   ///< the measured sets (folder[:fp16 destination file]) it reproduces 5000/5000; "" if none
  const char* source;         ///< where every parameter comes from (paper/model file, or the rule from the vectors)
};

namespace formats {
/// "e8m13": an FP32 register whose low 10 mantissa bits are zero (MMA-Sim "RZ-E8M13"): 1 sign,
/// 8 exponent bits (bias 127), 13 mantissa bits, FP32's range with subnormals of quantum 2^−139.
/// Its code shifted left by 10 is the FP32 code.
inline constexpr Format e8m13{.bits = 22, .exponent_bits = 8, .mantissa_bits = 13, .bias = 127,
                              .is_signed = true, .specials = Specials::ieee, .has_zero = true};
}  // namespace formats

/// Tensor-core presets, one per architecture × operand type × destination (docs: README "Tensor-core
/// models"). Parameters and their sources:
///   - Khattak & Mikaitis arXiv 2512.07004, MATLAB models `models/<GPU>TC.m` (BSD-2): `fma` = L,
///     `neab` = F − 23 (extra alignment bits over FP32's 23), `frmode` = output rounding,
///     `min_exp_limit` = zero_exponent;
///   - MMA-Sim arXiv 2511.10909 (microsoft/MMA-Sim, MIT): `n_accum_fractional_bits` = F, output type
///     (RZ-FP32, RZ-E8M13, RNE-FP16), split-k (Ada), exponent for zero;
///   - the measured vectors (../shared/mma-vectors): a parameter set from them states its rule and data.
/// What K = 4 (tf32) and K = 8 (f16/bf16) sets cannot pin: a group larger than K (the missing lanes
/// are zeros) and zero_exponent below the smallest product exponent; such parameters come from the
/// papers alone even in validated presets (said per preset).
/// In CUDA device code copy a preset into a local first (`constexpr TfdpaModel m =
/// mma_models::hopper_fp8;`): namespace-scope constexpr objects are host variables.
namespace mma_models {

// ---- Volta (sm_70, V100): no public vectors here ----------------------------------------------
/// Volta f16 mma (m8n8k4) / wmma, FP32 accumulate. V100TC.m: fma = 4, neab = 0 (F = 23), frmode 'rz';
/// Fasi et al. PeerJ CS 7:e330 (2021): truncation, no guard bits.
inline constexpr TfdpaModel volta_f16_unvalidated{
    .name = "volta-f16-unvalidated", .group = 4, .frac_bits = 23, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 V100TC.m (fma=4, neab=0, frmode=rz, min_exp_limit=-133); "
              "Fasi et al. PeerJ CS 7:e330"};
/// Volta f16 with an FP16 destination: as volta-f16, output RNE to f16 (V100TC.m frmode 'rne').
inline constexpr TfdpaModel volta_f16_f16_unvalidated{
    .name = "volta-f16-f16-unvalidated", .group = 4, .frac_bits = 23, .align = AlignRounding::rtz,
    .out = formats::f16, .out_rounding = RoundingSpec{Rounding::rne}, .dest = formats::f16,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 V100TC.m (fma=4, neab=0, FP16 output frmode=rne)"};

// ---- Ampere (sm_80, A100) ----------------------------------------------------------------------
/// Ampere f16 mma m16n8k16 / wmma, FP32 accumulate: L = 8, F = 24, RZ to FP32 (A100TC.m fma = 8,
/// neab = 1). Validated: A100-fp16 5000/5000 with the file's C (K = 8 = L: the vectors fix F = 24
/// (F = 25: 169/200, F = 23 lower), RZ output (RNE: 151/200) and C inside the alignment; L ≥ 8 and
/// zero_exponent from A100TC.m alone).
inline constexpr TfdpaModel ampere_f16{
    .name = "ampere-f16", .group = 8, .frac_bits = 24, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors, .validated_on = "A100-fp16",
    .source = "Khattak & Mikaitis arXiv 2512.07004 A100TC.m (fma=8, neab=1, frmode=rz); F, RZ and C from the "
              "A100-fp16 vectors (5000/5000)"};
/// Ampere f16 with an FP16 destination (C an f16 register: the file's FP32 C rounded RNE to f16):
/// as ampere-f16 with the group result rounded RNE to f16 (A100TC.m frmode 'rne'). Validated: the
/// A100-fp16 d_*_fp16 file 5000/5000 (the file's C rounded to f16; with the unrounded C 262/299).
inline constexpr TfdpaModel ampere_f16_f16{
    .name = "ampere-f16-f16", .group = 8, .frac_bits = 24, .align = AlignRounding::rtz,
    .out = formats::f16, .out_rounding = RoundingSpec{Rounding::rne}, .dest = formats::f16,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffu,
    .validation = TfdpaValidation::hardware_vectors, .validated_on = "A100-fp16:fp16",
    .source = "Khattak & Mikaitis arXiv 2512.07004 A100TC.m (fma=8, neab=1, FP16 output frmode=rne); C rounded "
              "to f16 from the A100-fp16 d_fp16 vectors (5000/5000)"};
/// Ampere bf16, FP32 accumulate: as ampere-f16. Validated: A100-bf16 5000/5000 (file's C).
inline constexpr TfdpaModel ampere_bf16{
    .name = "ampere-bf16", .group = 8, .frac_bits = 24, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors, .validated_on = "A100-bf16",
    .source = "Khattak & Mikaitis arXiv 2512.07004 A100TC.m (fma=8, neab=1, frmode=rz); A100-bf16 vectors "
              "5000/5000 (F=24: F=25 183/200)"};
/// Ampere tf32 mma m16n8k8, FP32 accumulate: L = 4, F = 24 (A100TC.m tf32 fma = 4). Validated:
/// A100-tf32 5000/5000 (K = 4: fixes F = 24 and RZ; L = 4 from A100TC.m).
inline constexpr TfdpaModel ampere_tf32{
    .name = "ampere-tf32", .group = 4, .frac_bits = 24, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors, .validated_on = "A100-tf32",
    .source = "Khattak & Mikaitis arXiv 2512.07004 A100TC.m (tf32 fma=4, neab=1, frmode=rz); A100-tf32 vectors "
              "5000/5000 (F=25: 267/300)"};

// ---- Ada (sm_89, L40S) -------------------------------------------------------------------------
/// Ada f16 mma, FP32 accumulate: L40STC.m fma = 8, neab = 1 (F = 24), RZ. No f16 vectors here.
inline constexpr TfdpaModel ada_f16_unvalidated{
    .name = "ada-f16-unvalidated", .group = 8, .frac_bits = 24, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 L40STC.m (fma=8, neab=1, frmode=rz)"};
/// Ada bf16, FP32 accumulate: as ada-f16 (L40STC.m).
inline constexpr TfdpaModel ada_bf16_unvalidated{
    .name = "ada-bf16-unvalidated", .group = 8, .frac_bits = 24, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 L40STC.m (fma=8, neab=1, frmode=rz)"};
/// Ada tf32, FP32 accumulate: L40STC.m tf32 fma = 4, F = 24.
inline constexpr TfdpaModel ada_tf32_unvalidated{
    .name = "ada-tf32-unvalidated", .group = 4, .frac_bits = 24, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 L40STC.m (tf32 fma=4, neab=1, frmode=rz)"};
/// Ada (sm_89, L40S) FP8 mma.sync m16n8k32: the same arithmetic split into two chained groups of
/// 16 (lanes 0–15 with C first, then 16–31), i.e. L = 16. Validated: 5000/5000 on the Ada E4M3
/// vectors with the file's C. zero_exponent −132 as MMA-Sim's Ada e5m2 case.
inline constexpr TfdpaModel ada_fp8{
    .name = "ada-fp8", .group = 16, .frac_bits = 13, .align = AlignRounding::rtz,
    .out = formats::e8m13, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -132, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors, .validated_on = "Ada-E4M3",
    .source = "MMA-Sim arXiv 2511.10909 (is_split_k; MMA_T_FDPA(13, RZ-E8M13, 16, -132)); Khattak & Mikaitis arXiv "
              "2512.07004 L40STC.m (fma=16, neab=-10); training-sim.md §1.3-1.4"};
/// Ada FP8 with an FP16 destination: L = 16, F = 13, the group result rounded RNE to f16 (L40STC.m
/// FP8 frmode 'rne'); C an f16 register. Validated: the Ada-E4M3 d_*_fp16 file 5000/5000 with the
/// file's C rounded RNE to f16 (unrounded C: 127/199).
inline constexpr TfdpaModel ada_fp8_f16{
    .name = "ada-fp8-f16", .group = 16, .frac_bits = 13, .align = AlignRounding::rtz,
    .out = formats::f16, .out_rounding = RoundingSpec{Rounding::rne}, .dest = formats::f16,
    .zero_exponent = -132, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffu,
    .validation = TfdpaValidation::hardware_vectors, .validated_on = "Ada-E4M3:fp16",
    .source = "Khattak & Mikaitis arXiv 2512.07004 L40STC.m (fma=16, neab=-10, FP16 frmode=rne); C rounded to f16 "
              "from the Ada-E4M3 d_fp16 vectors (5000/5000)"};

// ---- Hopper (sm_90, H100/H200) -------------------------------------------------------------------
/// Hopper FP8 (e4m3/e5m2) with FP32 accumulate: wgmma k32 / mma.sync m16n8k32.
/// L = 32, F = 13, RZ aligned terms, RZ to e8m13. Validated: 5000/5000 on the H100 E4M3 vectors
/// (with C = +0, see the README of mma-vectors). zero_exponent −126 as MMA-Sim fdpa.py (unprobed).
inline constexpr TfdpaModel hopper_fp8{
    .name = "hopper-fp8", .group = 32, .frac_bits = 13, .align = AlignRounding::rtz,
    .out = formats::e8m13, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -126, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors, .validated_on = "H100-E4M3",
    .source = "MMA-Sim arXiv 2511.10909 (WGMMASim n_accum_fractional_bits=13, f32_e8m13); Khattak & Mikaitis "
              "arXiv 2512.07004 H100TC.m (fma=32, neab=-10); training-sim.md §1.3"};
/// Hopper FP8 with an FP16 destination: as hopper-fp8, output RNE to f16 (MMA-Sim "RNE-FP16",
/// H100TC.m FP8 frmode 'rne'). The H100-E4M3 d_*_fp16 file is NOT matched by it (3113/5000) or by
/// any variant tried (mma-check --all probes L 16/32 × F 10..30 × RZ/RNE × C file/+0: best 3128/5000;
/// lane orders, L 4/8, C rounded to other formats, double rounding via FP32/e8m13: ≤ ~66 %).
inline constexpr TfdpaModel hopper_fp8_f16_unvalidated{
    .name = "hopper-fp8-f16-unvalidated", .group = 32, .frac_bits = 13, .align = AlignRounding::rtz,
    .out = formats::f16, .out_rounding = RoundingSpec{Rounding::rne}, .dest = formats::f16,
    .zero_exponent = -126, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "MMA-Sim arXiv 2511.10909 (RNE-FP16); Khattak & Mikaitis arXiv 2512.07004 H100TC.m (fma=32, "
              "neab=-10, frmode=rne); H100-E4M3 d_fp16 vectors not matched"};
/// Hopper f16 wgmma with FP32 accumulate: L = 16, F = 25, RZ to FP32, zero exponent −133.
/// No f16 vectors here (its parameters also reproduce the H100 tf32 set, see hopper-tf32).
inline constexpr TfdpaModel hopper_f16_unvalidated{
    .name = "hopper-f16-unvalidated", .group = 16, .frac_bits = 25, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "MMA-Sim arXiv 2511.10909 (n_accum_fractional_bits=25; MMA_T_FDPA(25, RZ-FP32, 16, -133)); Khattak & "
              "Mikaitis arXiv 2512.07004 H100TC.m (fma=16, neab=2, min_exp_limit=-133)"};
/// Hopper bf16 wgmma with FP32 accumulate: same parameters as f16.
inline constexpr TfdpaModel hopper_bf16_unvalidated{
    .name = "hopper-bf16-unvalidated", .group = 16, .frac_bits = 25, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "as hopper-f16 (MMA-Sim arXiv 2511.10909; Khattak & Mikaitis arXiv 2512.07004 H100TC.m)"};
/// Hopper f16 with an FP16 destination: as hopper-f16, output RNE to f16 (H100TC.m frmode 'rne').
inline constexpr TfdpaModel hopper_f16_f16_unvalidated{
    .name = "hopper-f16-f16-unvalidated", .group = 16, .frac_bits = 25, .align = AlignRounding::rtz,
    .out = formats::f16, .out_rounding = RoundingSpec{Rounding::rne}, .dest = formats::f16,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 H100TC.m (fma=16, neab=2, FP16 frmode=rne); MMA-Sim RNE-FP16"};
/// Hopper tf32 wgmma k8, FP32 accumulate: L = 8 (H100TC.m tf32 fma = 8; MMA-Sim L = 32 bytes / 4),
/// F = 25, RZ. Validated: H100-tf32 5000/5000 with the file's C (K = 4: fixes F = 25 (F = 24 fails)
/// and RZ; L = 8 from the papers).
inline constexpr TfdpaModel hopper_tf32{
    .name = "hopper-tf32", .group = 8, .frac_bits = 25, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors, .validated_on = "H100-tf32",
    .source = "Khattak & Mikaitis arXiv 2512.07004 H100TC.m (tf32 fma=8, neab=2, frmode=rz); MMA-Sim arXiv "
              "2511.10909 (F=25); H100-tf32 vectors 5000/5000"};

// ---- Blackwell (sm_100, B200) ------------------------------------------------------------------
/// Blackwell FP8 mma.sync m16n8k32 (the source harness `mma_fp8_output_fp32.cu`, not tcgen05), FP32
/// accumulate: one group of 32 (L = 32), F = 30, RNE to FP32, C in the alignment. Parameters from the
/// B200-E4M3 vectors (5000/5000, file's C), each by its rule:
///   - output RNE: with RZ 3152/5000 (the mismatches are the RNE-rounded-up lines);
///   - F ≥ 30: F = 29 mismatches line 3251 only (C = 0x3af50a1d, product exponents −12..1: its
///     bits below 2^(1−29) change the RNE decision), F = 28 five lines, F = 25 (Khattak's neab = 2)
///     4754; every F in 30..60 gives 5000/5000, so the data fixes F ≥ 30 and F = 30 is that bound;
///   - L = 32: L = 16 (two chained groups, as Khattak's B200TCRN.m interleaved 16) 4103/5000;
///   - C from the file (C = +0: 0/5000).
/// zero_exponent from B200TC.m (min_exp_limit −133); not pinned.
inline constexpr TfdpaModel blackwell_fp8{
    .name = "blackwell-fp8", .group = 32, .frac_bits = 30, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rne}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors, .validated_on = "B200-E4M3",
    .source = "B200-E4M3 vectors (5000/5000): L=32, RNE and F>=30 each by the rule in core/tfdpa.hpp; Khattak & "
              "Mikaitis arXiv 2512.07004 B200TC.m (fma=32 for FP8, min_exp_limit=-133)"};
/// Blackwell tcgen05 kind::f8f6f4 (FP8) with unit scales, FP32 accumulate: F = 25, L = 32, RZ to FP32
/// (MMA-Sim TCGen05MMASim / MMA_ST_FDPA(25, RZ-FP32, 32, -133)). No tcgen05 vectors here; the
/// B200-E4M3 (mma.sync) set gives it 3207/5000.
inline constexpr TfdpaModel blackwell_tcgen05_fp8_unvalidated{
    .name = "blackwell-tcgen05-fp8-unvalidated", .group = 32, .frac_bits = 25, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "MMA-Sim arXiv 2511.10909 TCGen05MMASim (F=25, RZ-FP32, L=32, -133)"};
/// Blackwell f16, FP32 accumulate: B200TC.m fma = 16, neab = 2 (F = 25), RZ.
inline constexpr TfdpaModel blackwell_f16_unvalidated{
    .name = "blackwell-f16-unvalidated", .group = 16, .frac_bits = 25, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 B200TC.m (fma=16, neab=2, frmode=rz, min_exp_limit=-133)"};
/// Blackwell bf16, FP32 accumulate: as blackwell-f16 (B200TC.m).
inline constexpr TfdpaModel blackwell_bf16_unvalidated{
    .name = "blackwell-bf16-unvalidated", .group = 16, .frac_bits = 25, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published, .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 B200TC.m (fma=16, neab=2, frmode=rz)"};
/// Blackwell tf32, FP32 accumulate: L = 8 (B200TC.m tf32 fma = 8), F = 25, RZ. Validated: B200-tf32
/// 5000/5000 with the file's C (K = 4: fixes F = 25 and RZ; L from B200TC.m).
inline constexpr TfdpaModel blackwell_tf32{
    .name = "blackwell-tf32", .group = 8, .frac_bits = 25, .align = AlignRounding::rtz,
    .out = formats::f32, .out_rounding = RoundingSpec{Rounding::rtz}, .dest = formats::f32,
    .zero_exponent = -133, .overflow = TfdpaOverflow::inf, .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors, .validated_on = "B200-tf32",
    .source = "Khattak & Mikaitis arXiv 2512.07004 B200TC.m (tf32 fma=8, neab=2, frmode=rz); B200-tf32 vectors "
              "5000/5000"};
}  // namespace mma_models

namespace detail {

/// Nominal exponent of a finite nonzero decoded value of format f: max(floor(log2|x|), emin(f)).
MINIFLOAT_HOST_DEVICE constexpr int nominal_exponent(Format f, const Unpacked& u) noexcept {
  const int e = bit_width(u.sig) + u.exp - 1;
  return e > emin(f) ? e : emin(f);
}

/// |v| / 2^q aligned to an integer (v = sig·2^exp), rounded by `r`; sign applied. The caller
/// guarantees |v| < 2^(q + 62).
MINIFLOAT_HOST_DEVICE constexpr std::int64_t align_term(bool neg, const Wide& sig, int exp, int q,
                                                        AlignRounding r) noexcept {
  const int shift = exp - q;
  std::uint64_t mag = 0;
  bool lost = false, half = false, above_half = false;
  if (shift >= 0) {
    mag = wide_shl(sig, shift).w[0];
  } else {
    mag = wide_shr(sig, -shift, lost).w[0];
    if (lost) {  // classify the discarded part against one half
      bool below = false;
      const Wide h = wide_shr(sig, -shift - 1, below);  // keeps the first discarded bit as bit 0
      half = (h.w[0] & 1) != 0;
      above_half = half && below;
      half = half && !below;
    }
  }
  if (lost) {
    if (r == AlignRounding::rtn && neg) ++mag;
    if (r == AlignRounding::rne && (above_half || (half && (mag & 1) != 0))) ++mag;
  }
  const auto s = static_cast<std::int64_t>(mag);
  return neg ? -s : s;
}

}  // namespace detail

/// One T-FDPA group: d = round(Σ_{i<n} a_i·b_i + c) under model `m` (n ≤ m.group; lanes n..L−1
/// are zeros). `c` is a code of `m.dest`; the result is a code of `m.dest`. Flags: inexact when the
/// result differs from the exact sum; invalid for a NaN produced from non-NaN inputs.
MINIFLOAT_HOST_DEVICE constexpr RoundResult tfdpa_group(const TfdpaModel& m, Format fa, const std::uint64_t* a,
                                                        Format fb, const std::uint64_t* b, std::size_t n,
                                                        std::uint64_t c) noexcept {
  // 1. specials
  bool any_nan = false, pos_inf = false, neg_inf = false, invalid = false;
  const Unpacked uc = unpack(m.dest, c);
  for (std::size_t i = 0; i < n; ++i) {
    const Unpacked ua = unpack(fa, a[i]), ub = unpack(fb, b[i]);
    if (ua.cls == Class::nan || ub.cls == Class::nan) {
      any_nan = true;
    } else if (ua.cls == Class::inf || ub.cls == Class::inf) {
      if (detail::is_zero(ua) || detail::is_zero(ub)) {
        invalid = true;
      } else if (ua.negative != ub.negative) {
        neg_inf = true;
      } else {
        pos_inf = true;
      }
    }
  }
  if (uc.cls == Class::nan) any_nan = true;
  if (uc.cls == Class::inf) (uc.negative ? neg_inf : pos_inf) = true;
  if (pos_inf && neg_inf) invalid = true;
  if (any_nan || invalid) return {m.nan_code, invalid && !any_nan ? flag_invalid : flag_none};
  if (pos_inf || neg_inf) return {inf_code(m.dest, detail::sign_of(neg_inf)), flag_none};

  // 2. the max nominal exponent E over all L lanes and c (zero terms count as zero_exponent)
  int E = m.zero_exponent;
  bool have = false;
  auto consider = [&](int e) {
    if (!have || e > E) E = e;
    have = true;
  };
  if (n < static_cast<std::size_t>(m.group)) consider(m.zero_exponent);
  for (std::size_t i = 0; i < n; ++i) {
    const Unpacked ua = unpack(fa, a[i]), ub = unpack(fb, b[i]);
    if (detail::is_zero(ua) || detail::is_zero(ub)) consider(m.zero_exponent);
    else consider(detail::nominal_exponent(fa, ua) + detail::nominal_exponent(fb, ub));
  }
  consider(detail::is_zero(uc) ? m.zero_exponent : detail::nominal_exponent(m.dest, uc));

  // 3. align every term to quantum 2^(E − F) and sum exactly
  const int q = E - m.frac_bits;
  std::int64_t S = 0;
  bool all_negative_zero = n == static_cast<std::size_t>(m.group);  // an empty lane is +0
  bool exact = true;
  auto add_term = [&](bool neg, const detail::Wide& sig, int exp) {
    const std::int64_t t = detail::align_term(neg, sig, exp, q, m.align);
    // exactness: does t·Q equal the term?
    if (!detail::wide_is_zero(sig)) {
      const int shift = exp - q;
      if (shift < 0) {
        bool lost = false;
        (void)detail::wide_shr(sig, -shift, lost);
        if (lost) exact = false;
      }
    }
    if (t != 0 || !neg) all_negative_zero = false;
    S += t;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Unpacked ua = unpack(fa, a[i]), ub = unpack(fb, b[i]);
    const bool neg = ua.negative != ub.negative;
    if (detail::is_zero(ua) || detail::is_zero(ub)) add_term(neg, detail::Wide{}, 0);
    else add_term(neg, detail::mul64(ua.sig, ub.sig), ua.exp + ub.exp);
  }
  if (detail::is_zero(uc)) add_term(uc.negative, detail::Wide{}, 0);
  else add_term(uc.negative, detail::wide(uc.sig), uc.exp);

  // 4. normalise and round into `out`, then widen into `dest`
  Unpacked sum;
  if (S == 0) {
    sum.cls = Class::zero;
    sum.negative = all_negative_zero;
  } else {
    sum.cls = Class::normal;
    sum.negative = S < 0;
    sum.sig = S < 0 ? static_cast<std::uint64_t>(-S) : static_cast<std::uint64_t>(S);
    sum.exp = q;
  }
  RoundResult r = round_pack(m.out, sum, m.out_rounding);
  if ((r.flags & flag_overflow) != 0 && m.overflow == TfdpaOverflow::inf)
    return {inf_code(m.dest, detail::sign_of(sum.negative)), r.flags};
  RoundResult d = round_pack(m.dest, unpack(m.out, r.code));  // exact: out embeds in dest
  d.flags = r.flags;
  if (!exact) d.flags |= flag_inexact;
  return d;
}

/// A dot product of length k under model `m`: groups of m.group lanes chained through the
/// accumulator (c ← tfdpa_group(next lanes, c)), starting from `c` (a code of m.dest).
MINIFLOAT_HOST_DEVICE constexpr RoundResult tfdpa_dot(const TfdpaModel& m, Format fa, const std::uint64_t* a, Format fb,
                                                      const std::uint64_t* b, std::size_t k, std::uint64_t c) noexcept {
  RoundResult r{c, flag_none};
  const auto L = static_cast<std::size_t>(m.group);
  for (std::size_t i = 0; i < k || (i == 0 && k == 0); i += L) {
    const std::size_t n = k - i < L ? k - i : L;
    const RoundResult g = tfdpa_group(m, fa, a + i, fb, b + i, n, r.code);
    r.code = g.code;
    r.flags |= g.flags;
    if (k == 0) break;
  }
  return r;
}

}  // namespace minifloat
