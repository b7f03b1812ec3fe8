// SPDX-License-Identifier: Apache-2.0
// simd_convert_test.cpp: the SIMD array paths (src/simd/) against THE engine (core/convert.hpp,
// one scalar convert per element), on every Highway target this CPU supports and the library
// compiled (hwy::SupportedAndGeneratedTargets), one gtest instance per target (per_target.hpp).
// Oracle: the engine. The kernels are a second implementation, so every specialised combination is
// run over every f16 input, every bf16 input, and every bf16 prefix widened to f32 with the low 16
// bits 0000 0001 4000 7fff 8000 8001 ffff (each tie and sticky pattern); codes per element, flags
// per 16-element call (one AVX2 vector twice) and for the whole array.
#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "minifloat/convert_span.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/error.hpp"
#include "minifloat/stochastic.hpp"
#include "minifloat/registry.hpp"
#include "per_target.hpp"
#include "simd/convert_simd.hpp"

namespace mf = minifloat;

namespace {

// The whitelist itself (simd/convert_simd.hpp; its formats are the table's kArrayPath rows): every
// combination it names must run the kernels and agree with the engine.
using mf::simd::kFormats;
using mf::simd::kModes;
using mf::simd::kPolicies;
using mf::simd::kProfiles;
/// The registry's name of kProfiles[p] ("ocp", …), for messages.
std::string profile_label(std::size_t p) { return std::string(mf::profile_name(kProfiles[p])); }

struct Inputs {
  std::vector<std::uint16_t> h;  // every binary16 pattern
  std::vector<std::uint16_t> b;  // every bfloat16 pattern
  std::vector<float> f;          // every bf16 prefix × 7 low halves
};
const Inputs& inputs() {
  static const Inputs in = [] {
    Inputs r;
    for (std::uint32_t i = 0; i < 65536; ++i) {
      r.h.push_back(static_cast<std::uint16_t>(i));
      r.b.push_back(static_cast<std::uint16_t>(i));
    }
    const std::array<std::uint32_t, 7> low = {0x0000, 0x0001, 0x4000, 0x7fff, 0x8000, 0x8001, 0xffff};
    for (std::uint32_t i = 0; i < 65536; ++i)
      for (std::uint32_t l : low) {
        const std::uint32_t x = (i << 16) | l;
        float v;
        std::memcpy(&v, &x, 4);
        r.f.push_back(v);
      }
    return r;
  }();
  return in;
}

struct Reference {
  std::vector<std::uint8_t> code;
  std::vector<unsigned> flags;
};
template <class T>
Reference engine(mf::Format src, const std::vector<T>& in, mf::Format to, const mf::RoundingSpec& spec,
                 const mf::Profile& prof) {
  Reference r;
  r.code.resize(in.size());
  r.flags.resize(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &in[i], sizeof(T));
    const mf::RoundResult e = mf::convert(src, bits, to, spec, prof);
    r.code[i] = static_cast<std::uint8_t>(e.code);
    r.flags[i] = e.flags;
  }
  return r;
}

/// Compares the whole-array API call and the 16-element kernel calls with the engine; returns the
/// number of mismatching elements (codes) plus mismatching 16-element flag groups.
template <class T, class Api, class Kernel>
std::size_t compare(const char* what, const std::vector<T>& in, const Reference& ref, Api api, Kernel kernel) {
  std::vector<std::uint8_t> out(in.size(), 0xAA);
  const unsigned all = api(in, out);
  std::size_t bad = 0;
  unsigned want_all = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    want_all |= ref.flags[i];
    if (out[i] != ref.code[i]) {
      if (++bad <= 3) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &in[i], sizeof(T));
        ADD_FAILURE() << what << ": input 0x" << std::hex << bits << " gives code 0x" << unsigned{out[i]}
                      << ", engine 0x" << unsigned{ref.code[i]};
      }
    }
  }
  EXPECT_EQ(all, want_all) << what << ": flags of the whole array";
  std::vector<std::uint8_t> part(16);
  for (std::size_t i = 0; i < in.size(); i += 16) {
    const std::size_t n = std::min<std::size_t>(16, in.size() - i);
    unsigned want = 0;
    for (std::size_t k = 0; k < n; ++k) want |= ref.flags[i + k];
    const unsigned got = kernel(in.data() + i, part.data(), n);
    if (got != want && ++bad <= 3) ADD_FAILURE() << what << ": flags of elements " << i << ".." << i + n - 1;
  }
  return bad;
}

class SimdEncodeExhaustive : public minifloat_test::PerFormatTarget {};
MINIFLOAT_INSTANTIATE_PER_FORMAT_TARGET(SimdEncodeExhaustive);

TEST_P(SimdEncodeExhaustive, EveryF16Bf16InputEveryCombination) {
  const mf::Format to = kFormats[format_index()];
  const Inputs& in = inputs();
  std::size_t combos = 0, mismatches = 0;
  for (std::size_t p = 0; p < kProfiles.size(); ++p)
    for (mf::Rounding m : kModes)
      for (mf::Overflow o : kPolicies) {
        const mf::RoundingSpec spec{.rounding = m, .overflow = o};
        const mf::Profile prof = kProfiles[p];
        SCOPED_TRACE(std::string(mf::rounding_name(m)) + " " + std::string(mf::overflow_name(o)) + " " +
                     profile_label(p));
        ASSERT_EQ(mf::encode_path(to, spec, prof), mf::ArrayPath::simd);
        const mf::simd::EncodeTable* t = mf::simd::encode_table(to, spec, prof);
        ASSERT_NE(t, nullptr);
        const Reference rh = engine(mf::formats::f16, in.h, to, spec, prof);
        const Reference rb = engine(mf::formats::bf16, in.b, to, spec, prof);
        const Reference rf = engine(mf::formats::f32, in.f, to, spec, prof);
        {
          mismatches += compare(
              "f16", in.h, rh,
              [&](const std::vector<std::uint16_t>& i, std::vector<std::uint8_t>& o2) {
                return mf::convert_f16_bits(i, o2, to, spec, prof);
              },
              [&](const std::uint16_t* i, std::uint8_t* o2, std::size_t n) { return mf::simd::encode_f16(*t, i, o2, n); });
          mismatches += compare(
              "bf16", in.b, rb,
              [&](const std::vector<std::uint16_t>& i, std::vector<std::uint8_t>& o2) {
                return mf::convert_bf16_bits(i, o2, to, spec, prof);
              },
              [&](const std::uint16_t* i, std::uint8_t* o2, std::size_t n) { return mf::simd::encode_bf16(*t, i, o2, n); });
          mismatches += compare(
              "f32", in.f, rf,
              [&](const std::vector<float>& i, std::vector<std::uint8_t>& o2) {
                return mf::convert_f32(i, o2, to, spec, prof);
              },
              [&](const float* i, std::uint8_t* o2, std::size_t n) { return mf::simd::encode_f32(*t, i, o2, n); });
          ++combos;
        }
      }
  EXPECT_EQ(mismatches, 0u);
  std::printf("[simd] %s on %s: %zu combinations x %zu inputs, %zu mismatches\n",
              std::string(mf::format_name(to)).c_str(), mf::simd::target_name(), combos, in.h.size() + in.b.size() + in.f.size(), mismatches);
}

class SimdDecode : public minifloat_test::PerTarget {};
MINIFLOAT_INSTANTIATE_PER_TARGET(SimdDecode);

TEST_P(SimdDecode, EveryCodeEveryProfile) {
  std::mt19937 rng(11);
  for (mf::Format from : kFormats)
    for (std::size_t p = 0; p < kProfiles.size(); ++p) {
      const mf::Profile prof = kProfiles[p];
      ASSERT_EQ(mf::decode_path(from, prof), mf::ArrayPath::simd);
      const std::uint32_t ncodes = 1u << from.bits;
      std::vector<std::uint8_t> codes(4099);
      for (std::size_t i = 0; i < codes.size(); ++i)
        codes[i] = static_cast<std::uint8_t>(i < ncodes ? i : rng() % ncodes);
      std::vector<std::uint32_t> want(codes.size());
      unsigned want_flags = 0;
      for (std::size_t i = 0; i < codes.size(); ++i) {
        const mf::RoundResult r = mf::convert(from, codes[i], mf::formats::f32, {}, prof);
        want[i] = static_cast<std::uint32_t>(r.code);
        want_flags |= r.flags;
      }
      {  // on this instance's target (PerTarget)
        std::vector<float> out(codes.size());
        EXPECT_EQ(unsigned{mf::decode_to_f32(codes, out, from, prof)}, want_flags);
        for (std::size_t i = 0; i < codes.size(); ++i) {
          std::uint32_t got = 0;
          std::memcpy(&got, &out[i], 4);
          ASSERT_EQ(got, want[i]) << mf::format_name(from) << " " << profile_label(p) << " code " << unsigned{codes[i]};
        }
        if (from.bits < 8) {  // a code wider than the format is named by its index, from either path
          std::vector<std::uint8_t> bad = codes;
          bad[4000] = static_cast<std::uint8_t>(ncodes);
          try {
            mf::decode_to_f32(bad, out, from, prof, 2);
            ADD_FAILURE() << "no error for a wide code";
          } catch (const mf::Error& e) {
            EXPECT_NE(std::string(e.what()).find("at index 4000"), std::string::npos) << e.what();
          }
        }
      }
    }
}

// Every whitelisted combination, every target, both store kinds (plain and streaming, forced): the
// kernel's tails and heads (lengths 0..2·AVX2 + 1 and a long odd one) at every input byte offset 0..3 and
// output float offsets 0..7 (so every alignment of the streaming head), each code's bits against the
// engine's decode, the floats beside the span untouched, and a code wider than the format refused
// wherever it sits (head, vector body, tail). Oracle: the engine (mf::convert per code).
TEST_P(SimdDecode, TailsOffsetsAndStores) {
  constexpr std::uint32_t kGuard = 0x7F8DEAD5u;  // a signalling NaN no decode produces
  const std::array<std::size_t, 12> lengths = {0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 777};
  std::mt19937 rng(12);
  for (mf::Format from : kFormats)
    for (std::size_t p = 0; p < kProfiles.size(); ++p) {
      const mf::Profile prof = kProfiles[p];
      const mf::simd::DecodeTable* t = mf::simd::decode_table(from, prof);
      ASSERT_NE(t, nullptr) << mf::format_name(from) << " " << profile_label(p);
      const std::uint32_t ncodes = 1u << from.bits;
      std::vector<std::uint8_t> codes(800);
      for (std::size_t i = 0; i < codes.size(); ++i)
        codes[i] = static_cast<std::uint8_t>(i < 2 * ncodes ? i % ncodes : rng() % ncodes);
      std::shuffle(codes.begin(), codes.end(), rng);
      std::array<std::uint32_t, 256> want{};
      for (std::uint32_t c = 0; c < ncodes; ++c) want[c] = static_cast<std::uint32_t>(mf::convert(from, c, mf::formats::f32, {}, prof).code);
      {  // on this instance's target (PerTarget)
        std::vector<std::uint32_t> out(800 + 16);
        for (const mf::simd::DecodeStore store : {mf::simd::DecodeStore::plain, mf::simd::DecodeStore::streaming})
          for (std::size_t in_off = 0; in_off < 4; ++in_off)
            for (std::size_t out_off = 0; out_off < 8; ++out_off)
              for (const std::size_t n : lengths) {
                std::fill(out.begin(), out.end(), kGuard);
                float* o = reinterpret_cast<float*>(out.data() + out_off);
                ASSERT_TRUE(mf::simd::decode_u8(*t, codes.data() + in_off, o, n, store));
                for (std::size_t i = 0; i < out_off + n + 8; ++i) {  // the span and 8 floats after it
                  const bool inside = i >= out_off && i < out_off + n;
                  ASSERT_EQ(out[i], inside ? want[codes[in_off + i - out_off]] : kGuard)
                      << mf::format_name(from) << " " << profile_label(p) << " n " << n << " offsets " << in_off
                      << "/" << out_off << " index " << i << (store == mf::simd::DecodeStore::plain ? " plain" : " streaming");
                }
                if (from.bits < 8 && n > 0) {
                  for (const std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
                    std::vector<std::uint8_t> bad(codes.begin() + static_cast<std::ptrdiff_t>(in_off),
                                                  codes.begin() + static_cast<std::ptrdiff_t>(in_off + n));
                    bad[at] = static_cast<std::uint8_t>(bad[at] | (1u << (7 - rng() % (8 - from.bits))));
                    EXPECT_FALSE(mf::simd::decode_u8(*t, bad.data(), o, n, store)) << "wide code at " << at << " of " << n;
                  }
                }
              }
      }
    }
}

// ---- the whitelist rule: what is not specialised runs the engine -------------------------------

TEST(SimdWhitelist, OnlyTheStatedCombinationsTakeTheSimdPath) {
  using mf::ArrayPath;
  for (mf::Format f : kFormats) EXPECT_EQ(mf::encode_path(f, {}, mf::profiles::ocp), ArrayPath::simd);
  // stochastic rounding, wider or custom formats, modified profiles: the engine
  EXPECT_EQ(mf::encode_path(mf::formats::e4m3fn, {.rounding = mf::Rounding::sr}, mf::profiles::ocp),
            ArrayPath::engine);
  EXPECT_EQ(mf::encode_path(mf::formats::f16, {}, mf::profiles::ocp), ArrayPath::engine);
  EXPECT_EQ(mf::encode_path(mf::formats::bf16, {}, mf::profiles::ocp), ArrayPath::engine);
  mf::Format custom = mf::formats::e4m3fn;
  custom.bias = 6;
  EXPECT_EQ(mf::encode_path(custom, {}, mf::profiles::ocp), ArrayPath::engine);
  EXPECT_EQ(mf::decode_path(custom, mf::profiles::ocp), ArrayPath::engine);
  mf::Profile ftz = mf::profiles::ocp;
  ftz.decode_ftz = true;
  EXPECT_EQ(mf::encode_path(mf::formats::e5m2, {}, ftz), ArrayPath::engine);
  EXPECT_EQ(mf::decode_path(mf::formats::e5m2, ftz), ArrayPath::engine);
  mf::Profile other = mf::profiles::nvidia;
  other.zero_without_zero = mf::ZeroWithoutZero::nan;
  EXPECT_EQ(mf::encode_path(mf::formats::e8m0fnu, {}, other), ArrayPath::engine);
  // A custom descriptor field-equal to a named format is that format.
  mf::Format same = custom;
  same.bias = 7;
  EXPECT_EQ(mf::encode_path(same, {}, mf::profiles::ocp), ArrayPath::simd);
}

TEST(SimdWhitelist, RneKernelTakesTheStatedCombinations) {
  // simd/convert_simd.hpp EncodeTable::rne: rne into e4m3fn/e5m2/e2m1fn/e2m3fn/e3m2fn (every policy and profile)
  // and e8m0fnu (every policy; not p3109, whose ties go to the even code); every other combination looks up.
  using mf::simd::RneKind;
  const std::array<std::pair<mf::Format, RneKind>, 6> fast = {
      {{mf::formats::e4m3fn, RneKind::e4m3fn},
       {mf::formats::e5m2, RneKind::e5m2},
       {mf::formats::e2m1fn, RneKind::e2m1fn},
       {mf::formats::e8m0fnu, RneKind::e8m0fnu},
       {mf::formats::e2m3fn, RneKind::e2m3fn},
       {mf::formats::e3m2fn, RneKind::e3m2fn}}};
  for (mf::Format f : {mf::formats::e4m3fn, mf::formats::e5m2, mf::formats::e2m1fn, mf::formats::e8m0fnu,
                       mf::formats::e4m3fnuz, mf::formats::e3m2fn, mf::formats::e2m3fn, mf::formats::ue4m3})
    for (std::size_t p = 0; p < kProfiles.size(); ++p)
      for (mf::Rounding m : {mf::Rounding::rne, mf::Rounding::rtz, mf::Rounding::rna})
        for (mf::Overflow o : kPolicies) {
          RneKind want = RneKind::none;
          for (const auto& [ff, kind] : fast)
            if (f == ff && m == mf::Rounding::rne && !(kind == RneKind::e8m0fnu && p == 3)) want = kind;
          const mf::simd::EncodeTable* t = mf::simd::encode_table(f, {.rounding = m, .overflow = o}, kProfiles[p]);
          ASSERT_NE(t, nullptr);
          EXPECT_EQ(t->rne.kind, want) << mf::format_name(f) << " " << mf::rounding_name(m) << " "
                                       << mf::overflow_name(o) << " " << profile_label(p);
          if (want != RneKind::none) {
            EXPECT_TRUE(mf::simd::rne_kernel_runs(*t));  // default MXCSR here
          }
        }
}

TEST(SimdWhitelist, EngineFallbackStillMatchesTheEngine) {
  // A modified profile (not whitelisted) through the array API equals the per-element engine.
  mf::Profile ftz = mf::profiles::ocp;
  ftz.decode_ftz = true;
  const Inputs& in = inputs();
  const Reference r = engine(mf::formats::bf16, in.b, mf::formats::e5m2, {}, ftz);
  std::vector<std::uint8_t> out(in.b.size());
  mf::convert_bf16_bits(in.b, out, mf::formats::e5m2, {}, ftz);
  EXPECT_EQ(out, r.code);
}

// ---- threads and chunking -----------------------------------------------------------------------

TEST(SimdThreads, ByteIdenticalForEveryThreadCountAndChunking) {
  const Inputs& in = inputs();
  for (mf::Format to : {mf::formats::e4m3fn, mf::formats::e2m1fn, mf::formats::e8m0fnu}) {
    std::vector<std::uint8_t> one(in.f.size());
    const mf::RoundingSpec spec{.rounding = mf::Rounding::rne, .overflow = mf::Overflow::satfinite};
    const unsigned f1 = mf::convert_f32(in.f, one, to, spec, mf::profiles::ocp, {}, 1);
    for (unsigned t : {2u, 3u, 7u, 16u}) {
      std::vector<std::uint8_t> many(in.f.size());
      EXPECT_EQ(unsigned{mf::convert_f32(in.f, many, to, spec, mf::profiles::ocp, {}, t)}, f1) << t;
      EXPECT_EQ(many, one) << t << " threads";
    }
    // chunked calls of odd sizes give the same bytes and the same OR of flags
    std::vector<std::uint8_t> chunked(in.f.size());
    unsigned fc = 0;
    std::mt19937 rng(5);
    for (std::size_t i = 0; i < in.f.size();) {
      const std::size_t n = std::min<std::size_t>(1 + rng() % 5000, in.f.size() - i);
      fc |= mf::convert_f32(std::span<const float>(in.f).subspan(i, n), std::span<std::uint8_t>(chunked).subspan(i, n),
                            to, spec, mf::profiles::ocp, {}, 1 + static_cast<unsigned>(rng() % 3));
      i += n;
    }
    EXPECT_EQ(chunked, one);
    EXPECT_EQ(fc, f1);
    // the engine path (sr excluded; a 16-bit target) is thread-count independent as well
    std::vector<std::uint16_t> w1(in.f.size()), w2(in.f.size());
    EXPECT_EQ(mf::convert_f32(in.f, w1, mf::formats::bf16, spec, mf::profiles::ocp, {}, 1),
              mf::convert_f32(in.f, w2, mf::formats::bf16, spec, mf::profiles::ocp, {}, 3));
    EXPECT_EQ(w1, w2);
  }
  // threads = 0 is all cores (issue 24: one convention; it was an error before): the same bytes
  std::vector<std::uint8_t> o0(in.f.size()), o1(in.f.size());
  EXPECT_EQ(mf::convert_f32(in.f, o0, mf::formats::e4m3fn, {}, mf::profiles::ocp, {}, 0),
            mf::convert_f32(in.f, o1, mf::formats::e4m3fn, {}, mf::profiles::ocp, {}, 1));
  EXPECT_EQ(o0, o1);
}

// ---- RapidCheck: f32 and f64 with boundary-biased inputs ----------------------------------------

/// f32 values near the format's rounding boundaries: a code's value or the midpoint between two
/// neighbouring codes, moved by −3..3 ulps, with either sign; or arbitrary bits (1 in 4).
rc::Gen<float> boundary_f32(mf::Format to) {
  return rc::gen::apply(
      [to](int kind, std::uint32_t code, int ulps, bool neg, std::uint32_t any) {
        if (kind == 0) {
          float v;
          std::memcpy(&v, &any, 4);
          return v;
        }
        const std::uint32_t n = 1u << to.bits;
        const double a = mf::to_double(to, code % n), b = mf::to_double(to, (code + 1) % n);
        double v = kind == 1 ? a : (a + b) / 2;
        if (!(v == v) || v > 3.4e38 || v < -3.4e38) v = a;
        float f = static_cast<float>(v);
        std::uint32_t bits;
        std::memcpy(&bits, &f, 4);
        bits = static_cast<std::uint32_t>(static_cast<std::int64_t>(bits) + ulps);
        if (neg) bits ^= 0x80000000u;
        std::memcpy(&f, &bits, 4);
        return f;
      },
      rc::gen::inRange(0, 4), rc::gen::arbitrary<std::uint32_t>(), rc::gen::inRange(-3, 4), rc::gen::arbitrary<bool>(),
      rc::gen::arbitrary<std::uint32_t>());
}

RC_GTEST_PROP(SimdProps, F32ArraysEqualTheEngine, ()) {
  const auto fi = *rc::gen::inRange<std::size_t>(0, kFormats.size());
  const auto mi = *rc::gen::inRange<std::size_t>(0, kModes.size());
  const auto oi = *rc::gen::inRange<std::size_t>(0, kPolicies.size());
  const auto pi = *rc::gen::inRange<std::size_t>(0, kProfiles.size());
  const mf::Format to = kFormats[fi];
  const auto in = *rc::gen::container<std::vector<float>>(boundary_f32(to));
  const mf::RoundingSpec spec{.rounding = kModes[mi], .overflow = kPolicies[oi]};
  std::vector<std::uint8_t> out(in.size());
  const unsigned flags = mf::convert_f32(in, out, to, spec, kProfiles[pi], {}, 1 + static_cast<unsigned>(in.size() % 2));
  unsigned want = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const mf::RoundResult r = mf::from_float(in[i], to, spec, kProfiles[pi]);
    RC_ASSERT(out[i] == r.code);
    want |= r.flags;
  }
  RC_ASSERT(flags == want);
}

/// The arithmetic rne kernel (simd/encode_rne-inl.h) over calls of several 1024-element chunks: an
/// exact background (one code's value, no flags) with a few boundary-biased values (and sometimes a
/// NaN, which sends its chunk to the lookups) at random places, so that each flag appears first in any
/// chunk; codes and the call's flags against the engine (oracle: core/convert.hpp, element by element).
RC_GTEST_PROP(SimdProps, RneKernelChunksEqualTheEngine, ()) {
  const std::array<mf::Format, 6> fmts = {mf::formats::e4m3fn, mf::formats::e5m2,   mf::formats::e2m1fn,
                                          mf::formats::e8m0fnu, mf::formats::e2m3fn, mf::formats::e3m2fn};
  const mf::Format to = fmts[*rc::gen::inRange<std::size_t>(0, fmts.size())];
  const auto oi = *rc::gen::inRange<std::size_t>(0, kPolicies.size());
  const auto pi = *rc::gen::inRange<std::size_t>(0, kProfiles.size());
  const mf::RoundingSpec spec{.rounding = mf::Rounding::rne, .overflow = kPolicies[oi]};
  const std::size_t n = *rc::gen::inRange<std::size_t>(1, 5000);
  // background: a finite positive code's value (exact: no flags; e8m0fnu codes 1..0xfe are normal f32)
  const std::uint32_t code = *rc::gen::inRange<std::uint32_t>(1, to == mf::formats::e2m1fn ? 8 : to.bits == 6 ? 0x20 : 0x70);
  std::vector<float> in(n, static_cast<float>(mf::to_double(to, code)));
  const auto k = *rc::gen::inRange<std::size_t>(0, 7);
  for (std::size_t j = 0; j < k; ++j) in[*rc::gen::inRange<std::size_t>(0, n)] = *boundary_f32(to);
  if (*rc::gen::inRange(0, 8) == 0) in[*rc::gen::inRange<std::size_t>(0, n)] = std::numeric_limits<float>::quiet_NaN();
  const mf::simd::EncodeTable* t = mf::simd::encode_table(to, spec, kProfiles[pi]);
  RC_PRE(t->rne.kind != mf::simd::RneKind::none);
  std::vector<std::uint8_t> out(n);
  const unsigned flags = mf::simd::encode_f32(*t, in.data(), out.data(), n);
  unsigned want = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const mf::RoundResult r = mf::from_float(in[i], to, spec, kProfiles[pi]);
    RC_ASSERT(out[i] == r.code);
    want |= r.flags;
  }
  RC_ASSERT(flags == want);
}

RC_GTEST_PROP(SimdProps, F64ArraysEqualTheEngine, ()) {
  // f64 sources (the SIMD path of simd/f64-inl.h; tests/simd/simd_f64_test.cpp covers every target
  // and combination): the array API equals the engine, with and without the ml_dtypes f32 step (D11).
  const auto fi = *rc::gen::inRange<std::size_t>(0, kFormats.size());
  const auto pi = *rc::gen::inRange<std::size_t>(0, kProfiles.size());
  const mf::Format to = kFormats[fi];
  const auto f = *rc::gen::container<std::vector<float>>(boundary_f32(to));
  const auto nudge = *rc::gen::container<std::vector<int>>(f.size(), rc::gen::inRange(-2, 3));
  std::vector<double> in(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    std::uint64_t b;
    double d = f[i];
    std::memcpy(&b, &d, 8);
    b += static_cast<std::uint64_t>(static_cast<std::int64_t>(nudge[i]));  // mod 2^64: -0.0 - 1 ulp is a NaN pattern, no signed overflow
    std::memcpy(&in[i], &b, 8);
  }
  std::vector<std::uint8_t> out(in.size());
  const unsigned flags = mf::convert_f64(in, out, to, {}, kProfiles[pi], {}, 2);
  unsigned want = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const mf::RoundResult r = mf::from_double(in[i], to, {}, kProfiles[pi]);
    RC_ASSERT(out[i] == r.code);
    want |= r.flags;
  }
  RC_ASSERT(flags == want);
}

}  // namespace

// ---- vectorized Philox4x32-10 (fill_sr_bits) ----------------------------------------------------

class SimdPhilox : public minifloat_test::PerTarget {};
MINIFLOAT_INSTANTIATE_PER_TARGET(SimdPhilox);

TEST_P(SimdPhilox, FillSrBitsEqualsTheScalarStream) {
  // Oracle: random.hpp's sr_bits (Random123's philox4x32_R<10>, one block per call).
  EXPECT_EQ(mf::philox4x32_10(0, 0, 0, 0, 0, 0).w[0], 0x6627e8d5u);  // Random123 kat_vectors
  struct Case {
    std::uint64_t seed;
    std::uint32_t stream, step;
    std::uint64_t base;
    std::size_t n;
  };
  const std::vector<Case> cases = {
      {0, 0, 0, 0, 1},
      {1, 2, 3, 0, 4099},
      {0x123456789abcdefull, 7, 9, 1, 777},
      {42, 0xffffffffu, 0xffffffffu, 3, 2050},
      {5, 1, 1, (std::uint64_t{1} << 34) - 37, 300},  // 1-word variants: counter word c0 wraps
      {5, 1, 1, (std::uint64_t{1} << 33) - 21, 300},  // exact: c0 wraps
  };
  {  // on this instance's target (PerTarget)
    for (const Case& c : cases)
      for (mf::SrVariant v : {mf::SrVariant::exact, mf::SrVariant::a, mf::SrVariant::equal}) {
        std::vector<std::uint64_t> got(c.n);
        const mf::SrStream s{.seed = c.seed, .stream = c.stream, .step = c.step, .index_base = c.base};
        mf::fill_sr_bits(s, v, got);
        for (std::size_t i = 0; i < c.n; ++i)
          ASSERT_EQ(got[i], mf::sr_bits(c.seed, c.stream, c.step, c.base + i, v))
              << "base " << c.base << " element " << i << " variant " << mf::name(v);
      }
  }
}
