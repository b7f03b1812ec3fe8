// SPDX-License-Identifier: Apache-2.0
// simd/quant_simd.hpp (internal to the compiled library): the fast paths of the block quantizer
// (src/quant/tile_loops.cpp) — the tile statistics (amax, NaN, Inf) of binary32 values of every block of a row in
// one call, and the scale + encode of every block of a row in one call — and the error sums of
// accumulate_errors. They hold no rounding rule of their own: codes and counts come from tables the
// engine fills (QuantKernel) or from the arithmetic rne kernel's lane rule checked against them
// (QuantRne), scales from the engine's step (core/block_scale.hpp, or tables built from it). Which
// tiles run here is decided in src/quant/ (BlockQuantizer::element_path and the per-tile RowBlock rule);
// everything else stays on the scalar reference loop. The Highway kernels (one copy per target, run-time
// dispatch) are in simd/quant-inl.h; the table lookups of quant_simd.cpp are plain C++ written
// branch-free for GCC's vectoriser (one scalar load per element, which no target changes).
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "minifloat/core/block_scale.hpp"
#include "minifloat/core/fp32_ops.hpp"
#include "simd/convert_simd.hpp"

namespace minifloat::simd {

/// How encode_blocks forms the table index of a scaled binary32 value y.
enum class KeyKind : std::uint8_t {
  /// Floating elements: the key of simd/convert-inl.h (encode_key of convert_simd.hpp; drop = 21 − M): sign, exponent,
  /// top M + 2 mantissa bits, sticky.
  top_bits,
  /// INT8 (mxint8) elements, grid k·2^−6 (core/block_scale.hpp mxint8_grid, then the clamp to
  /// [kmin, 127]): |y| is first replaced by a representative of its class — 0 stays 0; 0 < |y| < 2^−8
  /// → 2^−9 (below a quarter of the quantum: every deterministic mode reads only sign and
  /// inexactness); |y| ≥ 4 and ±Inf → 4 (beyond the grid's 255/64, every mode saturates to
  /// 127 / kmin); NaN → 0x7fc00000 — then key = (sign·14 + c) << 9 | m8 << 1 | sticky with
  /// c = clamp(E − 117, 0, 13) of the representative's biased exponent E, m8 its top 8 mantissa bits
  /// and sticky the OR of the 15 below: for 2^−8 ≤ |y| < 4 the bits down to 2^−7 (half the quantum)
  /// and a sticky bit, all a deterministic rounding to the grid reads (the convert-inl.h argument).
  mxint8,
};
/// The table of one (element, rounding, overflow, profile[, Mxint8Min]) built from the engine, one
/// word per key: `entry[key] = code | sat << 8 | zero << 9`, where sat = quantize_element's
/// `saturated` (floating: the engine flagged overflow and the code is neither Inf nor NaN) and
/// zero = element_value(code) == 0 (a flushed element when its source is finite and nonzero).
/// Floating elements derive it from encode_table (simd/convert_simd.hpp); INT8 elements call
/// quantize_element on each key's representative.
/// The arithmetic element kernel of encode_blocks (simd/quant-inl.h), in place of the entry table:
/// for rne into e4m3fn, e5m2, e2m1fn, e2m3fn or e3m2fn where the element's EncodeTable runs the rne kernel
/// (EncodeTable::rne; its overflow code max_code and bound ovf_min) and, checked over every key when
/// the QuantKernel is built, the entries show that a key is saturated exactly when |y| ≥ ovf_min and
/// the overflow code is finite (sat_on_overflow), and a code is a zero exactly when its magnitude
/// (the code without its sign bit) is 0. kind none: the table path.
struct QuantRne {
  RneKind kind = RneKind::none;
  std::uint32_t max_code = 0, ovf_min = 0;
  bool sat_on_overflow = false;
};
/// The arithmetic MXINT8 element kernel of encode_blocks and fused_rows_rne (Int8Lane, simd/quant-inl.h), in place
/// of the KeyKind::mxint8 entry table: on for rne where, checked over every key when the QuantKernel is built, the
/// lane rule at each key's representative gives the table's entry (code, sat, zero) — the keys' classes are those a
/// deterministic rounding to the grid reads (KeyKind::mxint8), so the rule then equals the table on every y. NaN and
/// ±Inf y are the table's (status 2); so are one-element blocks (column tiles).
struct QuantInt8 {
  bool on = false;
  std::uint32_t neg_limit = 128;  ///< the largest magnitude of a negative code: 128, or 127 (Mxint8Min::symmetric)
};
struct QuantKernel {
  KeyKind key = KeyKind::top_bits;
  int drop = 0;  ///< top_bits: 21 − M
  std::vector<std::uint16_t> entry;
  const EncodeTable* table = nullptr;  ///< top_bits: the element's engine-built encode table
  QuantRne rne;
  QuantInt8 int8;  ///< KeyKind::mxint8
};
/// e8m0_exponent(rule, amax, el) (core/block_scale.hpp) of every normal binary32 amax, as a step per
/// binade, found from the engine's function when the table is built: for the biased exponent E of
/// amax (1 ≤ E ≤ 254), e = bits(amax) ≥ thr[E] ? hi[E] : lo[E]. Every E8M0 rule is non-decreasing in
/// amax, so within a binade it takes the values at the binade's two ends; the table is kept only when
/// they differ by at most 1 (then thr[E] is the first mantissa of hi[E], by bisection; thr = 2^32 − 1
/// when lo = hi). tests/simd checks it against the engine at every binade's ends, around every step
/// and at random mantissas, for every rule and element.
struct E8m0ExpTable {
  std::array<std::uint32_t, 256> thr{};
  std::array<std::int16_t, 256> lo{}, hi{};
  int exponent(std::uint32_t amax_bits) const noexcept {
    const std::uint32_t E = amax_bits >> 23;
    return amax_bits >= thr[E] ? hi[E] : lo[E];
  }
};
/// The cached table of (rule, el), or nullptr when rule is not an E8M0 rule or some binade of the
/// engine's function is not such a step.
const E8m0ExpTable* e8m0_exp_table(ScaleRule rule, ElementType el);

/// The cached kernel of (element, spec, prof, mn), built once per process; nullptr unless the
/// element is floating and (format, spec, prof) is on encode_table's whitelist, or the element is
/// int8 and spec is a deterministic mode of kModes with an overflow of kPolicies under a profile of
/// kProfiles (`mn` is read for int8 only).
const QuantKernel* quant_kernel(ElementType el, const RoundingSpec& spec, const Profile& prof, Mxint8Min mn);

/// Tile statistics of binary32 values: the largest |x| over the non-NaN values (+0 when none),
/// whether a NaN and whether an Inf occurs. Order-free (integer max of the magnitude bits).
struct AbsMax {
  float amax = 0.0f;
  bool nan = false, inf = false;
};
/// The statistics of consecutive blocks of one row in one call: block 0 is x[0, first), block j ≥ 1
/// is x[first + (j−1)·bs, first + j·bs) cut at n; out[j] the AbsMax of that block. Returns the
/// number of blocks (first ≥ 1, bs ≥ 1; first ≥ n gives one block).
std::size_t absmax_blocks(const float* x, std::size_t n, std::size_t first, std::size_t bs, AbsMax* out);
/// The statistics of one-column tiles (tB = 1) over rows, in vectors: for each j < n, acc[j] = max(acc[j],
/// |x[j]| bits) over the non-NaN x[j] and nan[j] |= 1 for a NaN x[j] (start both at 0; x is one row's
/// n elements); absmax_from_bits(acc[j], nan[j] != 0) is then the AbsMax of column j over those rows.
void absmax_columns(const float* x, std::size_t n, std::uint32_t* acc, std::uint32_t* nan);
/// The AbsMax of values whose largest non-NaN magnitude has the bits amax_bits (≤ +Inf's) and that hold a
/// NaN or not.
AbsMax absmax_from_bits(std::uint32_t amax_bits, bool nan);
/// The blocks of that layout: how many cover n ≥ 1 elements, where block j starts, and its length.
inline std::size_t block_count(std::size_t n, std::size_t first, std::size_t bs) {
  return n <= first ? 1 : 1 + (n - first + bs - 1) / bs;
}
inline std::size_t block_start(std::size_t j, std::size_t first, std::size_t bs) {
  return j == 0 ? 0 : first + (j - 1) * bs;
}
inline std::size_t block_length(std::size_t j, std::size_t n, std::size_t first, std::size_t bs) {
  const std::size_t s = block_start(j, first, bs);
  return std::min(j == 0 ? first : bs, n - s);
}

/// nvfp4_block_scale_code(amax, s_enc, elem_max) of core/block_scale.hpp for a binary32 amax: the
/// same binary32 operations s = fl32(amax · fl32(s_enc · fl32(1/elem_max))), then s → e4m3fn (rne,
/// satfinite, ocp) read from the engine-built encode table of that combination (encode_table)
/// instead of one round_pack call per block.
std::uint8_t nvfp4_block_scale_code_table(float amax, float s_enc, float elem_max);
/// Its step with the tensor's factor fl32(s_enc · fl32(1/elem_max)) already taken: fl32(amax · factor) →
/// e4m3fn through `t` (nvfp4_scale_table()). One statement for the per-tile path and the fused rows.
inline std::uint8_t nvfp4_scale_code(const EncodeTable& t, float amax, float factor) {
  const float sv = fmul_rn(amax, factor);
  return static_cast<std::uint8_t>(t.entry[encode_key(std::bit_cast<std::uint32_t>(sv), t.drop)]);
}

/// Element counts of a run, as quantize_element reports them per element.
struct RunCounts {
  std::uint64_t saturated = 0, flushed = 0;
};

/// How encode_blocks scales one block before the table encode.
enum class BlockOp : std::uint8_t {
  /// y = x · s with s = 2^−e (E8M0): the block is encoded only when every product is exact — each
  /// finite nonzero x gives a normal finite y (|y| ≥ 2^−126); non-finite x kept bit for bit. Then
  /// round_pack(y) is quantize_element(el, x, e). Otherwise the block is left to the caller
  /// (fallback[j] = 1, its codes unspecified, nothing counted).
  e8m0_exact,
  multiply,  ///< y = fl32(x · s): the reference's fmul_rn (TileScale multiply, NVFP4 encode scale)
  divide,    ///< y = fl32(x / s): fdiv_rn (Fp32ScaleOrder::divide)
  skip,      ///< not touched (NaN blocks, flushed blocks, exact-order tiles): the caller's (fallback 1)
};
struct RowBlock {
  float s = 1.0f;
  BlockOp op = BlockOp::skip;
};
/// 2^−e as a binary32 for −127 ≤ e ≤ 127 (2^−127 is the subnormal 0x00400000).
inline float pow2_neg(int e) {
  return std::bit_cast<float>(e == 127 ? 0x00400000u : static_cast<std::uint32_t>(127 - e) << 23);
}
/// Scale and encode the blocks of one row (blocks as absmax_blocks: first, bs) in one call, through
/// the kernel's entry table (or its arithmetic kernel, QuantRne, when it has one and the FPU runs in
/// its default rounding: rne_kernel_runs; a block holding a non-finite x or y is then redone by the
/// table): codes written, saturated and flushed counted (flushed: finite nonzero
/// source x whose code is a zero), for every block whose op is not skip and that did not fall back;
/// fallback[j] = 1 for a block left to the caller (op skip, or an e8m0_exact block that was not exact),
/// else 0.
RunCounts encode_blocks(const QuantKernel& k, const float* x, std::size_t n, std::size_t first, std::size_t bs,
                        const RowBlock* blocks, std::uint8_t* codes, std::uint8_t* fallback);

/// The scale step of a plain block in fused_rows_rne, from the block's amax (binary32 bits A) (ue5m3: below):
///  - e8m0: e = e8m0->exponent(A), scale code e + 127, elements x · 2^−e as BlockOp::e8m0_exact;
///  - nvfp4: the scale code is nvfp4_block_scale_code_table's: s = fl32(amax · nvfp4_factor) with
///    nvfp4_factor = fl32(s_enc · fl32(1/elem_max)), then e4m3fn (rne, satfinite, ocp) from the engine's
///    table `nvfp4_table`; elements fl32(x · nvfp4_enc[code]) as BlockOp::multiply.
/// A block is plain when amax_min ≤ A < +Inf's bits: no NaN, no Inf, and (amax_min ≥ 2^−126 and ≥
/// the policy's amax_epsilon, the caller's choice) no zero, subnormal or epsilon block — those for which
/// every special-block policy leaves the scale to the rule.
struct FusedScale {
  enum class Kind : std::uint8_t { e8m0, nvfp4, ue5m3 } kind = Kind::e8m0;
  std::uint32_t amax_min = 0x00800000u;
  const E8m0ExpTable* e8m0 = nullptr;
  float nvfp4_factor = 1.0f;
  const EncodeTable* nvfp4_table = nullptr;
  const float* nvfp4_enc = nullptr;  ///< 256 element multipliers by scale code
  /// amax-scope row (per-row S_enc, issue 25 item 9), when nvfp4_enc is nullptr: the block's element multiplier
  /// nvfp4_element_encode_scale(code, s_enc) as its operations, min(fl32(1 / fl32(e4m3_values[code] ·
  /// nvfp4_rcp_senc)), FLT_MAX) with nvfp4_rcp_senc = fl32(1 / s_enc) of the row (NaN → FLT_MAX, as fminf).
  float nvfp4_rcp_senc = 1.0f;
  const float* e4m3_values = nullptr;  ///< 256 e4m3fn values by code (e4m3fn_values())
  /// ue5m3 (auto-round nvfp4_v2, nvfp4_v2_gs; issue 25 item 9): ue5m3_block_scale's operations, s =
  /// fl32(g · fl32(amax · ue5m3_rcp_max)) clipped to 114688, code autoround_ue5m3_code(s), elements fl32(x / divisor)
  /// (BlockOp::divide) with divisor = ue5m3_div[code] = fl32(ue5m3(code) · autoround_reciprocal(g)); a block whose
  /// divisor is 0 is not plain (status 3).
  float ue5m3_g = 1.0f, ue5m3_rcp_max = 1.0f;
  const float* ue5m3_div = nullptr;
};
/// The binary32 value of each of the 256 e4m3fn codes (to_float(e4m3fn, code)), built once.
const float* e4m3fn_values();
/// The e4m3fn (rne, satfinite, ocp) encode table of NVFP4's block scales (FusedScale::nvfp4_table).
const EncodeTable* nvfp4_scale_table();

/// Whether encode_blocks and fused_rows_rne take k's arithmetic kernel now: k has one (QuantRne, or QuantInt8 on)
/// and the FPU runs in its default rounding (fpu_default_rounding).
bool rne_elements_run(const QuantKernel& k);

/// The fused rows of one-row tiles (simd/quant-inl.h): per block of the row (blocks as absmax_blocks:
/// first, bs) the max of |x| bits; a plain block (FusedScale) gets its scale code written to
/// scale_codes[j · scale_stride] and its elements encoded as encode_blocks does for its BlockOp.
/// status[j]: 0 done (counted in the result); 1 plain, scale code written, some x · 2^−e not exact (the
/// caller runs the reference loop with e); 2 plain, scale code written, a non-finite y (the caller redoes
/// the block); 3 not plain, nothing written (the caller's per-tile path: statistics, scale step, encode).
/// Precondition: rne_elements_run(k), and fs.kind e8m0 for an MXINT8 kernel. `readable` ≥ n: the elements readable from x on (software
/// prefetch runs that far ahead, across the row's end: the next row of a piece follows it in memory).
RunCounts fused_rows_rne(const QuantKernel& k, const FusedScale& fs, const float* x, std::size_t n,
                         std::size_t readable, std::size_t first, std::size_t bs, std::uint8_t* scale_codes,
                         std::size_t scale_stride, std::uint8_t* codes, std::uint8_t* status);

/// Scheme::scale_select 4over6 on the fused rows (core/four_over_six.hpp, the engine's fourover6_segment in
/// src/quant/tile_loops.cpp): for each block of 16 of a row whose amax bits A are plain (2^−126 ≤ A < +Inf's
/// bits, no NaN), the two candidate scale codes from base = fl32(fl32(amax / 6) · s_enc), map6 = e4m3fn(base),
/// map4 = e4m3fn(fl32(base · 1.5)) (rne, satfinite, ocp: the engine's table `e4m3`, nvfp4_scale_table()); each
/// candidate's elements fl32(x · enc[code]) by the rne element kernel (codes and counts as encode_blocks), and its
/// error in binary32, one rounding per operation, summed in the element order i = 0..15 from +0:
/// val = fl32(fl32(fl32(q_i · sf) · global_amax) / 1536), d = fl32(val − x_i), err = fl32(err + fl32(d · d))
/// (mse) or fl32(err + |d|) (mae), q_i the element code's E2M1 value, sf the candidate's e4m3fn value; val is read
/// from `val`, built by the caller with those operations. The map-to-4 candidate is kept only when err4 < err6
/// (ties and NaN keep map-to-6).
struct FourOverSixRows {
  float s_enc = 1.0f;                 ///< 4over6's tensor encode scale (fourover6_global_encode_scale)
  bool mse = true;                    ///< the MSE error (else MAE)
  const EncodeTable* e4m3 = nullptr;  ///< nvfp4_scale_table()
  const float* enc = nullptr;         ///< 256 element multipliers nvfp4_element_encode_scale(code, s_enc)
  /// 256 · 8 + 8 values: val[8 · code + m] = fl32(fl32(fl32(q_m · e4m3fn(code)) · global_amax) / 1536) for the E2M1
  /// magnitudes q_m = 0, 0.5, 1, 1.5, 2, 3, 4, 6 (m = 0..7), then 8 pad entries (vector loads of 8 or 16 read them)
  const float* val = nullptr;
};
/// The fused rows of 4over6 (file comment of simd/quant-inl.h): blocks as absmax_blocks (first, bs); for each
/// plain block of exactly 16 elements whose candidates' products are all finite: element codes, scale_codes[j] (the
/// kept candidate's code), select[j] (1: map-to-4) written, counts of the kept candidate added, status[j] = 0;
/// every other block status[j] = 3, nothing written (the caller's per-tile path: scale step, fourover6_segment).
/// Precondition: rne_elements_run(k) and k.rne.kind == RneKind::e2m1fn. `readable` as fused_rows_rne's.
RunCounts fused_rows_4over6(const QuantKernel& k, const FourOverSixRows& fs, const float* x, std::size_t n,
                            std::size_t readable, std::size_t first, std::size_t bs, std::uint8_t* scale_codes,
                            std::uint8_t* select, std::uint8_t* codes, std::uint8_t* status);

/// The sums of accumulate_errors (minifloat/error_stats.hpp: ErrorStats' 8-lane order) over m elements, m a
/// multiple of 8, whose element 0 is in lane 0: lane l of sig and noi adds fl(x·x) and fl(e·e), e = x − q,
/// of elements l, l + 8, … in order; mx becomes the max of mx and every |e|. Returns false, and leaves
/// sig, noi and mx as they were, when some x or q is not finite (the caller's element loop takes them).
/// (x binary64, or binary32 widened exactly.)
bool error_sums8(const double* x, const double* q, std::size_t m, double* sig, double* noi, double& mx);
bool error_sums8(const float* x, const double* q, std::size_t m, double* sig, double* noi, double& mx);

/// Dequantize a run of codes under one scale: out[i] = lut[codes[i]] · s in binary64 (lut: the element value of
/// each of the 256 codes), rounded to nearest even for a binary32 out — the statement of BlockQuantizer's
/// dequantize, codes gathered from lut in vectors.
void dequantize_run(const std::uint8_t* codes, std::size_t n, const double* lut, double s, double* out);
void dequantize_run(const std::uint8_t* codes, std::size_t n, const double* lut, double s, float* out);

}  // namespace minifloat::simd
