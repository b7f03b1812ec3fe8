// SPDX-License-Identifier: Apache-2.0
// simd/convert_simd.hpp (internal to the compiled library): run-time dispatched Highway kernels for
// the array paths of convert_span.cpp, and the engine-built tables they read. The whitelist of what
// runs here is `minifloat::array_path` (convert_span.hpp); this header only serves it.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "minifloat/core/format.hpp"
#include "minifloat/core/named_formats.hpp"
#include "minifloat/core/named_profiles.hpp"
#include "minifloat/core/profile.hpp"
#include "minifloat/core/rounding.hpp"

namespace minifloat::simd {

/// The whitelist of the array paths (stated in convert_span.hpp at array_path and in stochastic.hpp
/// at sr_path): these formats, deterministic modes, policies and profiles; one list for every kernel.
/// The formats are the rows of kNamedFormats (core/named_formats.hpp) flagged kArrayPath, in table order.
inline constexpr auto kFormats = [] {
  std::array<Format, count_named_formats(kArrayPath)> a{};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = nth_named_format(kArrayPath, static_cast<int>(i));
  return a;
}();
static_assert(std::all_of(kFormats.begin(), kFormats.end(), [](Format f) { return f.bits <= 8; }),
              "the array paths' kernels and tables take codes of at most 8 bits");
inline constexpr std::array<Rounding, 6> kModes = {Rounding::rne, Rounding::rna, Rounding::rtz,
                                                   Rounding::rtp, Rounding::rtn, Rounding::rto};
inline constexpr std::array<Overflow, 3> kPolicies = {Overflow::nonsat, Overflow::satfinite, Overflow::satpropagate};
/// The profiles are the rows of kNamedProfiles (core/named_profiles.hpp) flagged kArrayPath, in table order.
inline constexpr auto kProfiles = [] {
  std::array<Profile, count_named_profiles(kArrayPath)> a{};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = nth_named_profile(kArrayPath, static_cast<int>(i));
  return a;
}();

/// The index of `v` in `a` (compared with ==), or −1 when it is not there.
template <class T, std::size_t K>
int index_of(const std::array<T, K>& a, const T& v) {
  for (std::size_t i = 0; i < K; ++i)
    if (a[i] == v) return static_cast<int>(i);
  return -1;
}

/// Which compile-time specialisation of the arithmetic rne kernel (simd/encode_rne-inl.h) a
/// combination runs, and its constants, read from the combination's table (build_encode).
enum class RneKind : std::uint8_t { none, e4m3fn, e5m2, e2m1fn, e8m0fnu, e2m3fn, e3m2fn };
struct RneKernel {
  RneKind kind = RneKind::none;
  std::uint32_t max_code = 0;  ///< the code (without sign) of every finite overflow; in {max finite, max finite + 1}
  std::uint32_t ovf_min = 0;   ///< the smallest |x| bits the table flags overflow
  std::uint32_t neg_or =
      0;  ///< e8m0fnu: 0xff when a negative nonzero normal gives NaN 0xff, 0 when it gives |x|'s code
  unsigned ovf_flags = 0, neg_flags = 0;
};

/// The engine's result for every key of simd/convert-inl.h: entry[key] = code | flags << 8, plus one
/// padding entry. Built once per (format, rounding, overflow, profile) and kept for the process.
struct EncodeTable {
  std::vector<std::uint16_t> entry;
  int drop = 0;  ///< 21 − mantissa_bits
  /// The arithmetic kernel instead of the lookups (encode_f32/bf16/f16), for: rounding rne; target
  /// e4m3fn, e5m2, e2m1fn, e8m0fnu, or the MXFP6 elements e2m3fn and e3m2fn; any policy and profile of the whitelist whose table shows
  /// (checked in build_encode) one code and one flag set for every finite overflow of each sign (the
  /// sign moved to the code's sign bit), inexact / underflow|inexact for in-range and tiny lanes, and for
  /// e8m0fnu ties up (1.5 → 0x80) with negatives either all NaN 0xff with one flag set or all as |x|
  /// (this excludes e8m0fnu under p3109). The kernel also needs the FPU's default rounding (x86 MXCSR
  /// round-to-nearest, no FTZ/DAZ; elsewhere the table path): checked per call. Chunks holding NaN/Inf
  /// (e8m0fnu: also 0 or f32 subnormals) are redone by the lookups. Everything else: the lookups.
  RneKernel rne;
};
/// The table index of binary32 bits `x` (simd/convert-inl.h's file comment): (x >> drop) << 1 | sticky, the
/// scalar form of the key the Highway kernels compute in vectors; the block quantizer's fast path uses it too.
inline std::uint32_t encode_key(std::uint32_t x, int drop) {
  const std::uint32_t low = x & ((std::uint32_t{1} << drop) - 1);
  return ((x >> drop) << 1) | (low != 0 ? 1u : 0u);
}
/// The key layout for a target with M mantissa bits (key = sign · exponent · M + 2 mantissa bits · sticky):
/// the positive finite binary32 values have the keys below encode_finite_keys(M) (key >> (M + 3) is the
/// exponent field), and encode_sign_key(M) is the sign bit of a key.
constexpr std::uint32_t encode_finite_keys(int M) { return std::uint32_t{0xFF} << (M + 3); }
constexpr std::uint32_t encode_sign_key(int M) { return std::uint32_t{1} << (M + 11); }
/// The arithmetic decode of DecodeU8 (simd/convert-inl.h) for one (format, profile), in 32-bit lanes:
///   s   = (code << sign_shift) & sign_mask                       (the sign at bit 31, or 0)
///   mag = code & mag_mask
///   r   = mag < sub_limit ? bits(float(mag) · sub_scale)          (subnormal: m · 2^(1−bias−M), exact)
///                         : (mag << mant_shift) + exp_adjust      (normal: (127 − bias) << 23 added)
///   r  |= s
///   then for each special run k: mag in [lo_k, lo_k + width_k) → (s ? neg_k : pos_k).
/// The constants come from the Format's layout; the special runs are the magnitudes where the engine's
/// value differs from the binade formula (Inf, NaN, the fnuz −0 NaN, e8m0fnu's 2^−127), with the engine's
/// own bits for each sign. decode_table keeps a combination only when this reproduces the engine's value
/// of every code (checked when the table is built) and no code's decode raises a flag; tests/simd prove
/// the vector kernels against the engine on every target.
struct DecodeArith {
  static constexpr int kMaxSpecials = 2;
  bool subnormals = false;  ///< the format has subnormal codes (M > 0 and a zero)
  int specials = 0;         ///< runs used, ≤ kMaxSpecials
  bool symmetric = false;   ///< every run has neg_k == pos_k | sign_mask (and pos_k without the sign bit)
  std::uint32_t mag_mask = 0, sign_shift = 0, sign_mask = 0, mant_shift = 0, exp_adjust = 0, sub_limit = 0;
  float sub_scale = 0;
  std::uint32_t lo[kMaxSpecials] = {}, width[kMaxSpecials] = {}, pos[kMaxSpecials] = {}, neg[kMaxSpecials] = {};
};
/// The decode of one (format, profile) with codes of ≤ 8 bits to binary32, from the engine's decode of
/// every code; no code of these raises a flag.
struct DecodeTable {
  DecodeArith arith;
  std::uint32_t bad_bits = 0;  ///< code bits above the format's width
};
/// Where DecodeU8 writes: `automatic` streams (non-temporal stores, Highway `Stream`) when the output of
/// one call is at least kDecodeStreamBytes, else plain stores. The bits are the same either way; the
/// tests force each.
enum class DecodeStore : std::uint8_t { automatic, plain, streaming };
inline constexpr std::size_t kDecodeStreamBytes = std::size_t{4} << 20;

/// The cached table of a whitelisted combination, or nullptr when it is not whitelisted (the
/// whitelist is the one of array_path, convert_span.hpp).
const EncodeTable* encode_table(Format to, const RoundingSpec& spec, const Profile& prof);
const DecodeTable* decode_table(Format from, const Profile& prof);

/// True when the arithmetic kernel can run now (t.rne.kind != none and the FPU's default rounding).
bool rne_kernel_runs(const EncodeTable& t);
/// Whether the FPU runs in its default rounding now, which the arithmetic kernels need: x86 MXCSR
/// round-to-nearest without FTZ/DAZ (false elsewhere: the table paths).
bool fpu_default_rounding();

/// Kernels (HWY_DYNAMIC_DISPATCH to the best target the CPU supports, or the one a test forces with
/// hwy::SetSupportedTargetsForTest). Return the OR of the element flags.
unsigned encode_f32(const EncodeTable& t, const float* in, std::uint8_t* out, std::size_t n);
unsigned encode_bf16(const EncodeTable& t, const std::uint16_t* in, std::uint8_t* out, std::size_t n);
unsigned encode_f16(const EncodeTable& t, const std::uint16_t* in, std::uint8_t* out, std::size_t n);
/// Decode n codes (no flags: see DecodeTable). False when a code has bits above the format's width
/// (nothing is reported, the output is unspecified; the caller rescans with the engine).
bool decode_u8(const DecodeTable& t, const std::uint8_t* in, float* out, std::size_t n,
               DecodeStore store = DecodeStore::automatic);

/// Widen binary16 bit patterns to binary32 bit patterns (exact).
void widen_f16(const std::uint16_t* in, std::uint32_t* out, std::size_t n);

/// Philox4x32-10 blocks with counters (c0 + j, c1, c2, c3), j < n, key (k0, k1): words[4j + w]
/// = word w of block j (Random123 philox4x32_R<10>). Precondition: c0 + n − 1 does not wrap.
void philox_blocks(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3, std::uint32_t k0,
                   std::uint32_t k1, std::size_t n, std::uint32_t* words);

/// Name of the Highway target the kernels dispatch to now ("AVX2", "SSE4", "EMU128", ...).
const char* target_name();

}  // namespace minifloat::simd
