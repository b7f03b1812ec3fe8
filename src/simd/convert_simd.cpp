// SPDX-License-Identifier: Apache-2.0
// simd/convert_simd.cpp: compiles simd/convert-inl.h once per Highway target (foreach_target.h),
// exports the kernels for run-time dispatch, and builds their tables from the engine.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/convert-inl.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "simd/convert-inl.h"

#if HWY_ONCE
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#if HWY_ARCH_X86
#include <xmmintrin.h>
#endif

#include "minifloat/core/convert.hpp"
#include "simd/convert_simd.hpp"

namespace minifloat::simd {

HWY_EXPORT(EncodeF32);
HWY_EXPORT(EncodeBf16);
HWY_EXPORT(EncodeF16);
HWY_EXPORT(EncodeRneF32);
HWY_EXPORT(EncodeRneBf16);
HWY_EXPORT(EncodeRneF16);
HWY_EXPORT(DecodeU8);
HWY_EXPORT(WidenF16);
HWY_EXPORT(PhiloxBlocks);

namespace {

std::mutex g_mutex;
std::array<std::unique_ptr<EncodeTable>, kFormats.size() * kModes.size() * kPolicies.size() * kProfiles.size()>
    g_encode;
std::array<std::unique_ptr<DecodeTable>, kFormats.size() * kProfiles.size()> g_decode;

/// The scalar statement of DecodeLanes (simd/convert-inl.h) for one code: what decode_table checks the
/// description against (the kernels themselves are proved against the engine by tests/simd).
std::uint32_t arith_value(const DecodeArith& a, std::uint32_t c) {
  const std::uint32_t s = (c << a.sign_shift) & a.sign_mask, mag = c & a.mag_mask;
  std::uint32_t r = (mag << a.mant_shift) + a.exp_adjust;
  if (a.subnormals && mag < a.sub_limit) {
    const float v = static_cast<float>(mag) * a.sub_scale;
    std::memcpy(&r, &v, sizeof r);
  }
  r |= s;
  for (int k = 0; k < a.specials; ++k)
    if (mag - a.lo[k] < a.width[k]) r = s != 0 ? a.neg[k] : a.pos[k];
  return r;
}

/// DecodeArith from the format's layout (bits, sign, mantissa bits, bias) and, for the special runs, the
/// engine's values in `value` (the runs of magnitudes where the binade formula differs from them).
/// False unless arith_value then reproduces every code's engine value.
bool build_arith(Format f, const std::vector<std::uint32_t>& value, DecodeArith& a) {
  a = DecodeArith{};
  const int w = f.bits - (f.is_signed ? 1 : 0);  // magnitude bits
  const int m = f.mantissa_bits;
  if (f.bits > 8 || m > 23) return false;
  a.mag_mask = (std::uint32_t{1} << w) - 1;
  a.sign_shift = static_cast<std::uint32_t>(32 - f.bits);
  a.sign_mask = f.is_signed ? 0x80000000u : 0u;
  a.mant_shift = static_cast<std::uint32_t>(23 - m);
  a.exp_adjust = static_cast<std::uint32_t>(127 - f.bias) << 23;  // mod 2^32; checked below
  a.subnormals = m > 0 && f.has_zero;
  a.sub_limit = a.subnormals ? std::uint32_t{1} << m : 0;
  a.sub_scale = std::ldexp(1.0f, 1 - f.bias - m);  // a power of two (a wrong one fails the check below)
  // the special runs: consecutive magnitudes whose engine values (both signs) differ from the formula
  // and agree with each other
  const std::uint32_t ncodes = std::uint32_t{1} << f.bits;
  const std::uint32_t sign_code = f.is_signed ? std::uint32_t{1} << w : 0;
  const DecodeArith plain = a;  // no runs
  for (std::uint32_t mag = 0; mag <= a.mag_mask; ++mag) {
    const std::uint32_t p = value[mag], n = value[mag | sign_code];
    if (arith_value(plain, mag) == p && arith_value(plain, mag | sign_code) == n) continue;
    const int k = a.specials - 1;
    if (k >= 0 && a.lo[k] + a.width[k] == mag && a.pos[k] == p && a.neg[k] == n) {
      ++a.width[k];
      continue;
    }
    if (a.specials == DecodeArith::kMaxSpecials) return false;
    a.lo[a.specials] = mag;
    a.width[a.specials] = 1;
    a.pos[a.specials] = p;
    a.neg[a.specials] = n;
    ++a.specials;
  }
  a.symmetric = true;
  for (int k = 0; k < a.specials; ++k)
    a.symmetric = a.symmetric && (a.pos[k] & a.sign_mask) == 0 && a.neg[k] == (a.pos[k] | a.sign_mask);
  for (std::uint32_t c = 0; c < ncodes; ++c)
    if (arith_value(a, c) != value[c]) return false;
  return true;
}

/// The arithmetic rne kernel's constants for table t of (to, spec), or kind none when the table
/// shows a rule the kernel does not implement (the conditions at EncodeTable::rne).
RneKernel rne_kernel_for(const EncodeTable& t, Format to, const RoundingSpec& spec) {
  RneKernel k;
  if (spec.rounding != Rounding::rne) return k;
  RneKind kind = RneKind::none;
  if (to == formats::e4m3fn) kind = RneKind::e4m3fn;
  if (to == formats::e5m2) kind = RneKind::e5m2;
  if (to == formats::e2m1fn) kind = RneKind::e2m1fn;
  if (to == formats::e8m0fnu) kind = RneKind::e8m0fnu;
  if (to == formats::e2m3fn) kind = RneKind::e2m3fn;
  if (to == formats::e3m2fn) kind = RneKind::e3m2fn;
  if (kind == RneKind::none) return k;
  const auto entry = [&](std::uint32_t x) { return unsigned{t.entry[encode_key(x, t.drop)]}; };
  const auto flags_of = [](unsigned e) { return e >> 8; };
  const std::uint32_t sign_bit = kind == RneKind::e8m0fnu ? 0 : 1u << (to.bits - 1);
  const int M = to.mantissa_bits;
  // The positive keys of finite values, in increasing |x|: overflow must start at one key and stay.
  const std::uint32_t finite_keys = encode_finite_keys(M);
  std::uint32_t first_ovf = finite_keys;
  for (std::uint32_t key = 0; key < finite_keys; ++key) {
    const bool ovf = (flags_of(t.entry[key]) & flag_overflow) != 0;
    if (ovf && first_ovf == finite_keys) first_ovf = key;
    if (!ovf && first_ovf != finite_keys) return k;
  }
  if (first_ovf == 0 || first_ovf == finite_keys) return k;
  const unsigned top = entry(0x7F7FFFFFu), below = t.entry[first_ovf - 1];
  const std::uint32_t max_finite = below & 0xFF, max_code = top & 0xFF;
  if (max_code != max_finite && max_code != max_finite + 1) return k;
  for (std::uint32_t key = first_ovf; key < finite_keys; ++key)
    if (t.entry[key] != top) return k;
  // in-range and tiny inexact lanes
  if (flags_of(entry(0x3F800001u)) != flag_inexact) return k;  // 1 + 2^-23
  if (kind == RneKind::e8m0fnu) {
    if ((entry(0x3FC00000u) & 0xFF) != 0x80 || (entry(0x40400000u) & 0xFF) != 0x81) return k;  // 1.5, 3: ties up
    const unsigned neg = entry(0xBF800000u);
    const std::uint32_t neg_keys = encode_sign_key(M);
    const bool nan = (neg & 0xFF) == 0xFF;
    for (std::uint32_t key = std::uint32_t{1} << (M + 3); key < finite_keys; ++key)  // normal f32 |x|
      if (t.entry[key | neg_keys] != (nan ? neg : t.entry[key])) return k;
    k.neg_or = nan ? 0xFF : 0;
    k.neg_flags = nan ? flags_of(neg) : 0;
  } else {
    const std::uint32_t emin_bits = static_cast<std::uint32_t>(1 - to.bias + 127) << 23;
    if (flags_of(entry(emin_bits - (2u << 23) + 1)) != (flag_underflow | flag_inexact))
      return k;  // 2^(emin-2)(1+2^-23)
    const std::uint32_t neg_keys = encode_sign_key(M);
    for (std::uint32_t key = first_ovf; key < finite_keys; ++key)
      if (t.entry[key | neg_keys] != (top | sign_bit)) return k;
  }
  k.kind = kind;
  k.max_code = max_code;
  k.ovf_min = ((first_ovf >> 1) << t.drop) + (first_ovf & 1);
  k.ovf_flags = flags_of(top);
  return k;
}

std::unique_ptr<EncodeTable> build_encode(Format to, const RoundingSpec& spec, const Profile& prof) {
  auto t = std::make_unique<EncodeTable>();
  t->drop = 21 - to.mantissa_bits;
  const std::uint32_t keys = std::uint32_t{1} << (to.mantissa_bits + 12);
  t->entry.resize(keys + 1, 0);
  for (std::uint32_t k = 0; k < keys; ++k) {
    const std::uint32_t rep = ((k >> 1) << t->drop) | (k & 1);
    const RoundResult r = convert(formats::f32, rep, to, spec, prof);
    t->entry[k] = static_cast<std::uint16_t>(r.code | (static_cast<unsigned>(r.flags) << 8));
  }
  t->rne = rne_kernel_for(*t, to, spec);
  return t;
}

}  // namespace

const EncodeTable* encode_table(Format to, const RoundingSpec& spec, const Profile& prof) {
  const int f = index_of(kFormats, to), m = index_of(kModes, spec.rounding), o = index_of(kPolicies, spec.overflow),
            p = index_of(kProfiles, prof);
  if (f < 0 || m < 0 || o < 0 || p < 0) return nullptr;
  if (spec.ftz || spec.daz) return nullptr;  // the tables hold the engine's results without them: the engine runs
  const std::size_t slot =
      ((static_cast<std::size_t>(f) * kModes.size() + m) * kPolicies.size() + o) * kProfiles.size() + p;
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_encode[slot])
    g_encode[slot] = build_encode(to, RoundingSpec{.rounding = spec.rounding, .overflow = spec.overflow}, prof);
  return g_encode[slot].get();
}

const DecodeTable* decode_table(Format from, const Profile& prof) {
  const int f = index_of(kFormats, from), p = index_of(kProfiles, prof);
  if (f < 0 || p < 0) return nullptr;
  const std::size_t slot = static_cast<std::size_t>(f) * kProfiles.size() + p;
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_decode[slot]) {
    std::vector<std::uint32_t> value(256, 0);
    const std::uint64_t mask = code_mask(from);
    bool any_flags = false;
    for (std::uint32_t c = 0; c < 256; ++c) {
      if ((c & ~mask) != 0) continue;  // never decoded: decode_u8 reports such codes
      const RoundResult r = convert(from, c, formats::f32, RoundingSpec{}, prof);
      value[c] = static_cast<std::uint32_t>(r.code);
      any_flags = any_flags || r.flags != flag_none;
    }
    DecodeArith a;
    if (any_flags || !build_arith(from, value, a)) return nullptr;  // the engine loop decodes it
    auto t = std::make_unique<DecodeTable>();
    t->arith = a;
    t->bad_bits = static_cast<std::uint32_t>(0xFF & ~mask);
    g_decode[slot] = std::move(t);
  }
  return g_decode[slot].get();
}

bool rne_kernel_runs(const EncodeTable& t) { return t.rne.kind != RneKind::none && fpu_default_rounding(); }
bool fpu_default_rounding() {
#if HWY_ARCH_X86
  // MXCSR: rounding control (bits 13-14) round to nearest, FTZ (bit 15) and DAZ (bit 6) clear
  return (_mm_getcsr() & 0xE040u) == 0;
#else
  return false;
#endif
}

unsigned encode_f32(const EncodeTable& t, const float* in, std::uint8_t* out, std::size_t n) {
  if (rne_kernel_runs(t))
    return HWY_DYNAMIC_DISPATCH(EncodeRneF32)(t, reinterpret_cast<const std::uint32_t*>(in), out, n);
  return HWY_DYNAMIC_DISPATCH(EncodeF32)(reinterpret_cast<const std::uint32_t*>(in), out, n, t.entry.data(), t.drop);
}
unsigned encode_bf16(const EncodeTable& t, const std::uint16_t* in, std::uint8_t* out, std::size_t n) {
  if (rne_kernel_runs(t)) return HWY_DYNAMIC_DISPATCH(EncodeRneBf16)(t, in, out, n);
  return HWY_DYNAMIC_DISPATCH(EncodeBf16)(in, out, n, t.entry.data(), t.drop);
}
unsigned encode_f16(const EncodeTable& t, const std::uint16_t* in, std::uint8_t* out, std::size_t n) {
  if (rne_kernel_runs(t)) return HWY_DYNAMIC_DISPATCH(EncodeRneF16)(t, in, out, n);
  return HWY_DYNAMIC_DISPATCH(EncodeF16)(in, out, n, t.entry.data(), t.drop);
}
bool decode_u8(const DecodeTable& t, const std::uint8_t* in, float* out, std::size_t n, DecodeStore store) {
  const bool stream =
      store == DecodeStore::streaming || (store == DecodeStore::automatic && n * sizeof(float) >= kDecodeStreamBytes);
  return HWY_DYNAMIC_DISPATCH(DecodeU8)(in, reinterpret_cast<std::uint32_t*>(out), n, t.arith, t.bad_bits, stream);
}

void widen_f16(const std::uint16_t* in, std::uint32_t* out, std::size_t n) {
  HWY_DYNAMIC_DISPATCH(WidenF16)(in, out, n);
}

void philox_blocks(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3, std::uint32_t k0,
                   std::uint32_t k1, std::size_t n, std::uint32_t* words) {
  HWY_DYNAMIC_DISPATCH(PhiloxBlocks)(c0, c1, c2, c3, k0, k1, n, words);
}

const char* target_name() {
  // The dispatch table's choice: the best of hwy::SupportedTargets() that was compiled.
  const std::int64_t supported = hwy::SupportedTargets() & HWY_TARGETS;
  return hwy::TargetName(supported & -supported);
}

}  // namespace minifloat::simd
#endif  // HWY_ONCE
