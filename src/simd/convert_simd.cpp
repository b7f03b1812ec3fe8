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
  if (kind == RneKind::none) return k;
  const auto entry = [&](std::uint32_t x) { return unsigned{t.entry[encode_key(x, t.drop)]}; };
  const auto flags_of = [](unsigned e) { return e >> 8; };
  const std::uint32_t sign_bit = kind == RneKind::e8m0fnu ? 0 : 1u << (to.bits - 1);
  const int M = to.mantissa_bits;
  // The positive keys of finite values, in increasing |x|: overflow must start at one key and stay.
  const std::uint32_t finite_keys = std::uint32_t{0xFF} << (M + 3);  // key >> (M + 3) is the f32 exponent
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
    const std::uint32_t neg_keys = std::uint32_t{1} << (M + 11);
    const bool nan = (neg & 0xFF) == 0xFF;
    for (std::uint32_t key = std::uint32_t{1} << (M + 3); key < finite_keys; ++key)  // normal f32 |x|
      if (t.entry[key | neg_keys] != (nan ? neg : t.entry[key])) return k;
    k.neg_or = nan ? 0xFF : 0;
    k.neg_flags = nan ? flags_of(neg) : 0;
  } else {
    const std::uint32_t emin_bits = static_cast<std::uint32_t>(1 - to.bias + 127) << 23;
    if (flags_of(entry(emin_bits - (2u << 23) + 1)) != (flag_underflow | flag_inexact)) return k;  // 2^(emin-2)(1+2^-23)
    const std::uint32_t neg_keys = std::uint32_t{1} << (M + 11);
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
    auto t = std::make_unique<DecodeTable>();
    t->value.resize(256);
    t->flags.resize(256);
    const std::uint64_t mask = code_mask(from);
    t->bad_bits = static_cast<std::uint32_t>(0xFF & ~mask);
    for (std::uint32_t c = 0; c < 256; ++c) {
      if ((c & ~mask) != 0) continue;  // never looked up: decode_u8 reports such codes
      const RoundResult r = convert(from, c, formats::f32, RoundingSpec{}, prof);
      t->value[c] = static_cast<std::uint32_t>(r.code);
      t->flags[c] = r.flags;
      t->any_flags = t->any_flags || r.flags != flag_none;
    }
    g_decode[slot] = std::move(t);
  }
  return g_decode[slot].get();
}

bool rne_kernel_runs(const EncodeTable& t) {
  if (t.rne.kind == RneKind::none) return false;
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
bool decode_u8(const DecodeTable& t, const std::uint8_t* in, float* out, std::size_t n, unsigned& flags) {
  return HWY_DYNAMIC_DISPATCH(DecodeU8)(in, reinterpret_cast<std::uint32_t*>(out), n, t.value.data(),
                                        t.flags.data(), t.any_flags, t.bad_bits, flags);
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
