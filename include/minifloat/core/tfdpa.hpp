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
//   Block-scaled kinds (TfdpaBlockScale; tcgen05 mxf8f6f4/mxf4/mxf4nvf4): the scales enter either
//   every product's exponent before the max (product_exponent) or as one exact 16-lane partial
//   sum per term with exponent e(s_a) + e(s_b) (subblock_sum); see BlockScaleApplication.
//
// Specials (MMA-Sim `nv_fused_dot_add`): any NaN input, 0·Inf, or Inf of both signs among the
// products and c → the canonical NaN `nan_code` (0x7FFFFFFF for an FP32 destination); otherwise
// any Inf → ±Inf. A finite sum beyond `out`'s range → ±Inf under TfdpaOverflow::inf (MMA-Sim
// converts its RZ-truncated value to float32, which overflows to Inf), IEEE RZ (±max) under
// TfdpaOverflow::rz_max.
// Zero rules (TfdpaZeroRules, issue 26 item 4; hardware has not decided them): by default a zero
// product, an empty lane and a zero C all have e = zero_exponent, and a zero result is −0 only when
// every aligned term is a negative zero, else +0. MMA-Sim's alternatives (mma_sim_zero_rules): a zero
// factor at −126 relative to the other factor, a zero C at −126, a zero result always +0.
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
/// Where a block-scaled kind's per-block scales enter the T-FDPA. PTX ISA §9.7.16.10.7 (tcgen05.mma
/// `.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4` with `.block_scale`): D = (A·scale_A)·(B·scale_B)
/// + D, each scale multiplying one chunk of `block` consecutive K lanes of a row of A / column of B.
enum class BlockScaleApplication : std::uint8_t {
  none,              ///< no scale inputs (every kind but the block-scaled tcgen05 ones)
  product_exponent,  ///< e(s_a) + e(s_b) is added to every product's exponent before the max E and
                     ///< the alignment; scale significands are not used, so power-of-two scales only
                     ///< (UE8M0). MMA-Sim `fused_dot_add` (exponent ea + eb + esa + esb): mxf8f6f4
  subblock_sum,      ///< every `subblock` lanes are summed exactly first; that sum times both scale
                     ///< significands enters the alignment as ONE term whose exponent for the max E
                     ///< is e(s_a) + e(s_b) (not renormalised, also when the sum is 0). MMA-Sim
                     ///< `nv_fused_dot_add_with_block_scale`: mxf4, mxf4nvf4
};

/// The block-scale parameters of a T-FDPA model (all zero / none for unscaled kinds).
struct TfdpaBlockScale {
  BlockScaleApplication application = BlockScaleApplication::none;
  Format format{};   ///< scale format: e8m0fnu (UE8M0) or ue4m3 (an 8-bit code's sign bit is ignored,
                     ///< as MMA-Sim's `scale.abs()` and PTX `.ue4m3`)
  int block = 0;     ///< K lanes per scale: 32 (MX, scale_vec::1X/2X) or 16 (NVFP4, scale_vec::4X); divides `group`
  int subblock = 0;  ///< subblock_sum: lanes per exact partial sum (16 in MMA-Sim); divides `block`
};

/// Where a zero product's exponent comes from in the max E (issue 26 item 4a). Hardware has not decided
/// it: the measured vectors cannot tell the two apart (docs/tensor-cores.md "Zero rules").
enum class ZeroProductExponent : std::uint8_t {
  constant,  ///< every zero product (and an empty lane) has e = zero_exponent (the default)
  relative,  ///< a zero factor has e = TfdpaZeroRules::factor_exponent and the product e_a + e_b (+ the block
             ///< scales' exponents) as a nonzero one: MMA-Sim arithmetic.py:93-94 (frexp(0) → −126) used at
             ///< :152-155 (ea + eb + esa + esb) and :217-220 (a zero scale: e0 + e1)
};
/// Where a zero C's exponent comes from (issue 26 item 4b; not decided by hardware).
enum class ZeroCExponent : std::uint8_t {
  zero_exponent,  ///< TfdpaModel::zero_exponent, as a constant zero product (the default)
  own,            ///< TfdpaZeroRules::c_exponent (MMA-Sim: −126 for every kind, arithmetic.py:93-94 at :146)
};
/// The sign of a zero result (issue 26 item 4c; not decided by hardware).
enum class ZeroResultSign : std::uint8_t {
  negative_when_all_negative,  ///< −0 only when every aligned term is a negative zero (the default)
  positive,                    ///< +0 always, also when `out` rounds a tiny result to zero: MMA-Sim's
                               ///< sum starts at +0.0 (arithmetic.py:119-128) and math.trunc gives an int
};
/// The zero rules of a T-FDPA model. The defaults are the presets' behaviour; the MMA-Sim choices
/// (relative, own −126, positive) are the alternatives that no measured set here decides.
struct TfdpaZeroRules {
  ZeroProductExponent product = ZeroProductExponent::constant;
  int factor_exponent = -126;  ///< relative: the exponent of a zero factor (and of a zero block scale)
  ZeroCExponent c = ZeroCExponent::zero_exponent;
  int c_exponent = -126;  ///< own: the exponent of a zero C
  ZeroResultSign sign = ZeroResultSign::negative_when_all_negative;
};
/// MMA-Sim's zero rules (microsoft/MMA-Sim c785138 mmasim/simulator/arithmetic.py): relative −126, a zero
/// C at −126, a zero result +0.
inline constexpr TfdpaZeroRules mma_sim_zero_rules{ZeroProductExponent::relative, -126, ZeroCExponent::own, -126,
                                                   ZeroResultSign::positive};

/// How one group combines its products and C (issue 26 item 6). NVIDIA's tensor cores are one fused
/// group (the formula above); AMD's CDNA matrix cores (MFMA) follow MMA-Sim c785138
/// mmasim/simulator/amd.py:30-51 and :69-98, arithmetic.py:98-112 and :227-285.
enum class TfdpaStructure : std::uint8_t {
  fused,               ///< products and C aligned to one E, F bits, one rounding into `out` (the formula above)
  pairwise_f32,        ///< AMD CDNA1/2 f16/bf16: every product fmaf(a, b, +0) in f32, the L products summed as a
                       ///< pairwise tree of f32 RNE additions (halves of ⌊n/2⌋ and the rest), then C + that sum
                       ///< rounded RNE to f32 (amd.py:75-86, arithmetic.py:98-112); frac_bits and align unused
  two_stage,           ///< AMD CDNA3 f16/bf16: the L products aligned to their own max exponent e_p, truncated
                       ///< (RZ) to F bits and summed exactly; then with M = max(e_p, e(C)) that sum is floored
                       ///< (RD) to 31 fraction bits of 2^M and C to 24, added, rounded RNE into `out`
                       ///< (arithmetic.py:280-285; the zero rules apply to e_p and e(C))
  two_stage_odd_even,  ///< AMD CDNA3 fp8/bf8: as two_stage, but even and odd lanes are two RZ sums, each
                       ///< floored to F bits of their larger exponent before they are added, and a C
                       ///< below 2^(M − 25) is dropped (arithmetic.py:261-279)
  late_c,              ///< NVIDIA B200 FP8 mma.sync (issue 26 item 5): the L products alone form the fused group
                       ///< (E = their max exponent, F bits, `align`; C takes no part in E or the alignment), its
  ///< sum is rounded into `out` by sum_rounding (RZ), then C + that value is rounded once into `out`
  ///< by out_rounding (an FP32 add: RNE). Rule from the B200-E4M3/E5M2 vectors; no published
  ///< model has it (B200TC.m/B200TCRN.m put C into the alignment). out must equal dest
  late_c_pairs,  ///< NVIDIA H100/H200/B200 FP8 mma.sync with an f16 D (issue 26 item 5): two chained fused
                 ///< groups of L/2 lanes from C = +0 (F bits, `align`, each rounded into `out` by
                 ///< sum_rounding), first the lanes i with i mod 4 in {0, 1}, then those with i mod 4 in
                 ///< {2, 3} plus the first group's result; then C + that value is rounded once into `out` by
                 ///< out_rounding (an f16 add: RNE). Rule from the six FP16-destination FP8 sets of
                 ///< MATLAB-tensor-core; out must equal dest, L a multiple of 4
};
/// Whether a model flushes subnormals (AMD CDNA2: amd.py:38, :47, :62-65, :84-85).
enum class TfdpaSubnormals : std::uint8_t {
  keep,   ///< subnormal inputs, partial sums and results are kept
  flush,  ///< pairwise_f32 only: subnormal A, B and C are +0 (arithmetic.py:67-73), every partial sum and
          ///< group result below 2^−126 is a zero of its sign (arithmetic.py:110-111; amd.py:84-85)
};

/// How far a preset is trusted.
enum class TfdpaValidation : std::uint8_t {
  published,         ///< published parameters only (papers, simulators); its name ends in "-unvalidated"
  hardware_vectors,  ///< bit-exact on every vector of the measured sets in `validated_on`
};

/// The operand formats a tensor-core instruction multiplies: `formats[0..count)` (at most 5; the
/// a and b operands each take any of them).
struct TfdpaOperands {
  Format formats[5]{};
  int count = 0;
};

/// The parameters of a T-FDPA tensor-core model (all data; see `mma_models::` for presets, and
/// `mma_models::all` for the list the registry names).
struct TfdpaModel {
  const char* name;            ///< preset name ("hopper-fp8", …); "-unvalidated" unless hardware_vectors
  const char* summary = "";    ///< one line for the name listing: architecture, instruction, accumulator, trust
  TfdpaOperands operands;      ///< the formats its instruction multiplies (FP8: e4m3fn, e5m2; *-f16: f16; …)
  int group;                   ///< L: lanes per normalisation group (1..64)
  int frac_bits;               ///< F: fraction bits kept relative to 2^E (1..52)
  AlignRounding align;         ///< rounding of the aligned terms
  Format out;                  ///< precision/range of one group's result (e8m13 = FP32 with 10 low bits zero)
  RoundingSpec out_rounding;   ///< rounding into `out` (NVIDIA FP32 destinations: rtz; FP16 destinations: rne)
  Format dest;                 ///< the destination register format (f32 or f16); `out` must embed exactly
  TfdpaBlockScale scale{};     ///< block-scaled tcgen05 kinds: where the scales enter (default: none)
  int zero_exponent;           ///< nominal exponent of a zero term in the max (MMA-Sim's "exponent for zero")
  TfdpaOverflow overflow;      ///< finite overflow of `out`: ±Inf (MMA-Sim) or IEEE RZ's ±max
  std::uint64_t nan_code;      ///< canonical NaN written to `dest`
  TfdpaValidation validation;  ///< hardware_vectors only when bit-exact against hardware-measured vectors
  const char* validated_on;  ///< the measured sets (folder[:fp16 destination file]) it reproduces 5000/5000; "" if none
  const char* source;        ///< where every parameter comes from (paper/model file, or the rule from the vectors)
  TfdpaZeroRules zero{};     ///< how zero products, a zero C and a zero result behave (defaults: the presets')
  TfdpaStructure structure = TfdpaStructure::fused;    ///< how a group combines its terms (AMD: not fused)
  TfdpaSubnormals subnormals = TfdpaSubnormals::keep;  ///< AMD CDNA2: flush
  Rounding sum_rounding = Rounding::rtz;  ///< late_c, late_c_pairs: the products' sum into `out` before C is added
};

namespace formats {
/// "e8m13": an FP32 register whose low 10 mantissa bits are zero (MMA-Sim "RZ-E8M13"): 1 sign,
/// 8 exponent bits (bias 127), 13 mantissa bits, FP32's range with subnormals of quantum 2^−139.
/// Its code shifted left by 10 is the FP32 code.
inline constexpr Format e8m13{.bits = 22,
                              .exponent_bits = 8,
                              .mantissa_bits = 13,
                              .bias = 127,
                              .is_signed = true,
                              .specials = Specials::ieee,
                              .has_zero = true};
}  // namespace formats

/// Tensor-core presets, one per architecture × operand type × destination (docs:
/// docs/tensor-cores.md). Parameters and their sources:
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

/// The operand sets of the presets.
namespace tfdpa_operands {
inline constexpr TfdpaOperands fp8{{formats::e4m3fn, formats::e5m2}, 2};
inline constexpr TfdpaOperands f16{{formats::f16}, 1};
inline constexpr TfdpaOperands bf16{{formats::bf16}, 1};
inline constexpr TfdpaOperands tf32{{formats::tf32}, 1};
inline constexpr TfdpaOperands f8f6f4{
    {formats::e4m3fn, formats::e5m2, formats::e2m3fn, formats::e3m2fn, formats::e2m1fn}, 5};
inline constexpr TfdpaOperands fp4{{formats::e2m1fn}, 1};
/// AMD CDNA3 fp8/bf8 (MI300): the FNUZ formats (MMA-Sim c785138 isa/common.py:148-156).
inline constexpr TfdpaOperands fp8_fnuz{{formats::e4m3fnuz, formats::e5m2fnuz}, 2};
}  // namespace tfdpa_operands

namespace mma_models {

// ---- Volta (sm_70, V100): no public vectors here ----------------------------------------------
/// Volta f16 mma (m8n8k4) / wmma, FP32 accumulate. V100TC.m: fma = 4, neab = 0 (F = 23), frmode 'rz';
/// Fasi et al. PeerJ CS 7:e330 (2021): truncation, no guard bits.
inline constexpr TfdpaModel volta_f16_unvalidated{
    .name = "volta-f16-unvalidated",
    .summary = "Volta sm_70 f16 mma/wmma, FP32 accumulate (published: V100TC.m)",
    .operands = tfdpa_operands::f16,
    .group = 4,
    .frac_bits = 23,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "Khattak & Mikaitis arXiv 2512.07004 V100TC.m (fma=4, neab=0, frmode=rz, min_exp_limit=-133); "
        "Fasi et al. PeerJ CS 7:e330"};
/// Volta f16 with an FP16 destination: as volta-f16, output RNE to f16 (V100TC.m frmode 'rne').
inline constexpr TfdpaModel volta_f16_f16_unvalidated{
    .name = "volta-f16-f16-unvalidated",
    .summary = "Volta sm_70 f16, FP16 accumulate (published: V100TC.m)",
    .operands = tfdpa_operands::f16,
    .group = 4,
    .frac_bits = 23,
    .align = AlignRounding::rtz,
    .out = formats::f16,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f16,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 V100TC.m (fma=4, neab=0, FP16 output frmode=rne)"};

// ---- Ampere (sm_80, A100) ----------------------------------------------------------------------
/// Ampere f16 mma m16n8k16 / wmma, FP32 accumulate: L = 8, F = 24, RZ to FP32 (A100TC.m fma = 8,
/// neab = 1). Validated: A100-fp16 5000/5000 with the file's C (K = 8 = L: the vectors fix F = 24
/// (F = 25: 169/200, F = 23 lower), RZ output (RNE: 151/200) and C inside the alignment; L ≥ 8 and
/// zero_exponent from A100TC.m alone).
inline constexpr TfdpaModel ampere_f16{
    .name = "ampere-f16",
    .summary = "Ampere sm_80 f16 mma, FP32 accumulate (validated: A100-fp16)",
    .operands = tfdpa_operands::f16,
    .group = 8,
    .frac_bits = 24,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "A100-fp16",
    .source =
        "Khattak & Mikaitis arXiv 2512.07004 A100TC.m (fma=8, neab=1, frmode=rz); F, RZ and C from the "
        "A100-fp16 vectors (5000/5000)"};
/// Ampere f16 with an FP16 destination (C an f16 register: the file's FP32 C rounded RNE to f16):
/// as ampere-f16 with the group result rounded RNE to f16 (A100TC.m frmode 'rne'). Validated: the
/// A100-fp16 d_*_fp16 file 5000/5000 (the file's C rounded to f16; with the unrounded C 262/299).
inline constexpr TfdpaModel ampere_f16_f16{
    .name = "ampere-f16-f16",
    .summary = "Ampere sm_80 f16 mma, FP16 accumulate (validated: A100-fp16 d_fp16)",
    .operands = tfdpa_operands::f16,
    .group = 8,
    .frac_bits = 24,
    .align = AlignRounding::rtz,
    .out = formats::f16,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f16,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "A100-fp16:fp16",
    .source =
        "Khattak & Mikaitis arXiv 2512.07004 A100TC.m (fma=8, neab=1, FP16 output frmode=rne); C rounded "
        "to f16 from the A100-fp16 d_fp16 vectors (5000/5000)"};
/// Ampere bf16, FP32 accumulate: as ampere-f16. Validated: A100-bf16 5000/5000 (file's C).
inline constexpr TfdpaModel ampere_bf16{
    .name = "ampere-bf16",
    .summary = "Ampere sm_80 bf16 mma, FP32 accumulate (validated: A100-bf16)",
    .operands = tfdpa_operands::bf16,
    .group = 8,
    .frac_bits = 24,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "A100-bf16",
    .source =
        "Khattak & Mikaitis arXiv 2512.07004 A100TC.m (fma=8, neab=1, frmode=rz); A100-bf16 vectors "
        "5000/5000 (F=24: F=25 183/200)"};
/// Ampere tf32 mma m16n8k8, FP32 accumulate: L = 4, F = 24 (A100TC.m tf32 fma = 4). Validated:
/// A100-tf32 5000/5000 (K = 4: fixes F = 24 and RZ; L = 4 from A100TC.m).
inline constexpr TfdpaModel ampere_tf32{
    .name = "ampere-tf32",
    .summary = "Ampere sm_80 tf32 mma, FP32 accumulate (validated: A100-tf32)",
    .operands = tfdpa_operands::tf32,
    .group = 4,
    .frac_bits = 24,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "A100-tf32",
    .source =
        "Khattak & Mikaitis arXiv 2512.07004 A100TC.m (tf32 fma=4, neab=1, frmode=rz); A100-tf32 vectors "
        "5000/5000 (F=25: 267/300)"};

// ---- Ada (sm_89, L40S) -------------------------------------------------------------------------
/// Ada f16 mma, FP32 accumulate: L40STC.m fma = 8, neab = 1 (F = 24), RZ. No f16 vectors here.
inline constexpr TfdpaModel ada_f16_unvalidated{
    .name = "ada-f16-unvalidated",
    .summary = "Ada sm_89 f16 mma, FP32 accumulate (published: L40STC.m)",
    .operands = tfdpa_operands::f16,
    .group = 8,
    .frac_bits = 24,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 L40STC.m (fma=8, neab=1, frmode=rz)"};
/// Ada bf16, FP32 accumulate: as ada-f16 (L40STC.m).
inline constexpr TfdpaModel ada_bf16_unvalidated{
    .name = "ada-bf16-unvalidated",
    .summary = "Ada sm_89 bf16 mma, FP32 accumulate (published: L40STC.m)",
    .operands = tfdpa_operands::bf16,
    .group = 8,
    .frac_bits = 24,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 L40STC.m (fma=8, neab=1, frmode=rz)"};
/// Ada tf32, FP32 accumulate: L40STC.m tf32 fma = 4, F = 24.
inline constexpr TfdpaModel ada_tf32_unvalidated{
    .name = "ada-tf32-unvalidated",
    .summary = "Ada sm_89 tf32 mma, FP32 accumulate (published: L40STC.m)",
    .operands = tfdpa_operands::tf32,
    .group = 4,
    .frac_bits = 24,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 L40STC.m (tf32 fma=4, neab=1, frmode=rz)"};
/// Ada (sm_89, L40S) FP8 mma.sync m16n8k32: the same arithmetic split into two chained groups of
/// 16 (lanes 0–15 with C first, then 16–31), i.e. L = 16. Validated: 5000/5000 on the Ada E4M3
/// vectors with the file's C. zero_exponent −132 as MMA-Sim's Ada e5m2 case.
inline constexpr TfdpaModel ada_fp8{
    .name = "ada-fp8",
    .summary = "Ada sm_89 FP8 mma.sync, FP32 accumulate (validated: Ada-E4M3)",
    .operands = tfdpa_operands::fp8,
    .group = 16,
    .frac_bits = 13,
    .align = AlignRounding::rtz,
    .out = formats::e8m13,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -132,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "Ada-E4M3",
    .source =
        "MMA-Sim arXiv 2511.10909 (is_split_k; MMA_T_FDPA(13, RZ-E8M13, 16, -132)); Khattak & Mikaitis arXiv "
        "2512.07004 L40STC.m (fma=16, neab=-10); training-sim.md §1.3-1.4"};
/// Ada FP8 with an FP16 destination: L = 16, F = 13, the group result rounded RNE to f16 (L40STC.m
/// FP8 frmode 'rne'); C an f16 register. Validated: the Ada-E4M3 d_*_fp16 file 5000/5000 with the
/// file's C rounded RNE to f16 (unrounded C: 127/199).
inline constexpr TfdpaModel ada_fp8_f16{
    .name = "ada-fp8-f16",
    .summary = "Ada sm_89 FP8 mma.sync, FP16 accumulate (validated: Ada-E4M3 d_fp16)",
    .operands = tfdpa_operands::fp8,
    .group = 16,
    .frac_bits = 13,
    .align = AlignRounding::rtz,
    .out = formats::f16,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f16,
    .zero_exponent = -132,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "Ada-E4M3:fp16",
    .source =
        "Khattak & Mikaitis arXiv 2512.07004 L40STC.m (fma=16, neab=-10, FP16 frmode=rne); C rounded to f16 "
        "from the Ada-E4M3 d_fp16 vectors (5000/5000)"};

// ---- Hopper (sm_90, H100/H200) -------------------------------------------------------------------
// wgmma vs mma.sync: no source gives them different arithmetic on Hopper. MMA-Sim models Hopper
// `mma` f16/bf16/tf32 (Ampere's shapes) with F = 25 and one group of k (no split-k, unlike Ampere
// and Ada) exactly as `wgmma`; its Hopper `mma` list has no FP8, and the H100-E4M3 vectors, measured
// with mma.sync.m16n8k32 FP8, match the wgmma FP8 parameters (hopper-fp8). So each preset below
// covers both instructions (a k8 mma.sync chains groups of its own k); device check S5 probes it.
/// Hopper FP8 (e4m3/e5m2) with FP32 accumulate: wgmma k32 / mma.sync m16n8k32.
/// L = 32, F = 13, RZ aligned terms, RZ to e8m13. Validated: 5000/5000 on the H100 E4M3 vectors
/// (with C = +0, see the README of mma-vectors). zero_exponent −126 as MMA-Sim fdpa.py (unprobed).
inline constexpr TfdpaModel hopper_fp8{
    .name = "hopper-fp8",
    .summary = "Hopper sm_90 FP8 wgmma/mma, FP32 accumulate (validated: H100-E4M3, C = +0)",
    .operands = tfdpa_operands::fp8,
    .group = 32,
    .frac_bits = 13,
    .align = AlignRounding::rtz,
    .out = formats::e8m13,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "H100-E4M3",
    .source =
        "MMA-Sim arXiv 2511.10909 (WGMMASim n_accum_fractional_bits=13, f32_e8m13); Khattak & Mikaitis "
        "arXiv 2512.07004 H100TC.m (fma=32, neab=-10); training-sim.md §1.3"};
/// Hopper FP8 with an FP16 destination: as hopper-fp8, output RNE to f16 (MMA-Sim "RNE-FP16",
/// H100TC.m FP8 frmode 'rne'). The H100-E4M3 d_*_fp16 file is NOT matched by it (3113/5000) or by
/// any variant tried (mma-check --all probes L 16/32 × F 10..30 × RZ/RNE × C file/+0: best 3128/5000;
/// lane orders, L 4/8, C rounded to other formats, double rounding via FP32/e8m13: ≤ ~66 %). The mma.sync
/// harness's d_fp16 files follow hopper-fp8-f16-mma-sync (two f16 groups by lane pairs, then + C) instead.
inline constexpr TfdpaModel hopper_fp8_f16_unvalidated{
    .name = "hopper-fp8-f16-unvalidated",
    .summary = "Hopper sm_90 FP8, FP16 accumulate (published; H100 d_fp16 not matched)",
    .operands = tfdpa_operands::fp8,
    .group = 32,
    .frac_bits = 13,
    .align = AlignRounding::rtz,
    .out = formats::f16,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f16,
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 (RNE-FP16); Khattak & Mikaitis arXiv 2512.07004 H100TC.m (fma=32, "
        "neab=-10, frmode=rne); H100-E4M3 d_fp16 vectors not matched"};
/// Hopper f16 wgmma with FP32 accumulate: L = 16, F = 25, RZ to FP32, zero exponent −133.
/// No f16 vectors here (its parameters also reproduce the H100 tf32 set, see hopper-tf32).
inline constexpr TfdpaModel hopper_f16_unvalidated{
    .name = "hopper-f16-unvalidated",
    .summary = "Hopper sm_90 f16 wgmma, FP32 accumulate (published)",
    .operands = tfdpa_operands::f16,
    .group = 16,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 (n_accum_fractional_bits=25; MMA_T_FDPA(25, RZ-FP32, 16, -133)); Khattak & "
        "Mikaitis arXiv 2512.07004 H100TC.m (fma=16, neab=2, min_exp_limit=-133)"};
/// Hopper bf16 wgmma with FP32 accumulate: same parameters as f16.
inline constexpr TfdpaModel hopper_bf16_unvalidated{
    .name = "hopper-bf16-unvalidated",
    .summary = "Hopper sm_90 bf16 wgmma, FP32 accumulate (published)",
    .operands = tfdpa_operands::bf16,
    .group = 16,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source = "as hopper-f16 (MMA-Sim arXiv 2511.10909; Khattak & Mikaitis arXiv 2512.07004 H100TC.m)"};
/// Hopper f16 with an FP16 destination: as hopper-f16, output RNE to f16 (H100TC.m frmode 'rne').
inline constexpr TfdpaModel hopper_f16_f16_unvalidated{
    .name = "hopper-f16-f16-unvalidated",
    .summary = "Hopper sm_90 f16 wgmma, FP16 accumulate (published)",
    .operands = tfdpa_operands::f16,
    .group = 16,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f16,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f16,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source = "Khattak & Mikaitis arXiv 2512.07004 H100TC.m (fma=16, neab=2, FP16 frmode=rne); MMA-Sim RNE-FP16"};
/// Hopper tf32 wgmma k8, FP32 accumulate: L = 8 (H100TC.m tf32 fma = 8; MMA-Sim L = 32 bytes / 4),
/// F = 25, RZ. Validated: H100-tf32 5000/5000 with the file's C (K = 4: fixes F = 25 (F = 24 fails)
/// and RZ; L = 8 from the papers).
inline constexpr TfdpaModel hopper_tf32{
    .name = "hopper-tf32",
    .summary = "Hopper sm_90 tf32 wgmma, FP32 accumulate (validated: H100-tf32)",
    .operands = tfdpa_operands::tf32,
    .group = 8,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "H100-tf32",
    .source =
        "Khattak & Mikaitis arXiv 2512.07004 H100TC.m (tf32 fma=8, neab=2, frmode=rz); MMA-Sim arXiv "
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
    .name = "blackwell-fp8",
    .summary = "Blackwell sm_100 FP8 mma.sync, FP32 accumulate (validated: B200-E4M3)",
    .operands = tfdpa_operands::fp8,
    .group = 32,
    .frac_bits = 30,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "B200-E4M3",
    .source =
        "B200-E4M3 vectors (5000/5000): L=32, RNE and F>=30 each by the rule in core/tfdpa.hpp; Khattak & "
        "Mikaitis arXiv 2512.07004 B200TC.m (fma=32 for FP8, min_exp_limit=-133)"};
/// Blackwell tcgen05 kind::f8f6f4 (FP8) with unit scales, FP32 accumulate: F = 25, L = 32, RZ to FP32
/// (MMA-Sim TCGen05MMASim / MMA_ST_FDPA(25, RZ-FP32, 32, -133)). No tcgen05 vectors here; the
/// B200-E4M3 (mma.sync) set gives it 3207/5000.
inline constexpr TfdpaModel blackwell_tcgen05_fp8_unvalidated{
    .name = "blackwell-tcgen05-fp8-unvalidated",
    .summary = "Blackwell sm_100 tcgen05 f8f6f4 FP8, unit scales (published: MMA-Sim)",
    .operands = tfdpa_operands::fp8,
    .group = 32,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source = "MMA-Sim arXiv 2511.10909 TCGen05MMASim (F=25, RZ-FP32, L=32, -133)"};
/// Blackwell f16, FP32 accumulate: B200TC.m fma = 16, neab = 2 (F = 25), RZ. MATLAB-tensor-core's B200-fp16
/// set (K = 16, fetched: scripts/fetch-mma-vectors) matches it 5000/5000 and fixes F = 25 and L >= 16, not L = 16
/// vs 32 nor the zero exponent; hopper-f16-unvalidated matches it too. Validated on that set (issue 26 item 5:
/// formerly blackwell-f16-unvalidated; docs/tensor-cores.md says what the set cannot tell apart).
inline constexpr TfdpaModel blackwell_f16{
    .name = "blackwell-f16",
    .summary = "Blackwell sm_100 f16, FP32 accumulate (validated: B200-fp16; L, zero exponent not fixed)",
    .operands = tfdpa_operands::f16,
    .group = 16,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "B200-fp16",
    .source =
        "Khattak & Mikaitis arXiv 2512.07004 B200TC.m (fma=16, neab=2, frmode=rz, min_exp_limit=-133); "
        "B200-fp16 vectors 5000/5000 (fix F = 25, L >= 16)"};
/// Blackwell bf16, FP32 accumulate: as blackwell-f16 (B200TC.m). MATLAB-tensor-core's B200-bf16 set matches it
/// 5000/5000 (F = 25 and L >= 16 fixed, as for f16; so does hopper-bf16-unvalidated). Validated on that set
/// (formerly blackwell-bf16-unvalidated).
inline constexpr TfdpaModel blackwell_bf16{
    .name = "blackwell-bf16",
    .summary = "Blackwell sm_100 bf16, FP32 accumulate (validated: B200-bf16; L, zero exponent not fixed)",
    .operands = tfdpa_operands::bf16,
    .group = 16,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "B200-bf16",
    .source =
        "Khattak & Mikaitis arXiv 2512.07004 B200TC.m (fma=16, neab=2, frmode=rz); B200-bf16 vectors 5000/5000 "
        "(fix F = 25, L >= 16)"};
/// Blackwell tf32, FP32 accumulate: L = 8 (B200TC.m tf32 fma = 8), F = 25, RZ. Validated: B200-tf32
/// 5000/5000 with the file's C (K = 4: fixes F = 25 and RZ; L from B200TC.m).
inline constexpr TfdpaModel blackwell_tf32{
    .name = "blackwell-tf32",
    .summary = "Blackwell sm_100 tf32, FP32 accumulate (validated: B200-tf32)",
    .operands = tfdpa_operands::tf32,
    .group = 8,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "B200-tf32",
    .source =
        "Khattak & Mikaitis arXiv 2512.07004 B200TC.m (tf32 fma=8, neab=2, frmode=rz); B200-tf32 vectors "
        "5000/5000"};
/// Blackwell f16 with an FP16 destination (mma.sync / tcgen05 .kind::f16 with a .f16 D): as
/// blackwell-f16, the group result rounded RNE to f16 and a zero term at −15 (B200TC.m for fp16
/// in and out: frmode 'rne', min_exp_limit −15; MMA-Sim output type "f16": RNE). MATLAB-tensor-core's
/// B200-fp16 d_fp16 file matches it 5000/5000 (C rounded to f16): F >= 25, L >= 16; the zero exponent
/// (−15, −126, −133) is not fixed, and hopper-f16-f16-unvalidated matches it too. Validated on that file
/// (formerly blackwell-f16-f16-unvalidated).
inline constexpr TfdpaModel blackwell_f16_f16{
    .name = "blackwell-f16-f16",
    .summary = "Blackwell sm_100 f16, FP16 accumulate (validated: B200-fp16 d_fp16; L, zero exponent not fixed)",
    .operands = tfdpa_operands::f16,
    .group = 16,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f16,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f16,
    .zero_exponent = -15,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "B200-fp16:fp16",
    .source =
        "Khattak & Mikaitis arXiv 2512.07004 B200TC.m (fp16 in/out: fma=16, neab=2, frmode=rne, "
        "min_exp_limit=-15); MMA-Sim arXiv 2511.10909 (F=25, output f16 RNE); B200-fp16 d_fp16 vectors 5000/5000"};
/// Blackwell FP8 mma.sync with an FP16 destination: as blackwell-fp8 (L = 32, F = 30), the group
/// result rounded RNE to f16 (MMA-Sim output type "f16": RNE). B200TC.m has no FP16-destination FP8
/// model (it sets outformat = 'fp32' for FP8), and the B200-E4M3 d_*_fp16 file is NOT matched by
/// this or any probe (mma-check --all), as on H100: so its name says unvalidated. blackwell-fp8-f16-mma-sync
/// (two f16 groups by lane pairs, then + C) matches both B200 d_fp16 files.
inline constexpr TfdpaModel blackwell_fp8_f16_unvalidated{
    .name = "blackwell-fp8-f16-unvalidated",
    .summary = "Blackwell sm_100 FP8 mma.sync, FP16 accumulate (B200 d_fp16 not matched)",
    .operands = tfdpa_operands::fp8,
    .group = 32,
    .frac_bits = 30,
    .align = AlignRounding::rtz,
    .out = formats::f16,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f16,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "blackwell-fp8 (B200-E4M3 vectors) with MMA-Sim arXiv 2511.10909's RNE-FP16 output; B200-E4M3 "
        "d_fp16 vectors not matched"};

// ---- Blackwell block-scaled tcgen05 kinds (sm_100a): no measured vectors exist for any of them ----
/// tcgen05.mma .kind::mxf8f6f4 .block_scale (scale_vec::1X: one UE8M0 scale per 32 K lanes of A's
/// row and of B's column; elements e4m3/e5m2/e2m3/e3m2/e2m1), FP32 accumulate. One group of 32
/// (k = 32), F = 25, RZ to FP32, C in the alignment; the two scale exponents are added to every
/// product's exponent before the max and the alignment (product_exponent). Zero terms (a zero
/// product, C = 0) count −126 (MMA-Sim `extract_significand_exponent`: 0 → −126; MMA-Sim also adds
/// the scale exponents to a zero product's, which changes E only when every other term lies below
/// −126: not pinned). Subnormal fp6/fp4 elements keep their format's emin (as FP8: not probed).
inline constexpr TfdpaModel blackwell_tcgen05_mxf8f6f4_unvalidated{
    .name = "blackwell-tcgen05-mxf8f6f4-unvalidated",
    .summary = "Blackwell sm_100a tcgen05 mxf8f6f4, UE8M0 scale per 32, FP32 accumulate (published: MMA-Sim)",
    .operands = tfdpa_operands::f8f6f4,
    .group = 32,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .scale = {.application = BlockScaleApplication::product_exponent, .format = formats::e8m0fnu, .block = 32},
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 tcgen05mma_block_scale k=32 (nv_fused_dot_add, F=25, RZ-FP32; fused_dot_add "
        "adds esa+esb to each product exponent); PTX ISA 9.7.16.10.7 (scale_vec::1X, UE8M0 per 32)"};
/// tcgen05.mma .kind::mxf4 .block_scale (e2m1 elements, scale_vec::2X: UE8M0 per 32 K lanes), FP32
/// accumulate. One group of 64 (k = 64): each 16 lanes summed exactly, times the scale
/// significands (1 for UE8M0), entering as one term of exponent e(s_a) + e(s_b) (subblock_sum);
/// F = 35 relative to the max such exponent (and C's), RZ to FP32.
inline constexpr TfdpaModel blackwell_tcgen05_mxf4_unvalidated{
    .name = "blackwell-tcgen05-mxf4-unvalidated",
    .summary = "Blackwell sm_100a tcgen05 mxf4 (e2m1), UE8M0 scale per 32, FP32 accumulate (published: MMA-Sim)",
    .operands = tfdpa_operands::fp4,
    .group = 64,
    .frac_bits = 35,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .scale = {.application = BlockScaleApplication::subblock_sum,
              .format = formats::e8m0fnu,
              .block = 32,
              .subblock = 16},
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 tcgen05mma_block_scale k=64 (nv_fused_dot_add_with_block_scale: exact "
        "16-lane sums, F=35, RZ-FP32); PTX ISA 9.7.16.10.7 (.kind::mxf4, scale_vec::2X, UE8M0 per 32)"};
/// tcgen05.mma .kind::mxf4nvf4 .block_scale with UE4M3 scales (NVFP4: e2m1 elements, scale_vec::4X:
/// one UE4M3 scale per 16 K lanes), FP32 accumulate: as mxf4 with 16-lane blocks; the scale
/// significands multiply the exact 16-lane sums, the term's exponent is e(s_a) + e(s_b) (a
/// subnormal UE4M3 scale: emin −6 with its significand < 1; a zero scale makes a zero term).
inline constexpr TfdpaModel blackwell_tcgen05_nvf4_unvalidated{
    .name = "blackwell-tcgen05-nvf4-unvalidated",
    .summary = "Blackwell sm_100a tcgen05 mxf4nvf4 (e2m1), UE4M3 scale per 16, FP32 accumulate (published: MMA-Sim)",
    .operands = tfdpa_operands::fp4,
    .group = 64,
    .frac_bits = 35,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rtz},
    .dest = formats::f32,
    .scale = {.application = BlockScaleApplication::subblock_sum,
              .format = formats::ue4m3,
              .block = 16,
              .subblock = 16},
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 tcgen05mma_block_scale k=64 (nv_fused_dot_add_with_block_scale with ue4m3 "
        "scales: |scale|, exact 16-lane sums, F=35, RZ-FP32); PTX ISA 9.7.16.10.7 (.kind::mxf4nvf4, "
        "scale_vec::4X, UE4M3 per 16)"};
/// tcgen05.mma .kind::f8f6f4 (FP8, unit scales) with an f16 D: one group of 32, F = 25, the group
/// result rounded RNE to f16 (MMA-Sim c785138 mmasim/simulator/nv_ptx.py class tcgen05mma: F = 25,
/// output_type "f16"; arithmetic.py nv_fused_dot_add "f16": RNE to 10 bits); zero terms as
/// blackwell-tcgen05-fp8-unvalidated. Unlike blackwell-fp8-f16-unvalidated (mma.sync, F = 30 from the
/// B200-E4M3 FP32 vectors). No tcgen05 vectors exist.
inline constexpr TfdpaModel blackwell_tcgen05_fp8_f16_unvalidated{
    .name = "blackwell-tcgen05-fp8-f16-unvalidated",
    .summary = "Blackwell sm_100 tcgen05 f8f6f4 FP8, unit scales, FP16 accumulate (published: MMA-Sim)",
    .operands = tfdpa_operands::fp8,
    .group = 32,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f16,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f16,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffu,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source = "MMA-Sim arXiv 2511.10909 nv_ptx.py tcgen05mma (F=25, L=32, output f16: RNE-FP16)"};

// ---- RTX Blackwell (sm_120a) block-scaled mma.sync: no measured vectors ----------------------------
/// `m`'s arithmetic under another instruction's name, summary and source: a preset whose every rule is an
/// existing preset's (one set of parameters, not two copies that can drift apart).
constexpr TfdpaModel same_arithmetic(TfdpaModel m, const char* name, const char* summary, const char* source) {
  m.name = name;
  m.summary = summary;
  m.source = source;
  return m;
}
// MMA-Sim (c785138 mmasim/isa/nv_ptx/nv_mma.py:83-99, rtx_blackwell_mma_block_scale_qualifiers;
// mmasim/simulator/nv_ptx.py class mma_block_scale: F = 35 for k = 64, else 25) models them with the
// arithmetic of the tcgen05 block-scaled kinds above; MATLAB-tensor-core's RTXPRO6000TC.m is B200TC.m
// (unscaled kinds only).
/// RTX Blackwell mma.sync m16n8k32 .kind::mxf8f6f4 .block_scale .scale_vec::1X (UE8M0 per 32), FP32
/// accumulate: as blackwell-tcgen05-mxf8f6f4-unvalidated (L = 32, F = 25, scale exponents added to
/// every product's, RZ to FP32).
inline constexpr TfdpaModel rtx_blackwell_mxf8f6f4_unvalidated =
    same_arithmetic(blackwell_tcgen05_mxf8f6f4_unvalidated, "rtx-blackwell-mxf8f6f4-unvalidated",
                    "RTX Blackwell sm_120a mma mxf8f6f4, UE8M0 scale per 32, FP32 accumulate (published: MMA-Sim)",
                    "MMA-Sim arXiv 2511.10909 nv_ptx.py mma_block_scale k=32 (nv_fused_dot_add, F=25, RZ-FP32); "
                    "nv_mma.py m16n8k32.block32 ue8m0");
/// RTX Blackwell mma.sync m16n8k64 .kind::mxf4 .block_scale .scale_vec::2X (e2m1, UE8M0 per 32), FP32
/// accumulate: as blackwell-tcgen05-mxf4-unvalidated (L = 64, exact 16-lane sums, F = 35, RZ to FP32).
inline constexpr TfdpaModel rtx_blackwell_mxf4_unvalidated =
    same_arithmetic(blackwell_tcgen05_mxf4_unvalidated, "rtx-blackwell-mxf4-unvalidated",
                    "RTX Blackwell sm_120a mma mxf4 (e2m1), UE8M0 scale per 32, FP32 accumulate (published: MMA-Sim)",
                    "MMA-Sim arXiv 2511.10909 nv_ptx.py mma_block_scale k=64 (nv_fused_dot_add_with_block_scale, "
                    "F=35, RZ-FP32); nv_mma.py m16n8k64.block32 ue8m0");
/// RTX Blackwell mma.sync m16n8k64 .kind::mxf4nvf4 .block_scale .scale_vec::4X (NVFP4: e2m1, UE4M3
/// per 16), FP32 accumulate: as blackwell-tcgen05-nvf4-unvalidated.
inline constexpr TfdpaModel rtx_blackwell_nvf4_unvalidated = same_arithmetic(
    blackwell_tcgen05_nvf4_unvalidated, "rtx-blackwell-nvf4-unvalidated",
    "RTX Blackwell sm_120a mma mxf4nvf4 (e2m1), UE4M3 scale per 16, FP32 accumulate (published: MMA-Sim)",
    "MMA-Sim arXiv 2511.10909 nv_ptx.py mma_block_scale k=64 (nv_fused_dot_add_with_block_scale with "
    "ue4m3 scales, F=35, RZ-FP32); nv_mma.py m16n8k64.block16 ue4m3");
// ---- AMD CDNA1-3 matrix cores (MFMA, FP32 accumulate): no measured vectors here -------------------
// MMA-Sim c785138 mmasim/simulator/amd.py:30-51 (per architecture and type: the structure and L),
// :69-98 (the chain over K), arithmetic.py:98-112 (pairwise_dot), :227-285 (amd_fused_dot_rd_add);
// MATLAB-tensor-core b12b5a7 models/MI100MC.m, MI210MC.m (MI250MC.m:4 calls it). MI300XMC.m:4 calls an
// MI300MC.m that the repository does not hold, so CDNA3 comes from MMA-Sim alone. Where the two disagree
// (CDNA1 f16: MI100MC.m:75 sums a group of 4 exactly and rounds once, MMA-Sim rounds the pairwise tree)
// the presets follow MMA-Sim, the source with code for every instruction. CDNA4's scaled MFMA
// (v_mfma_scale_f32_*_f8f6f4) is in neither source: no preset.
/// CDNA1 (MI100) v_mfma_f32_*f16: groups of 4 products, each fmaf(a, b, +0) in f32, summed pairwise in f32
/// RNE ((p0 + p1) + (p2 + p3)), then C + that sum RNE to f32; subnormals kept.
inline constexpr TfdpaModel cdna1_f16_unvalidated{
    .name = "cdna1-f16-unvalidated",
    .summary = "AMD CDNA1 (MI100) f16 MFMA, FP32 accumulate: pairwise f32 sums of 4 (published: MMA-Sim)",
    .operands = tfdpa_operands::f16,
    .group = 4,
    .frac_bits = 23,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f32,
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fc00000u,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 amd.py:35-38 (CDNA1 f16: pairwise, L=4) and arithmetic.py:98-112 (fmaf products, "
        "f32 RNE pairwise adds), then C + group RNE-FP32; MATLAB MI100MC.m:47 fma=4, :51 frmode=rne",
    .structure = TfdpaStructure::pairwise_f32,
};
/// CDNA1 (MI100) v_mfma_f32_*bf16: as cdna1-f16 with groups of 2 (fmaf(a0, b0, +0) + fmaf(a1, b1, +0)).
inline constexpr TfdpaModel cdna1_bf16_unvalidated{
    .name = "cdna1-bf16-unvalidated",
    .summary = "AMD CDNA1 (MI100) bf16 MFMA, FP32 accumulate: pairwise f32 sums of 2 (published: MMA-Sim)",
    .operands = tfdpa_operands::bf16,
    .group = 2,
    .frac_bits = 23,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f32,
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fc00000u,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 amd.py:39-47 (CDNA1 bf16: pairwise, L=2) and arithmetic.py:98-112; MATLAB "
        "MI100MC.m:96-97 (bf16 fma=2)",
    .structure = TfdpaStructure::pairwise_f32,
};
/// CDNA2 (MI210/MI250X) v_mfma_f32_*f16: as cdna1-f16, but subnormal A, B and C are +0 and every partial
/// sum or result below 2^-126 is a zero of its sign.
inline constexpr TfdpaModel cdna2_f16_unvalidated{
    .name = "cdna2-f16-unvalidated",
    .summary =
        "AMD CDNA2 (MI250X) f16 MFMA, FP32 accumulate: pairwise sums of 4, subnormals flushed (published: MMA-Sim)",
    .operands = tfdpa_operands::f16,
    .group = 4,
    .frac_bits = 23,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f32,
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fc00000u,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 amd.py:35-38 (CDNA2 f16: pairwise, L=4, flush_denormal), :62-65, :84-85, "
        "arithmetic.py:67-73, :98-112; MATLAB MI210MC.m:47 fma=4, :80 in_subnormals=0, :83 out_subnormals=0",
    .structure = TfdpaStructure::pairwise_f32,
    .subnormals = TfdpaSubnormals::flush,
};
/// CDNA2 (MI210/MI250X) v_mfma_f32_*bf16_1k: as cdna2-f16 (groups of 4). The older CDNA1 bf16 encodings on
/// CDNA2 (groups of 2, flushed) have no preset.
inline constexpr TfdpaModel cdna2_bf16_unvalidated{
    .name = "cdna2-bf16-unvalidated",
    .summary =
        "AMD CDNA2 (MI250X) bf16_1k MFMA, FP32 accumulate: pairwise sums of 4, subnormals flushed (published: MMA-Sim)",
    .operands = tfdpa_operands::bf16,
    .group = 4,
    .frac_bits = 23,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f32,
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fc00000u,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 amd.py:39-47 (CDNA2 bf16_1k: pairwise, L=4, flush_denormal), arithmetic.py:67-73, "
        "98-112; MATLAB MI210MC.m:47-48 (fma=4; 2 without _1k)",
    .structure = TfdpaStructure::pairwise_f32,
    .subnormals = TfdpaSubnormals::flush,
};
/// CDNA3 (MI300X) v_mfma_f32_*_f16: groups of 8 (k = 4 forms: 4); two_stage with F = 24, RNE to f32;
/// MMA-Sim's zero rules (a zero factor at 2^-126, a zero C at 2^-126, a zero result +0).
inline constexpr TfdpaModel cdna3_f16_unvalidated{
    .name = "cdna3-f16-unvalidated",
    .summary = "AMD CDNA3 (MI300X) f16 MFMA, FP32 accumulate: two-stage sum of 8 (published: MMA-Sim)",
    .operands = tfdpa_operands::f16,
    .group = 8,
    .frac_bits = 24,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f32,
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fc00000u,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 amd.py:30-34 (CDNA3 f16: fused_dot_rd_add, L=min(8,k)), :90-97 (F=24, RNE-FP32), "
        "arithmetic.py:280-285 (products RZ to F=24 of their max, then RD to 31 bits, C RD to 24 bits)",
    .zero = mma_sim_zero_rules,
    .structure = TfdpaStructure::two_stage,
};
/// CDNA3 (MI300X) v_mfma_f32_*_bf16: as cdna3-f16; a product of 2^128 or more is ±Inf.
inline constexpr TfdpaModel cdna3_bf16_unvalidated{
    .name = "cdna3-bf16-unvalidated",
    .summary = "AMD CDNA3 (MI300X) bf16 MFMA, FP32 accumulate: two-stage sum of 8 (published: MMA-Sim)",
    .operands = tfdpa_operands::bf16,
    .group = 8,
    .frac_bits = 24,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f32,
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fc00000u,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 amd.py:39-43 (CDNA3 bf16: fused_dot_rd_add, L=min(8,k)), :90-97, "
        "arithmetic.py:243-259 (a product >= 2^128 is Inf), :280-285",
    .zero = mma_sim_zero_rules,
    .structure = TfdpaStructure::two_stage,
};
/// CDNA3 (MI300X) v_mfma_f32_*_{fp8,bf8}_{fp8,bf8} (e4m3fnuz, e5m2fnuz; isa/common.py:154-155): groups of
/// 16, two_stage_odd_even with F = 24, RNE to f32, MMA-Sim's zero rules.
inline constexpr TfdpaModel cdna3_fp8_unvalidated{
    .name = "cdna3-fp8-unvalidated",
    .summary =
        "AMD CDNA3 (MI300X) fp8/bf8 (FNUZ) MFMA, FP32 accumulate: odd/even two-stage sum of 16 (published: MMA-Sim)",
    .operands = tfdpa_operands::fp8_fnuz,
    .group = 16,
    .frac_bits = 24,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f32,
    .zero_exponent = -126,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fc00000u,
    .validation = TfdpaValidation::published,
    .validated_on = "",
    .source =
        "MMA-Sim arXiv 2511.10909 amd.py:48-51 (fp8: fused_dot_rd_add, L=16), :95 (is_fp8), arithmetic.py:261-279 "
        "(even/odd RZ sums, RD to F=24 of their max, RD to 31 bits, C RD to 24 bits or dropped below 2^(M-25))",
    .zero = mma_sim_zero_rules,
    .structure = TfdpaStructure::two_stage_odd_even,
};
// ---- Blackwell FP8 from both B200 FP8 sets (issue 26 item 5) ------------------------------------------
/// Blackwell FP8 mma.sync m16n8k32 (the source harness `mma_fp8_output_fp32.cu`), FP32 accumulate, C added
/// after the products (TfdpaStructure::late_c): the 32 products form one fused group (L = 32, F = 25, RZ
/// aligned terms, E their max exponent), that sum is rounded RZ to FP32, then C + it is rounded RNE to FP32
/// (an FP32 add). Validated: B200-E4M3 and B200-E5M2 5000/5000 with the file's C; blackwell-fp8 (C inside
/// the alignment, F = 30, RNE) misses two B200-E5M2 lines, and this rule is what they need:
///   - line 3936: the products sum exactly (F = 25 keeps them) to P = −9827841.75·2^−20; RZ to FP32 drops
///     the .75: −9827841·2^−20 (0xc115f601); C = 0x3f01684f = 530052.9375·2^−20; C + P = −9297788.0625·2^−20,
///     RNE → 0xc10ddf7c as measured. blackwell-fp8 rounds the exact −9297788.8125·2^−20 → 0xc10ddf7d.
///   - line 4631: P = −16687104·2^−25 (0xbefea000, exact); C = 0x3ba4e2a3 = 168842.546875·2^−25, its bits
///     down to 2^−31; C + P = −16518261.453125·2^−25, RNE → 0xbefc0c75 as measured. blackwell-fp8 aligns C
///     to 2^(1−30), drops 3·2^−31 and meets the tie −16518261.5·2^−25 → even 0xbefc0c76.
/// What the sets fix (an exact-rational model outside the repository, each variant over both sets): the sum
/// rounded RZ (RNE: line 3936 of E5M2 fails), the final RNE (RZ: 1849 E4M3 lines fail), F ≥ 23 (F = 22:
/// E5M2 lines 1702 and 4612); not L (two chained groups of 16 also match) nor zero_exponent, so F = 25 and
/// L = 32 are B200TC.m's (fma = 32 for FP8, neab = 2) and MMA-Sim's Blackwell F = 25.
inline constexpr TfdpaModel blackwell_fp8_late_c{
    .name = "blackwell-fp8-late-c",
    .summary = "Blackwell sm_100 FP8 mma.sync, FP32 accumulate, C added after the products (validated: B200 FP8)",
    .operands = tfdpa_operands::fp8,
    .group = 32,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f32,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f32,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffffffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "B200-E4M3 B200-E5M2",
    .source =
        "B200-E4M3 and B200-E5M2 vectors (5000/5000 each): products RZ to FP32, then + C RNE, F>=23, by the rule in "
        "core/tfdpa.hpp; Khattak & Mikaitis arXiv 2512.07004 B200TC.m (fma=32 for FP8, neab=2, min_exp_limit=-133)",
    .structure = TfdpaStructure::late_c,
};
// ---- FP8 mma.sync with an f16 D on Hopper and Blackwell, from the six FP16-destination FP8 sets -------------
/// Hopper FP8 mma.sync m16n8k32 with an FP16 destination (the source harness `mma_fp8_output_fp16.cu`; C an
/// f16 register, the file's FP32 C rounded RNE): TfdpaStructure::late_c_pairs. The products of lanes i with
/// i mod 4 in {0, 1} (16 lanes) form a fused group from C = +0 (F = 25, RZ terms) rounded RNE to f16; the other
/// 16 lanes plus that result form a second group, rounded RNE to f16; then C + it, RNE to f16 (an f16 add).
/// Validated: MATLAB-tensor-core's H100-E4M3, H100-E5M2, H200-E4M3 and H200-E5M2 d_fp16 files 5000/5000 each
/// (the FP32-destination preset hopper-fp8 gives 3113-3400). What the sets fix (an exact-rational model outside
/// the repository): the lane split (consecutive halves 0-15/16-31: 466/600 B200-E5M2 rows, even/odd lanes 459,
/// the halves in the other order 460), C added last (C in the first group: below 435/600), F >= 20 (F = 16:
/// 4 rows, F = 13 as FP8 wgmma: 243 H100-E4M3 rows); not F above 20 nor the zero exponent, so F = 25 is the
/// f16 mma's (hopper-f16-unvalidated, H100TC.m neab = 2). The split is an f16 mma's k-pair layout: what a
/// kernel that converts each FP8 register into two f16 pairs and runs two k16 f16 mma would compute.
inline constexpr TfdpaModel hopper_fp8_f16_mma_sync{
    .name = "hopper-fp8-f16-mma-sync",
    .summary = "Hopper sm_90 FP8 mma.sync, FP16 accumulate: two f16 groups by lane pairs, then + C (validated)",
    .operands = tfdpa_operands::fp8,
    .group = 32,
    .frac_bits = 25,
    .align = AlignRounding::rtz,
    .out = formats::f16,
    .out_rounding = RoundingSpec{Rounding::rne},
    .dest = formats::f16,
    .zero_exponent = -133,
    .overflow = TfdpaOverflow::inf,
    .nan_code = 0x7fffu,
    .validation = TfdpaValidation::hardware_vectors,
    .validated_on = "H100-E4M3:fp16 H100-E5M2:fp16 H200-E4M3:fp16 H200-E5M2:fp16",
    .source =
        "MATLAB-tensor-core b12b5a7 H100/H200 E4M3/E5M2 d_fp16 vectors (5000/5000 each): lane-pair split, f16 "
        "groups RNE, C added last, F>=20, by the rule in core/tfdpa.hpp; F=25 as hopper-f16 (H100TC.m neab=2)",
    .structure = TfdpaStructure::late_c_pairs,
    .sum_rounding = Rounding::rne,
};
/// Blackwell FP8 mma.sync m16n8k32 with an FP16 destination: as hopper-fp8-f16-mma-sync (the same rule fits
/// both B200 d_fp16 files). Validated: MATLAB-tensor-core's B200-E4M3 and B200-E5M2 d_fp16 files 5000/5000
/// (blackwell-fp8-f16-unvalidated gives them 3108 and 3403).
inline constexpr TfdpaModel blackwell_fp8_f16_mma_sync = [] {
  TfdpaModel m = hopper_fp8_f16_mma_sync;
  m.name = "blackwell-fp8-f16-mma-sync";
  m.summary = "Blackwell sm_100 FP8 mma.sync, FP16 accumulate: two f16 groups by lane pairs, then + C (validated)";
  m.validated_on = "B200-E4M3:fp16 B200-E5M2:fp16";
  m.source =
      "MATLAB-tensor-core b12b5a7 B200 E4M3/E5M2 d_fp16 vectors (5000/5000 each): the rule of hopper-fp8-f16-mma-sync; "
      "F=25 as blackwell-f16 (B200TC.m neab=2)";
  return m;
}();
/// Every preset, in the order the registry lists them ("tensor-core" and "accumulation" tables,
/// accumulate.hpp): the one list of presets. Host only (its elements are host variables).
inline constexpr const TfdpaModel* all[] = {
    &volta_f16_unvalidated,
    &volta_f16_f16_unvalidated,
    &ampere_f16,
    &ampere_f16_f16,
    &ampere_bf16,
    &ampere_tf32,
    &ada_f16_unvalidated,
    &ada_bf16_unvalidated,
    &ada_tf32_unvalidated,
    &ada_fp8,
    &ada_fp8_f16,
    &hopper_fp8,
    &hopper_fp8_f16_unvalidated,
    &hopper_f16_unvalidated,
    &hopper_f16_f16_unvalidated,
    &hopper_bf16_unvalidated,
    &hopper_tf32,
    &blackwell_fp8,
    &blackwell_tcgen05_fp8_unvalidated,
    &blackwell_f16,
    &blackwell_bf16,
    &blackwell_tf32,
    &blackwell_f16_f16,
    &blackwell_fp8_f16_unvalidated,
    &blackwell_tcgen05_mxf8f6f4_unvalidated,
    &blackwell_tcgen05_mxf4_unvalidated,
    &blackwell_tcgen05_nvf4_unvalidated,
    &blackwell_tcgen05_fp8_f16_unvalidated,
    &rtx_blackwell_mxf8f6f4_unvalidated,
    &rtx_blackwell_mxf4_unvalidated,
    &rtx_blackwell_nvf4_unvalidated,
    &cdna1_f16_unvalidated,
    &cdna1_bf16_unvalidated,
    &cdna2_f16_unvalidated,
    &cdna2_bf16_unvalidated,
    &cdna3_f16_unvalidated,
    &cdna3_bf16_unvalidated,
    &cdna3_fp8_unvalidated,
    &blackwell_fp8_late_c,
    &hopper_fp8_f16_mma_sync,
    &blackwell_fp8_f16_mma_sync,
};
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

/// One decoded block scale: its value sig·2^exp and its nominal exponent for the max E.
struct TfdpaScale {
  bool nan = false, zero = false;
  std::uint64_t sig = 1;
  int exp = 0;
  int nominal = 0;
};

namespace detail {
/// Scale `k` of a group (nullptr: unit scale 1 = 2^0).
MINIFLOAT_HOST_DEVICE constexpr TfdpaScale tfdpa_scale(const TfdpaModel& m, const std::uint64_t* s,
                                                       std::size_t k) noexcept {
  TfdpaScale r;
  if (s == nullptr) return r;
  const Unpacked u = unpack(m.scale.format, s[k]);  // bits above the format (a sign bit) are ignored
  if (u.cls == Class::nan) {
    r.nan = true;
  } else if (is_zero(u)) {
    r.zero = true;
  } else {
    r.sig = u.sig;
    r.exp = u.exp;
    r.nominal = nominal_exponent(m.scale.format, u);
  }
  return r;
}

/// The lanes of one T-FDPA group as tfdpa_group takes them (its arguments, for its steps below).
struct TfdpaLanes {
  Format fa;
  const std::uint64_t* a;
  Format fb;
  const std::uint64_t* b;
  std::size_t n;
  const std::uint64_t* sa;
  const std::uint64_t* sb;
};

/// tfdpa_group step 1, the specials: true, with `r` set, when the result is the canonical NaN (a NaN
/// input, scale or c; 0·Inf; Inf of both signs among the products and c) or ±Inf (any other Inf).
MINIFLOAT_HOST_DEVICE constexpr bool tfdpa_special(const TfdpaModel& m, const TfdpaLanes& g, const Unpacked& uc,
                                                   RoundResult& r) noexcept {
  const bool scaled = m.scale.application != BlockScaleApplication::none;
  const std::size_t sblock = scaled ? static_cast<std::size_t>(m.scale.block) : 1;
  bool any_nan = false, pos_inf = false, neg_inf = false, invalid = false;
  for (std::size_t i = 0; i < g.n; ++i) {
    const Unpacked ua = unpack(g.fa, g.a[i]), ub = unpack(g.fb, g.b[i]);
    if (ua.cls == Class::nan || ub.cls == Class::nan) {
      any_nan = true;
    } else if (ua.cls == Class::inf || ub.cls == Class::inf) {
      if (is_zero(ua) || is_zero(ub)) {
        invalid = true;
      } else if (ua.negative != ub.negative) {
        neg_inf = true;
      } else {
        pos_inf = true;
      }
    }
  }
  if (scaled)
    for (std::size_t k = 0; k * sblock < g.n; ++k)
      if (tfdpa_scale(m, g.sa, k).nan || tfdpa_scale(m, g.sb, k).nan) any_nan = true;
  if (uc.cls == Class::nan) any_nan = true;
  if (uc.cls == Class::inf) (uc.negative ? neg_inf : pos_inf) = true;
  if (pos_inf && neg_inf) invalid = true;
  if (any_nan || invalid) {
    r = {m.nan_code, invalid && !any_nan ? flag_invalid : flag_none};
    return true;
  }
  if (pos_inf || neg_inf) {
    r = {inf_code(m.dest, sign_of(neg_inf)), flag_none};
    return true;
  }
  return false;
}

/// tfdpa_group step 2 without c: the max nominal exponent E over the lane terms (zero terms: m.zero, by default
/// zero_exponent): the L lane products (their scale exponents added under product_exponent), or under
/// subblock_sum one term per subblock with exponent e(s_a) + e(s_b).
MINIFLOAT_HOST_DEVICE constexpr int tfdpa_products_max_exponent(const TfdpaModel& m, const TfdpaLanes& g) noexcept {
  const BlockScaleApplication app = m.scale.application;
  const bool scaled = app != BlockScaleApplication::none;
  const std::size_t sblock = scaled ? static_cast<std::size_t>(m.scale.block) : 1;
  int E = m.zero_exponent;
  bool have = false;
  auto consider = [&](int e) {
    if (!have || e > E) E = e;
    have = true;
  };
  // ZeroProductExponent::relative: a zero factor or scale counts as zf; an empty lane is 0·0 with unit scales
  const bool relative = m.zero.product == ZeroProductExponent::relative;
  const int zf = m.zero.factor_exponent;
  const auto scale_e = [&](const TfdpaScale& s) { return s.zero ? zf : s.nominal; };
  if (g.n < static_cast<std::size_t>(m.group))
    consider(!relative ? m.zero_exponent : app == BlockScaleApplication::subblock_sum ? 0 : 2 * zf);
  if (app == BlockScaleApplication::subblock_sum) {
    const auto sub = static_cast<std::size_t>(m.scale.subblock);
    for (std::size_t j = 0; j * sub < g.n; ++j) {
      const TfdpaScale s0 = tfdpa_scale(m, g.sa, j * sub / sblock), s1 = tfdpa_scale(m, g.sb, j * sub / sblock);
      if (relative) consider(scale_e(s0) + scale_e(s1));
      else consider(s0.zero || s1.zero ? m.zero_exponent : s0.nominal + s1.nominal);
    }
  } else {
    for (std::size_t i = 0; i < g.n; ++i) {
      const Unpacked ua = unpack(g.fa, g.a[i]), ub = unpack(g.fb, g.b[i]);
      if (relative && (is_zero(ua) || is_zero(ub))) {
        int e = (is_zero(ua) ? zf : nominal_exponent(g.fa, ua)) + (is_zero(ub) ? zf : nominal_exponent(g.fb, ub));
        if (scaled) e += scale_e(tfdpa_scale(m, g.sa, i / sblock)) + scale_e(tfdpa_scale(m, g.sb, i / sblock));
        consider(e);
      } else if (is_zero(ua) || is_zero(ub)) {
        consider(m.zero_exponent);
      } else {
        int e = nominal_exponent(g.fa, ua) + nominal_exponent(g.fb, ub);
        if (scaled) e += tfdpa_scale(m, g.sa, i / sblock).nominal + tfdpa_scale(m, g.sb, i / sblock).nominal;
        consider(e);
      }
    }
  }
  return E;
}
/// tfdpa_group step 2 with c: the max of tfdpa_products_max_exponent and c's nominal exponent (a zero c:
/// m.zero.c's rule).
MINIFLOAT_HOST_DEVICE constexpr int tfdpa_max_exponent(const TfdpaModel& m, const TfdpaLanes& g,
                                                       const Unpacked& uc) noexcept {
  const int E = tfdpa_products_max_exponent(m, g);
  const int zero_c = m.zero.c == ZeroCExponent::own ? m.zero.c_exponent : m.zero_exponent;
  const int ec = is_zero(uc) ? zero_c : nominal_exponent(m.dest, uc);
  return ec > E ? ec : E;
}

/// tfdpa_group step 3's exact sum: every term aligned to the quantum 2^q (q = E − F) by `align`, summed.
struct TfdpaSum {
  int q;
  AlignRounding align;
  std::int64_t S = 0;
  bool all_negative_zero = false;  ///< every term so far is a negative zero (starts true for a full group)
  bool exact = true;               ///< every term so far equals its aligned value
  MINIFLOAT_HOST_DEVICE constexpr void add(bool neg, const Wide& sig, int exp) noexcept {
    const std::int64_t t = align_term(neg, sig, exp, q, align);
    // exactness: does t·Q equal the term?
    if (!wide_is_zero(sig)) {
      const int shift = exp - q;
      if (shift < 0) {
        bool lost = false;
        (void)wide_shr(sig, -shift, lost);
        if (lost) exact = false;
      }
    }
    if (t != 0 || !neg) all_negative_zero = false;
    S += t;
  }
};

/// tfdpa_group step 3 under subblock_sum: one term per subblock, its exact sum Σ a_i·b_i times both scale
/// significands. False when a subblock breaks the precondition (its products span more than 2^58).
MINIFLOAT_HOST_DEVICE constexpr bool tfdpa_add_subblocks(const TfdpaModel& m, const TfdpaLanes& g,
                                                         TfdpaSum& acc) noexcept {
  const auto sblock = static_cast<std::size_t>(m.scale.block);
  const auto sub = static_cast<std::size_t>(m.scale.subblock);
  for (std::size_t j = 0; j * sub < g.n; ++j) {
    const std::size_t lo = j * sub, hi = lo + sub < g.n ? lo + sub : g.n;
    // the exact subblock sum Σ a_i·b_i as an integer times 2^emin_p (emin_p: the least product exponent)
    int emin_p = 0, emax_p = 0;
    bool any = false, all_neg_zero_sub = hi - lo == sub;
    for (std::size_t i = lo; i < hi; ++i) {
      const Unpacked ua = unpack(g.fa, g.a[i]), ub = unpack(g.fb, g.b[i]);
      if (is_zero(ua) || is_zero(ub)) {
        if (ua.negative == ub.negative) all_neg_zero_sub = false;
        continue;
      }
      all_neg_zero_sub = false;
      const int e = ua.exp + ub.exp, top = e + bit_width(ua.sig * ub.sig);
      if (!any || e < emin_p) emin_p = e;
      if (!any || top > emax_p) emax_p = top;
      any = true;
    }
    if (any && emax_p - emin_p > 58) return false;  // precondition (documented)
    std::int64_t sum = 0;
    for (std::size_t i = lo; i < hi && any; ++i) {
      const Unpacked ua = unpack(g.fa, g.a[i]), ub = unpack(g.fb, g.b[i]);
      if (is_zero(ua) || is_zero(ub)) continue;
      const auto p = static_cast<std::int64_t>(ua.sig * ub.sig) << (ua.exp + ub.exp - emin_p);
      sum += ua.negative != ub.negative ? -p : p;
    }
    const TfdpaScale s0 = tfdpa_scale(m, g.sa, lo / sblock), s1 = tfdpa_scale(m, g.sb, lo / sblock);
    if (sum == 0 || s0.zero || s1.zero) {
      acc.add(all_neg_zero_sub && sum == 0, Wide{}, 0);
      continue;
    }
    const std::uint64_t mag = static_cast<std::uint64_t>(sum < 0 ? -sum : sum);
    acc.add(sum < 0, mul64(mag, s0.sig * s1.sig), emin_p + s0.exp + s1.exp);
  }
  return true;
}

/// tfdpa_group step 3 otherwise: one term per lane product (product_exponent: plus the scales' exponents).
MINIFLOAT_HOST_DEVICE constexpr void tfdpa_add_products(const TfdpaModel& m, const TfdpaLanes& g,
                                                        TfdpaSum& acc) noexcept {
  const bool scaled = m.scale.application != BlockScaleApplication::none;
  const std::size_t sblock = scaled ? static_cast<std::size_t>(m.scale.block) : 1;
  for (std::size_t i = 0; i < g.n; ++i) {
    const Unpacked ua = unpack(g.fa, g.a[i]), ub = unpack(g.fb, g.b[i]);
    const bool neg = ua.negative != ub.negative;
    if (is_zero(ua) || is_zero(ub)) {
      acc.add(neg, Wide{}, 0);
      continue;
    }
    // product_exponent: only the scales' exponents apply (power-of-two scales)
    const int se = scaled ? tfdpa_scale(m, g.sa, i / sblock).nominal + tfdpa_scale(m, g.sb, i / sblock).nominal : 0;
    acc.add(neg, mul64(ua.sig, ub.sig), ua.exp + ub.exp + se);
  }
}

/// The exact value of an aligned sum: S·2^q, or a zero that is −0 when every term was a negative zero.
MINIFLOAT_HOST_DEVICE constexpr Unpacked tfdpa_sum_value(const TfdpaSum& acc) noexcept {
  Unpacked sum;
  if (acc.S == 0) {
    sum.cls = Class::zero;
    sum.negative = acc.all_negative_zero;
  } else {
    sum.cls = Class::normal;
    sum.negative = acc.S < 0;
    sum.sig = acc.S < 0 ? static_cast<std::uint64_t>(-acc.S) : static_cast<std::uint64_t>(acc.S);
    sum.exp = acc.q;
  }
  return sum;
}

/// tfdpa_group step 4: normalise the sum and round it into `out`, then widen into `dest`.
MINIFLOAT_HOST_DEVICE constexpr RoundResult tfdpa_round(const TfdpaModel& m, const TfdpaSum& acc) noexcept {
  const Unpacked sum = tfdpa_sum_value(acc);
  RoundResult r = round_pack(m.out, sum, m.out_rounding);
  if ((r.flags & flag_overflow) != 0 && m.overflow == TfdpaOverflow::inf)
    return {inf_code(m.dest, sign_of(sum.negative)), r.flags};
  RoundResult d = round_pack(m.dest, unpack(m.out, r.code));  // exact: out embeds in dest
  if (m.zero.sign == ZeroResultSign::positive && (d.code & magnitude_mask(m.dest)) == 0) d.code = 0;
  d.flags = r.flags;
  if (!acc.exact) d.flags |= flag_inexact;
  return d;
}

// ---- AMD CDNA matrix cores (TfdpaStructure pairwise_f32, two_stage, two_stage_odd_even) ---------------

/// A code of format f with a subnormal value replaced by a zero: +0 (keep_sign false, MMA-Sim
/// arithmetic.py:72) or a zero of its sign (arithmetic.py:70). Other codes unchanged.
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t amd_flush(Format f, std::uint64_t x, bool keep_sign) noexcept {
  const Class k = classify(f, x);
  if (k != Class::subnormal && !(k == Class::zero && !keep_sign)) return x;
  return keep_sign ? (x & sign_mask(f)) : 0;
}

/// pairwise_f32: lanes [lo, lo + n) of the group as MMA-Sim's pairwise_dot (arithmetic.py:98-112): one
/// lane fmaf(a, b, +0), else the f32 RNE sum of the halves [lo, lo + n/2) and the rest; lanes ≥ g.n are +0.
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t amd_pairwise(const TfdpaModel& m, const TfdpaLanes& g, std::size_t lo,
                                                           std::size_t n) noexcept {
  const bool flush = m.subnormals == TfdpaSubnormals::flush;
  std::uint64_t s = 0;
  if (n == 1) {
    if (lo < g.n) {
      const std::uint64_t a = flush ? amd_flush(g.fa, g.a[lo], false) : g.a[lo];
      const std::uint64_t b = flush ? amd_flush(g.fb, g.b[lo], false) : g.b[lo];
      s = minifloat::fma(g.fa, a, g.fb, b, formats::f32, 0, formats::f32).code;
    }
  } else {
    const std::size_t h = n / 2;
    s = minifloat::add(formats::f32, amd_pairwise(m, g, lo, h), formats::f32, amd_pairwise(m, g, lo + h, n - h),
                       formats::f32)
            .code;
  }
  return flush ? amd_flush(formats::f32, s, true) : s;
}

/// pairwise_f32 group: C + pairwise(L products), RNE to f32 (amd.py:75-86). dest must be f32.
MINIFLOAT_HOST_DEVICE constexpr RoundResult amd_pairwise_group(const TfdpaModel& m, const TfdpaLanes& g,
                                                               std::uint64_t c) noexcept {
  const bool flush = m.subnormals == TfdpaSubnormals::flush;
  if (flush && classify(formats::f32, c) == Class::subnormal) c = 0;  // flush_denormal(C): +0 (amd.py:65)
  const std::uint64_t p = amd_pairwise(m, g, 0, static_cast<std::size_t>(m.group));
  RoundResult r = minifloat::add(formats::f32, c, formats::f32, p, formats::f32);
  if (flush) r.code = amd_flush(formats::f32, r.code, true);
  if (classify(formats::f32, r.code) == Class::nan) r.code = m.nan_code;
  return r;
}

/// The nominal exponent of a factor for the two-stage sums: a zero has the zero rules' factor exponent
/// under ZeroProductExponent::relative (MMA-Sim arithmetic.py:93-94: −126), else the product is a zero term.
MINIFLOAT_HOST_DEVICE constexpr int amd_factor_exponent(const TfdpaModel& m, Format f, const Unpacked& u) noexcept {
  return is_zero(u) ? m.zero.factor_exponent : nominal_exponent(f, u);
}

/// two_stage: the RZ sum of the products of lanes lo, lo + step, … (< L) at quantum 2^(e − F), e their max
/// exponent (MMA-Sim fused_sum, arithmetic.py:115-129); `e` is set. Lanes ≥ g.n are 0·0.
MINIFLOAT_HOST_DEVICE constexpr std::int64_t amd_product_sum(const TfdpaModel& m, const TfdpaLanes& g, std::size_t lo,
                                                             std::size_t step, int& e, bool& exact) noexcept {
  const bool relative = m.zero.product == ZeroProductExponent::relative;
  bool have = false;
  for (std::size_t i = lo; i < static_cast<std::size_t>(m.group); i += step) {
    int ei = relative ? 2 * m.zero.factor_exponent : m.zero_exponent;
    if (i < g.n) {
      const Unpacked ua = unpack(g.fa, g.a[i]), ub = unpack(g.fb, g.b[i]);
      if (relative || !(is_zero(ua) || is_zero(ub)))
        ei = amd_factor_exponent(m, g.fa, ua) + amd_factor_exponent(m, g.fb, ub);
    }
    if (!have || ei > e) e = ei;
    have = true;
  }
  TfdpaSum acc{e - m.frac_bits, AlignRounding::rtz};
  for (std::size_t i = lo; i < g.n && i < static_cast<std::size_t>(m.group); i += step) {
    const Unpacked ua = unpack(g.fa, g.a[i]), ub = unpack(g.fb, g.b[i]);
    if (!is_zero(ua) && !is_zero(ub)) acc.add(ua.negative != ub.negative, mul64(ua.sig, ub.sig), ua.exp + ub.exp);
  }
  exact = exact && acc.exact;
  return acc.S;
}

/// |v|·2^from re-aligned to quantum 2^to by `r` (signed); `exact` cleared when bits are lost.
MINIFLOAT_HOST_DEVICE constexpr std::int64_t amd_realign(std::int64_t v, int from, int to, AlignRounding r,
                                                         bool& exact) noexcept {
  TfdpaSum t{to, r};
  t.add(v < 0, wide(static_cast<std::uint64_t>(v < 0 ? -v : v)), from);
  exact = exact && t.exact;
  return t.S;
}

/// two_stage / two_stage_odd_even group (MMA-Sim amd_fused_dot_rd_add, arithmetic.py:227-285): finite
/// inputs; a product ≥ 2^128 is ±Inf (both signs: NaN, arithmetic.py:243-259).
MINIFLOAT_HOST_DEVICE constexpr RoundResult amd_two_stage_group(const TfdpaModel& m, const TfdpaLanes& g,
                                                                const Unpacked& uc) noexcept {
  constexpr int kSumBits = 31;  // the product sum against 2^M (arithmetic.py:275, :283)
  constexpr int kCBits = 24;    // C against 2^M (arithmetic.py:277, :284)
  constexpr int kCWindow = 25;  // odd/even: a C below 2^(M − 25) is dropped (arithmetic.py:276-279)
  bool pos_inf = false, neg_inf = false, exact = true;
  for (std::size_t i = 0; i < g.n; ++i) {
    const Unpacked ua = unpack(g.fa, g.a[i]), ub = unpack(g.fb, g.b[i]);
    if (is_zero(ua) || is_zero(ub)) continue;
    if (bit_width(ua.sig * ub.sig) + ua.exp + ub.exp - 1 >= 128)
      (ua.negative != ub.negative ? neg_inf : pos_inf) = true;
  }
  if (pos_inf && neg_inf) return {m.nan_code, flag_invalid};
  if (pos_inf || neg_inf) return {inf_code(m.dest, sign_of(neg_inf)), flag_overflow};
  int e = 0;
  std::int64_t s = 0;
  if (m.structure == TfdpaStructure::two_stage_odd_even) {
    int e0 = 0, e1 = 0;
    const std::int64_t s0 = amd_product_sum(m, g, 0, 2, e0, exact), s1 = amd_product_sum(m, g, 1, 2, e1, exact);
    e = e0 > e1 ? e0 : e1;
    s = amd_realign(s0, e0 - m.frac_bits, e - m.frac_bits, AlignRounding::rtn, exact) +
        amd_realign(s1, e1 - m.frac_bits, e - m.frac_bits, AlignRounding::rtn, exact);
  } else {
    s = amd_product_sum(m, g, 0, 1, e, exact);
  }
  const int ec = is_zero(uc) ? (m.zero.c == ZeroCExponent::own ? m.zero.c_exponent : m.zero_exponent)
                             : nominal_exponent(m.dest, uc);
  const int M = e > ec ? e : ec;
  TfdpaSum acc{M - kSumBits, AlignRounding::rtn};
  acc.S = amd_realign(s, e - m.frac_bits, M - kSumBits, AlignRounding::rtn, exact);
  const bool drop_c = m.structure == TfdpaStructure::two_stage_odd_even && ec < M - kCWindow;
  if (!is_zero(uc) && !drop_c) {
    TfdpaSum c{M - kCBits, AlignRounding::rtn};
    c.add(uc.negative, wide(uc.sig), uc.exp);
    exact = exact && c.exact;
    acc.S += c.S * (std::int64_t{1} << (kSumBits - kCBits));
  } else if (!is_zero(uc)) {
    exact = false;
  }
  acc.exact = exact;
  return tfdpa_round(m, acc);
}

/// late_c / late_c_pairs, the last step: c + p (p: the products' sum, a code of `out`, with its flags) rounded
/// once into `out` by m.out_rounding (a finite overflow: ±Inf under TfdpaOverflow::inf), widened into `dest`.
MINIFLOAT_HOST_DEVICE constexpr RoundResult late_c_add(const TfdpaModel& m, const RoundResult& p,
                                                       std::uint64_t c) noexcept {
  RoundResult r = minifloat::add(m.out, p.code, m.dest, c, m.out, m.out_rounding);
  const bool neg = (r.code & sign_mask(m.out)) != 0;
  if ((r.flags & flag_overflow) != 0 && m.overflow == TfdpaOverflow::inf) r.code = inf_code(m.out, sign_of(neg));
  RoundResult d = round_pack(m.dest, unpack(m.out, r.code));  // exact: out embeds in dest
  if (m.zero.sign == ZeroResultSign::positive && (d.code & magnitude_mask(m.dest)) == 0) d.code = 0;
  d.flags = r.flags | p.flags;
  return d;
}

/// late_c group (TfdpaStructure::late_c): P = the products' fused sum (E over the products alone, F bits,
/// m.align) rounded into `out` by m.sum_rounding (a finite overflow: ±Inf under TfdpaOverflow::inf);
/// then c + P rounded once into `out` by m.out_rounding (IEEE add: an exact cancellation is +0 except under
/// RD), widened into `dest`. Finite inputs (tfdpa_special ran first).
MINIFLOAT_HOST_DEVICE constexpr RoundResult late_c_group(const TfdpaModel& m, const TfdpaLanes& g,
                                                         std::uint64_t c) noexcept {
  TfdpaSum acc{tfdpa_products_max_exponent(m, g) - m.frac_bits, m.align, 0, g.n == static_cast<std::size_t>(m.group)};
  tfdpa_add_products(m, g, acc);
  const Unpacked sum = tfdpa_sum_value(acc);
  RoundResult p = round_pack(m.out, sum, RoundingSpec{m.sum_rounding});
  if ((p.flags & flag_overflow) != 0 && m.overflow == TfdpaOverflow::inf)
    p.code = inf_code(m.out, sign_of(sum.negative));
  if (!acc.exact) p.flags |= flag_inexact;
  return late_c_add(m, p, c);
}

/// late_c_pairs group (TfdpaStructure::late_c_pairs): the lanes split by i mod 4 into two halves of L/2, each a
/// fused group (tfdpa_group's steps 2-4 under the model with group L/2, rounded by sum_rounding) chained from
/// C = +0; then late_c_add. Finite inputs (tfdpa_special ran first).
MINIFLOAT_HOST_DEVICE constexpr RoundResult late_c_pairs_group(const TfdpaModel& m, const TfdpaLanes& g,
                                                               std::uint64_t c) noexcept {
  TfdpaModel half = m;
  half.group = m.group / 2;
  half.structure = TfdpaStructure::fused;
  half.out_rounding = RoundingSpec{m.sum_rounding};
  std::uint64_t a[32]{}, b[32]{};  // L <= 64 (TfdpaModel::group)
  RoundResult p{0, flag_none};     // C = +0 for the first half
  for (int h = 0; h < 2; ++h) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < g.n; ++i)
      if ((i % 4 < 2) == (h == 0)) {
        a[n] = g.a[i];
        b[n++] = g.b[i];
      }
    const TfdpaLanes lanes{g.fa, a, g.fb, b, n, nullptr, nullptr};
    const Unpacked up = unpack(half.dest, p.code);
    TfdpaSum acc{tfdpa_max_exponent(half, lanes, up) - half.frac_bits, half.align, 0,
                 n == static_cast<std::size_t>(half.group)};
    tfdpa_add_products(half, lanes, acc);
    if (is_zero(up)) acc.add(up.negative, Wide{}, 0);
    else acc.add(up.negative, wide(up.sig), up.exp);
    const RoundResult r = tfdpa_round(half, acc);
    p = {r.code, p.flags | r.flags};
  }
  return late_c_add(m, p, c);
}

}  // namespace detail

/// One T-FDPA group: d = round(Σ_{i<n} a_i·b_i·s_a(i)·s_b(i) + c) under model `m` (n ≤ m.group;
/// lanes n..L−1 are zeros). `c` is a code of `m.dest`; the result is a code of `m.dest`.
/// Block-scaled models (m.scale.application != none): `sa`/`sb` hold the codes (m.scale.format)
/// of the scales of this group's lanes, lane i using sa[i / m.scale.block]; nullptr means unit
/// scales. Unscaled models ignore them. A NaN scale gives the canonical NaN (MMA-Sim).
/// subblock_sum precondition: the exact sum of one subblock fits 62 bits (its products span at
/// most 2^58; e2m1: 2^−2..36, 8 bits); otherwise the result is the canonical NaN with flag_invalid.
/// Flags: inexact when the result differs from the exact sum; invalid for a NaN produced from
/// non-NaN inputs.
MINIFLOAT_HOST_DEVICE constexpr RoundResult tfdpa_group(const TfdpaModel& m, Format fa, const std::uint64_t* a,
                                                        Format fb, const std::uint64_t* b, std::size_t n,
                                                        std::uint64_t c, const std::uint64_t* sa = nullptr,
                                                        const std::uint64_t* sb = nullptr) noexcept {
  const detail::TfdpaLanes g{fa, a, fb, b, n, sa, sb};
  const Unpacked uc = unpack(m.dest, c);
  // 1. specials
  RoundResult special{};
  if (detail::tfdpa_special(m, g, uc, special)) return special;
  if (m.structure == TfdpaStructure::pairwise_f32) return detail::amd_pairwise_group(m, g, c);
  if (m.structure == TfdpaStructure::late_c) return detail::late_c_group(m, g, c);
  if (m.structure == TfdpaStructure::late_c_pairs) return detail::late_c_pairs_group(m, g, c);
  if (m.structure != TfdpaStructure::fused) return detail::amd_two_stage_group(m, g, uc);
  // 2. the max nominal exponent E; 3. every term aligned to quantum 2^(E − F) and summed exactly (an
  //    empty lane is +0, so only a full group can sum to −0)
  detail::TfdpaSum acc{detail::tfdpa_max_exponent(m, g, uc) - m.frac_bits, m.align, 0,
                       n == static_cast<std::size_t>(m.group)};
  if (m.scale.application == BlockScaleApplication::subblock_sum) {
    if (!detail::tfdpa_add_subblocks(m, g, acc)) return {m.nan_code, flag_invalid};
  } else {
    detail::tfdpa_add_products(m, g, acc);
  }
  if (detail::is_zero(uc)) acc.add(uc.negative, detail::Wide{}, 0);
  else acc.add(uc.negative, detail::wide(uc.sig), uc.exp);
  // 4. normalise and round into `out`, then widen into `dest`
  return detail::tfdpa_round(m, acc);
}

/// A dot product of length k under model `m`: groups of m.group lanes chained through the
/// accumulator (c ← tfdpa_group(next lanes, c)), starting from `c` (a code of m.dest).
/// Block-scaled models: `sa`/`sb` hold ceil(k / m.scale.block) scale codes each (lane i uses
/// sa[i / m.scale.block]); nullptr: unit scales.
MINIFLOAT_HOST_DEVICE constexpr RoundResult tfdpa_dot(const TfdpaModel& m, Format fa, const std::uint64_t* a, Format fb,
                                                      const std::uint64_t* b, std::size_t k, std::uint64_t c,
                                                      const std::uint64_t* sa = nullptr,
                                                      const std::uint64_t* sb = nullptr) noexcept {
  RoundResult r{c, flag_none};
  // AMD CDNA2 flushes the initial C, a −0 included, to +0 (MMA-Sim amd.py:62-65, arithmetic.py:72)
  if (m.subnormals == TfdpaSubnormals::flush) r.code = detail::amd_flush(m.dest, c, false);
  const auto L = static_cast<std::size_t>(m.group);
  const bool scaled = m.scale.application != BlockScaleApplication::none;
  const std::size_t sblock = scaled ? static_cast<std::size_t>(m.scale.block) : 1;
  for (std::size_t i = 0; i < k || (i == 0 && k == 0); i += L) {
    const std::size_t n = k - i < L ? k - i : L;
    const std::uint64_t* ga = scaled && sa != nullptr ? sa + i / sblock : nullptr;
    const std::uint64_t* gb = scaled && sb != nullptr ? sb + i / sblock : nullptr;
    const RoundResult g = tfdpa_group(m, fa, a + i, fb, b + i, n, r.code, ga, gb);
    r.code = g.code;
    r.flags |= g.flags;
    if (k == 0) break;
  }
  return r;
}

}  // namespace minifloat
