// SPDX-License-Identifier: Apache-2.0
// accumulate.hpp: dot products and GEMM under named accumulation models: exact, sequential /
// pairwise / Kahan FP32, blocked FP32 promotion (DeepSeek-V3), and the tensor-core T-FDPA model
// with hardware presets (Hopper and Ada FP8 validated against measured vectors).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arith.hpp"
#include "config.hpp"
#include "error.hpp"
#include "format.hpp"
#include "profile.hpp"
#include "registry.hpp"
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
// any Inf → ±Inf. A finite sum beyond `out`'s range → ±Inf when `overflow_to_inf` (MMA-Sim
// converts its RZ-truncated value to float32, which overflows to Inf) else IEEE RZ (±max).
// Zero result sign (MMA-Sim's exact double sum): −0 only when every aligned term is a negative
// zero, else +0.
// =============================================================================================

/// How each term is rounded to F fraction bits of 2^E before the exact sum.
enum class AlignRounding : std::uint8_t {
  rtz,  ///< truncate the magnitude (sign-magnitude; NVIDIA: MMA-Sim `torch.trunc`, Khattak `armode = 'rz'`)
  rtn,  ///< floor in two's complement (AMD CDNA3: MMA-Sim `torch.floor`)
  rne,  ///< round half to even (not observed on hardware; for experiments)
};

/// The parameters of a T-FDPA tensor-core model (all data; see `mma_models::` for presets).
struct TfdpaModel {
  const char* name;           ///< preset name ("hopper-fp8", …)
  int group;                  ///< L: lanes per normalisation group (1..64)
  int frac_bits;              ///< F: fraction bits kept relative to 2^E (1..52)
  AlignRounding align;        ///< rounding of the aligned terms
  Format out;                 ///< precision/range of one group's result (e8m13 = FP32 with 10 low bits zero)
  RoundingSpec out_rounding;  ///< rounding into `out` (NVIDIA FP32 destinations: rtz)
  Format dest;                ///< the destination register format (f32 or f16); `out` must embed exactly
  int zero_exponent;          ///< nominal exponent of a zero term in the max (MMA-Sim's "exponent for zero")
  bool overflow_to_inf;       ///< finite overflow of `out` → ±Inf (MMA-Sim) instead of IEEE RZ's ±max
  std::uint64_t nan_code;     ///< canonical NaN written to `dest`
  bool validated;             ///< true only when bit-exact against hardware-measured vectors
  const char* source;         ///< where the parameters come from
};

namespace formats {
/// "e8m13": an FP32 register whose low 10 mantissa bits are zero (MMA-Sim "RZ-E8M13"): 1 sign,
/// 8 exponent bits (bias 127), 13 mantissa bits, FP32's range with subnormals of quantum 2^−139.
/// Its code shifted left by 10 is the FP32 code.
inline constexpr Format e8m13{22, 8, 13, 127, true, Specials::ieee, true};
}  // namespace formats

/// Tensor-core presets. `validated` presets reproduce hardware-measured vectors bit for bit
/// (tests/arith/mma_vectors_test.cpp); the others are published parameter sets only.
/// In CUDA device code copy a preset into a local first (`constexpr TfdpaModel m =
/// mma_models::hopper_fp8;`): namespace-scope constexpr objects are host variables.
namespace mma_models {
/// Hopper (sm_90, H100/H200) FP8 (e4m3/e5m2) with FP32 accumulate: wgmma k32 / mma.sync m16n8k32.
/// L = 32, F = 13, RZ aligned terms, RZ to e8m13. Validated: 5000/5000 on the H100 E4M3 vectors
/// (with C = +0, see the README of mma-vectors). zero_exponent −126 as MMA-Sim fdpa.py (unprobed).
inline constexpr TfdpaModel hopper_fp8{
    "hopper-fp8", 32, 13, AlignRounding::rtz, formats::e8m13, RoundingSpec{Rounding::rtz}, formats::f32, -126, true,
    0x7fffffffu, true,
    "MMA-Sim arXiv 2511.10909 (WGMMASim n_accum_fractional_bits=13, f32_e8m13); Khattak & Mikaitis "
    "arXiv 2512.07004 H100TC.m (fma=32, neab=-10); training-sim.md §1.3"};
/// Ada (sm_89, L40S) FP8 mma.sync m16n8k32: the same arithmetic split into two chained groups of
/// 16 (lanes 0–15 with C first, then 16–31), i.e. L = 16. Validated: 5000/5000 on the Ada E4M3
/// vectors with the file's C. zero_exponent −132 as MMA-Sim's Ada e5m2 case.
inline constexpr TfdpaModel ada_fp8{
    "ada-fp8", 16, 13, AlignRounding::rtz, formats::e8m13, RoundingSpec{Rounding::rtz}, formats::f32, -132, true,
    0x7fffffffu, true,
    "MMA-Sim arXiv 2511.10909 (is_split_k; MMA_T_FDPA(13, RZ-E8M13, 16, -132)); Khattak & Mikaitis arXiv "
    "2512.07004 (L40S); training-sim.md §1.3-1.4"};
/// Hopper f16 wgmma with FP32 accumulate: L = 16, F = 25, RZ to FP32, zero exponent −133.
inline constexpr TfdpaModel hopper_f16{
    "hopper-f16", 16, 25, AlignRounding::rtz, formats::f32, RoundingSpec{Rounding::rtz}, formats::f32, -133, true,
    0x7fffffffu, false,
    "MMA-Sim arXiv 2511.10909 (n_accum_fractional_bits=25; MMA_T_FDPA(25, RZ-FP32, 16, -133)); Khattak & "
    "Mikaitis arXiv 2512.07004 (fma=16, neab=2). Not checked against vectors here"};
/// Hopper bf16 wgmma with FP32 accumulate: same parameters as f16.
inline constexpr TfdpaModel hopper_bf16{
    "hopper-bf16", 16, 25, AlignRounding::rtz, formats::f32, RoundingSpec{Rounding::rtz}, formats::f32, -133, true,
    0x7fffffffu, false, "as hopper-f16 (MMA-Sim arXiv 2511.10909; Khattak & Mikaitis arXiv 2512.07004). Not checked"};
/// UNVALIDATED. Blackwell (sm_100 tcgen05) FP8: F = 25, L = 32, RZ to FP32 (MMA-Sim
/// TCGen05MMASim / MMA_ST_FDPA(25, RZ-FP32, 32, -133) with unit scales). The public B200 vectors
/// match no simple variant (training-sim.md §1.4: 3207/5000): do not use as a golden reference.
inline constexpr TfdpaModel blackwell_fp8_unvalidated{
    "blackwell-fp8-unvalidated", 32, 25, AlignRounding::rtz, formats::f32, RoundingSpec{Rounding::rtz}, formats::f32,
    -133, true, 0x7fffffffu, false,
    "UNVALIDATED: MMA-Sim arXiv 2511.10909 TCGen05MMASim (F=25); B200 vectors not matched (training-sim.md §1.4)"};
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
  if (pos_inf || neg_inf) return {inf_code(m.dest, neg_inf), flag_none};

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
  if ((r.flags & flag_overflow) != 0 && m.overflow_to_inf) return {inf_code(m.dest, sum.negative), r.flags};
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
/// instruction multiplies (Hopper/Ada FP8: e4m3fn and e5m2; hopper-f16: f16; hopper-bf16: bf16).
struct TensorCorePreset {
  const TfdpaModel* model;
  std::span<const Format> operands;
};
/// "tensor-core" (registry.hpp NameTable): hopper-fp8 ada-fp8 hopper-f16 hopper-bf16
/// blackwell-fp8-unvalidated.
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
