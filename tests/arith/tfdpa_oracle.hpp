// SPDX-License-Identifier: Apache-2.0
// tfdpa_oracle.hpp: an MPFR reference for the block-scaled tcgen05 T-FDPA kinds (mxf8f6f4, mxf4,
// mxf4nvf4), sharing no code with the model (it includes no minifloat header): codes are decoded
// from their field definitions (OCP MX v1.0, PTX ISA .ue4m3), the exact products and sums are
// MPFR values, and the documented roundings of core/tfdpa.hpp are applied to those exact values.
#pragma once
#include <cstdint>
#include <vector>

namespace arith_oracle {

/// Element and scale formats of the block-scaled kinds.
enum class BsFormat { e4m3fn, e5m2, e2m3fn, e3m2fn, e2m1fn, e8m0fnu, ue4m3 };

/// How the scales enter (restated from the MMA-Sim description, arXiv 2511.10909):
///   per_product: each product a_i·b_i·2^(e(sa)+e(sb)) is a term whose exponent for the max is
///                e(a_i)+e(b_i)+e(sa)+e(sb) (e(x) = max(floor(log2|x|), emin); a zero product: z);
///   per_subblock: each 16 lanes' exact Σ a_i·b_i times sa·sb is one term of exponent e(sa)+e(sb)
///                (a zero scale: a zero term of exponent z).
/// Then E = max over terms and C (C = 0: z), every term truncated toward zero to a multiple of
/// 2^(E−F), summed exactly, the sum truncated (RZ) to FP32 (subnormals kept, beyond the range:
/// Inf). A NaN scale, element or C gives 0x7fffffff. Groups of `group` lanes chain through C.
enum class BsRule { per_product, per_subblock };

/// The zero rules (issue 26 item 4), restated from MMA-Sim c785138 arithmetic.py:93-94 (frexp(0) → −126):
/// relative_zero: a zero element or scale counts as zero_factor in its term's exponent sum (per_product:
/// e(a)+e(b)+e(sa)+e(sb); per_subblock: e(sa)+e(sb)), and an empty lane as 2·zero_factor (per_product) or
/// 0 (per_subblock); own_zero_c: a zero C has exponent zero_c instead of zero_exponent.
struct BsModel {
  BsRule rule;
  int group, frac_bits, zero_exponent, scale_block, subblock;
  BsFormat scale;
  bool relative_zero = false;
  int zero_factor = -126;
  bool own_zero_c = false;
  int zero_c = -126;
};

/// The FP32 code of the chained dot product of k lanes (codes of fa/fb), scales one per
/// scale_block lanes (codes of m.scale), starting from the FP32 code c.
std::uint32_t block_scaled_dot(const BsModel& m, BsFormat fa, const std::vector<std::uint64_t>& a, BsFormat fb,
                               const std::vector<std::uint64_t>& b, const std::vector<std::uint64_t>& sa,
                               const std::vector<std::uint64_t>& sb, std::uint32_t c);

}  // namespace arith_oracle
