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

#include "minifloat/core/convert.hpp"
#include "simd/convert_simd.hpp"

namespace minifloat::simd {

HWY_EXPORT(EncodeF32);
HWY_EXPORT(EncodeBf16);
HWY_EXPORT(EncodeF16);
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
  return t;
}

}  // namespace

const EncodeTable* encode_table(Format to, const RoundingSpec& spec, const Profile& prof) {
  const int f = index_of(kFormats, to), m = index_of(kModes, spec.rounding), o = index_of(kPolicies, spec.overflow),
            p = index_of(kProfiles, prof);
  if (f < 0 || m < 0 || o < 0 || p < 0) return nullptr;
  const std::size_t slot =
      ((static_cast<std::size_t>(f) * kModes.size() + m) * kPolicies.size() + o) * kProfiles.size() + p;
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_encode[slot]) g_encode[slot] = build_encode(to, RoundingSpec{.rounding = spec.rounding,
                                                                      .overflow = spec.overflow}, prof);
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

unsigned encode_f32(const EncodeTable& t, const float* in, std::uint8_t* out, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(EncodeF32)(reinterpret_cast<const std::uint32_t*>(in), out, n, t.entry.data(), t.drop);
}
unsigned encode_bf16(const EncodeTable& t, const std::uint16_t* in, std::uint8_t* out, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(EncodeBf16)(in, out, n, t.entry.data(), t.drop);
}
unsigned encode_f16(const EncodeTable& t, const std::uint16_t* in, std::uint8_t* out, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(EncodeF16)(in, out, n, t.entry.data(), t.drop);
}
bool decode_u8(const DecodeTable& t, const std::uint8_t* in, float* out, std::size_t n, DecodeStore store) {
  const bool stream = store == DecodeStore::streaming ||
                      (store == DecodeStore::automatic && n * sizeof(float) >= kDecodeStreamBytes);
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
