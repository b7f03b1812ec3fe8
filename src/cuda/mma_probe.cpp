// SPDX-License-Identifier: Apache-2.0
// mma_probe.cpp: the tensor-core probes of device-check stage S5 and their evaluation against the
// T-FDPA models (cuda/mma_probe.hpp).
#include "minifloat/cuda/mma_probe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "minifloat/core/bits.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/round_pack.hpp"
#include "minifloat/error.hpp"
#include "minifloat/parallel_for.hpp"
#include "minifloat/registry.hpp"

namespace minifloat::cuda {
namespace {

constexpr int kDots = kMmaTileRows * kMmaTileCols;

TfdpaModel with_zero_exponent(TfdpaModel m, int e) {
  m.zero_exponent = e;
  return m;
}
TfdpaModel with_zero_rules(TfdpaModel m, TfdpaZeroRules z) {
  m.zero = z;
  return m;
}
TfdpaModel with_overflow(TfdpaModel m, TfdpaOverflow o) {
  m.overflow = o;
  return m;
}
TfdpaModel with_nan(TfdpaModel m, std::uint64_t nan) {
  m.nan_code = nan;
  return m;
}

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

/// The code of the exact value `v` in `f`; throws if `v` is not exactly representable (a probe bug).
std::uint64_t code(Format f, double v) {
  const RoundResult r = convert(formats::f64, detail::bit_cast<std::uint64_t>(v), f,
                                RoundingSpec{Rounding::rne, Overflow::nonsat}, profiles::ocp);
  if ((r.flags & (flag_inexact | flag_overflow)) != 0)
    throw Error("mma probe: " + std::to_string(v) + " is not exact in " + format_name(f));
  return r.code;
}
bool exact_in(Format f, double v) {
  const RoundResult r = convert(formats::f64, detail::bit_cast<std::uint64_t>(v), f,
                                RoundingSpec{Rounding::rne, Overflow::nonsat}, profiles::ocp);
  return (r.flags & (flag_inexact | flag_overflow)) == 0;
}

/// A probe built lane by lane at dot (0, 0).
struct Builder {
  Format op, dest;
  MmaProbe p;
  Builder(Format operand, Format d, std::string q, std::string n) : op(operand), dest(d) {
    p.question = std::move(q);
    p.name = std::move(n);
    std::memset(&p.tile, 0, sizeof p.tile);
  }
  Builder& lane(int k, double a, double b) {
    p.tile.a[k] = static_cast<std::uint8_t>(code(op, a));
    p.tile.b[k] = static_cast<std::uint8_t>(code(op, b));
    return *this;
  }
  Builder& lane_codes(int k, std::uint64_t a, std::uint64_t b) {
    p.tile.a[k] = static_cast<std::uint8_t>(a);
    p.tile.b[k] = static_cast<std::uint8_t>(b);
    return *this;
  }
  Builder& c(double v) {
    p.tile.c[0] = static_cast<std::uint32_t>(code(dest, v));
    return *this;
  }
  Builder& c_code(std::uint64_t v) {
    p.tile.c[0] = static_cast<std::uint32_t>(v);
    return *this;
  }
};

std::uint64_t nan_of(Format f, bool negative) { return detail::nan_code(f, profiles::ocp, negative); }

void check_pair(Format operand, Format dest) {
  if (!(operand == formats::e4m3fn || operand == formats::e5m2))
    throw Error("mma probes: operand format " + format_name(operand) + " not offered; accepted: e4m3fn, e5m2");
  if (!(dest == formats::f32 || dest == formats::f16))
    throw Error("mma probes: destination " + format_name(dest) + " not offered; accepted: f32, f16");
}

/// One dot of tile `t` at (r, n) under `h` (cuda/mma_probe.hpp MmaCEntry).
std::uint32_t model_dot(const MmaHypothesis& h, Format operand, const MmaTile& t, int r, int n) {
  std::uint64_t a[kMmaTileK], b[kMmaTileK];
  for (int k = 0; k < kMmaTileK; ++k) {
    a[k] = t.a[r * kMmaTileK + k];
    b[k] = t.b[n * kMmaTileK + k];
  }
  const Format dest = h.model.dest;
  const std::uint64_t c = t.c[r * kMmaTileCols + n] & (dest.bits == 16 ? 0xffffu : 0xffffffffu);
  switch (h.c_entry) {
    case MmaCEntry::in_alignment:
      return static_cast<std::uint32_t>(tfdpa_dot(h.model, operand, a, operand, b, kMmaTileK, c).code);
    case MmaCEntry::ignored:
      return static_cast<std::uint32_t>(tfdpa_dot(h.model, operand, a, operand, b, kMmaTileK, 0).code);
    case MmaCEntry::added_after: {
      const std::uint64_t g = tfdpa_dot(h.model, operand, a, operand, b, kMmaTileK, 0).code;
      TfdpaModel wide = h.model;  // the two-term sum g·1 + C with 52 fraction bits, rounded as `out`
      wide.group = 1;
      wide.frac_bits = 52;
      const std::uint64_t one = code(dest, 1.0);
      return static_cast<std::uint32_t>(tfdpa_group(wide, dest, &g, dest, &one, 1, c).code);
    }
  }
  return 0;
}

}  // namespace

std::vector<MmaHypothesis> mma_hypotheses(Format dest) {
  namespace mm = mma_models;
  std::vector<MmaHypothesis> v;
  const bool f32 = dest == formats::f32;
  if (!f32 && !(dest == formats::f16))
    throw Error("mma hypotheses: destination " + format_name(dest) + " not offered; accepted: f32, f16");
  const TfdpaModel hop = f32 ? mm::hopper_fp8 : mm::hopper_fp8_f16_unvalidated;
  const TfdpaModel ada = f32 ? mm::ada_fp8 : mm::ada_fp8_f16;
  const std::string hn = hop.name;
  v.push_back({hn, hop, MmaCEntry::in_alignment});
  v.push_back({hn + "[C=+0]", hop, MmaCEntry::ignored});
  v.push_back({hn + "[C after]", hop, MmaCEntry::added_after});
  v.push_back({hn + "[zero_exponent=-133]", with_zero_exponent(hop, -133), MmaCEntry::in_alignment});
  v.push_back({hn + "[zero_exponent=-149]", with_zero_exponent(hop, -149), MmaCEntry::in_alignment});
  v.push_back({hn + "[overflow=rz_max]", with_overflow(hop, TfdpaOverflow::rz_max), MmaCEntry::in_alignment});
  // the zero rules (issue 26 item 4, TfdpaZeroRules): MMA-Sim's alternatives, one at a time and together
  TfdpaZeroRules relative, positive;
  relative.product = ZeroProductExponent::relative;
  positive.sign = ZeroResultSign::positive;
  v.push_back({hn + "[zero_product=relative]", with_zero_rules(hop, relative), MmaCEntry::in_alignment});
  v.push_back({hn + "[zero_sign=positive]", with_zero_rules(hop, positive), MmaCEntry::in_alignment});
  v.push_back({hn + "[zero=mma-sim]", with_zero_rules(hop, mma_sim_zero_rules), MmaCEntry::in_alignment});
  if (!f32) {  // an RNE output overflows to Inf under both TfdpaOverflow values; saturation is the alternative
    TfdpaModel sat = with_overflow(hop, TfdpaOverflow::rz_max);
    sat.out_rounding.overflow = Overflow::satfinite;
    v.push_back({hn + "[overflow=satfinite]", sat, MmaCEntry::in_alignment});
  }
  const std::uint64_t ieee_qnan = f32 ? 0x7fc00000u : 0x7e00u;
  v.push_back({hn + "[nan=" + hex(ieee_qnan) + "]", with_nan(hop, ieee_qnan), MmaCEntry::in_alignment});
  v.push_back({ada.name, ada, MmaCEntry::in_alignment});
  v.push_back({std::string(ada.name) + "[overflow=rz_max]", with_overflow(ada, TfdpaOverflow::rz_max),
               MmaCEntry::in_alignment});
  if (f32) {
    v.push_back({mm::blackwell_fp8.name, mm::blackwell_fp8, MmaCEntry::in_alignment});
    v.push_back(
        {mm::blackwell_tcgen05_fp8_unvalidated.name, mm::blackwell_tcgen05_fp8_unvalidated, MmaCEntry::in_alignment});
  }
  return v;
}

const MmaHypothesis& mma_hypothesis(Format dest, std::string_view name) {
  static const std::vector<MmaHypothesis> f32 = mma_hypotheses(formats::f32), f16 = mma_hypotheses(formats::f16);
  const auto& v = dest == formats::f16 ? f16 : f32;
  std::string names;
  for (const auto& h : v) {
    if (h.name == name) return h;
    (names += names.empty() ? "" : ", ") += h.name;
  }
  throw Error("unknown MMA hypothesis '" + quote_input(name) + "'; accepted: " + names);
}

std::vector<MmaProbe> mma_probes(Format operand, Format dest) {
  check_pair(operand, dest);
  const bool e5 = operand == formats::e5m2;
  const bool f32 = dest == formats::f32;
  std::vector<MmaProbe> v;
  auto B = [&](const char* q, std::string n) { return Builder(operand, dest, q, std::move(n)); };
  const double U = 128.0;  // 2^7: U·U = 2^14, one quantum at F = 13 is 2
  const double min_sub = e5 ? 0x1p-16 : 0x1p-9;
  const double max_op = e5 ? 57344.0 : 448.0;

  v.push_back(B("exact products", "1.25*1.25").lane(0, 1.25, 1.25).p);
  v.push_back(B("exact products", "1.75*1.25 + 1.25*-1.5").lane(0, 1.75, 1.25).lane(1, 1.25, -1.5).p);
  // F: U·U − U·U + 2^(14−j) keeps C while 2^(14−j) ≥ 2^(14−F)
  for (int j = 1; j <= 30; ++j) {
    const double cv = std::ldexp(1.0, 14 - j);
    if (!exact_in(dest, cv)) continue;
    v.push_back(
        B("F (fraction bits kept)", "U*U - U*U + 2^" + std::to_string(14 - j)).lane(0, U, U).lane(1, U, -U).c(cv).p);
  }
  for (double m : {0.75, -0.75, 1.5, -1.5, 2.5, -2.5})
    v.push_back(
        B("alignment rounding", "U*U - U*U + " + std::to_string(m) + "*2").lane(0, U, U).lane(1, U, -U).c(2 * m).p);
  {
    auto b = B("C in the alignment", "32 * (1*1) + 2^20");
    for (int k = 0; k < kMmaTileK; ++k) b.lane(k, 1.0, 1.0);
    if (exact_in(dest, 0x1p20)) v.push_back(b.c(0x1p20).p);
  }
  v.push_back(B("C in the alignment", "U*U + 1").lane(0, U, U).c(1.0).p);
  v.push_back(B("C in the alignment", "U*U + 2^-3").lane(0, U, U).c(0x1p-3).p);
  v.push_back(B("C in the alignment", "1*1 + 2^12 - 2^12 (C cancels a product)")
                  .lane(0, 1.0, 1.0)
                  .lane(1, 64.0, 64.0)
                  .c(-0x1p12)
                  .p);
  v.push_back(B("C in the alignment", "0 + 3 (zero products)").c(3.0).p);
  // group size: +U·U at lane i, −U·U at lane j, 2^-3·2^-3 elsewhere (one 32-group truncates them all)
  const int pairs[][2] = {{0, 1}, {0, 15}, {3, 12}, {16, 17}, {16, 31}, {0, 16}, {15, 31}, {7, 24}};
  for (const auto& ij : pairs) {
    auto b = B("group size (32 vs 16+16)",
               "+U*U at " + std::to_string(ij[0]) + ", -U*U at " + std::to_string(ij[1]) + ", 2^-6 elsewhere");
    for (int k = 0; k < kMmaTileK; ++k) b.lane(k, 0.125, 0.125);
    v.push_back(b.lane(ij[0], U, U).lane(ij[1], U, -U).p);
  }
  v.push_back(B("subnormal operands", "min_sub*min_sub").lane(0, min_sub, min_sub).p);
  v.push_back(
      B("subnormal operands", "min_sub*1 + min_sub*-0.5 (sub)").lane(0, min_sub, 1.0).lane(1, 2 * min_sub, -0.5).p);
  // zero-term exponent: zero products and a tiny C; tiny products and a tiny C
  for (int e : {-14, -20, -24, -120, -126, -127, -130, -133, -136, -139, -140, -145, -149}) {
    const double cv = std::ldexp(1.0, e);
    if (!exact_in(dest, cv)) continue;
    v.push_back(B("zero-term exponent", "zero products + 2^" + std::to_string(e)).c(cv).p);
    v.push_back(B("zero-term exponent", "min_sub*min_sub + 2^" + std::to_string(e)).lane(0, min_sub, min_sub).c(cv).p);
  }
  // zero-product exponent (issue 26 item 4a; not decided by the measured vectors): A = 0 (or B = 0), the other
  // factor 2^j, C = 2^-120·(1 + 2^-13) (f32 0x03800400). Constant −126: E = −120 (C), C kept. Relative
  // (−126 + j): C's 2^-133 bit survives while −126 + j ≤ −120 (j ≤ 6) and truncates from j = 7 on.
  if (f32) {
    const int js[] = {0, 6, 7, 8, 15};
    for (const int j : js) {
      const double other = std::ldexp(1.0, j);
      if (!exact_in(operand, other)) continue;
      auto b = B("zero-product exponent (constant or relative)", "32 * (0*2^" + std::to_string(j) + ") + C");
      for (int k = 0; k < kMmaTileK; ++k) b.lane(k, 0.0, other);
      v.push_back(b.c_code(0x03800400u).p);
      v.push_back(B("zero-product exponent (constant or relative)",
                    "2^" + std::to_string(j) + "*0 at lane 0, 0*0 elsewhere + C")
                      .lane(0, other, 0.0)
                      .c_code(0x03800400u)
                      .p);
    }
  }
  // NaN / Inf and the canonical NaN
  v.push_back(B("NaN/Inf and the canonical NaN", "NaN*1").lane_codes(0, nan_of(operand, false), code(operand, 1.0)).p);
  v.push_back(B("NaN/Inf and the canonical NaN", "-NaN*1").lane_codes(0, nan_of(operand, true), code(operand, 1.0)).p);
  v.push_back(B("NaN/Inf and the canonical NaN", "1*1 + NaN C (payload 1)")
                  .lane(0, 1.0, 1.0)
                  .c_code(f32 ? 0x7fc00001u : 0x7e01u)
                  .p);
  v.push_back(B("NaN/Inf and the canonical NaN", "1*1 + Inf C").lane(0, 1.0, 1.0).c_code(inf_code(dest)).p);
  v.push_back(
      B("NaN/Inf and the canonical NaN", "1*1 + -Inf C").lane(0, 1.0, 1.0).c_code(inf_code(dest, Sign::negative)).p);
  if (e5) {
    const std::uint64_t inf = inf_code(operand), ninf = inf_code(operand, Sign::negative);
    v.push_back(B("NaN/Inf and the canonical NaN", "Inf*1").lane_codes(0, inf, code(operand, 1.0)).p);
    v.push_back(B("NaN/Inf and the canonical NaN", "Inf*0").lane_codes(0, inf, 0).p);
    v.push_back(B("NaN/Inf and the canonical NaN", "Inf*1 + -Inf*1")
                    .lane_codes(0, inf, code(operand, 1.0))
                    .lane_codes(1, ninf, code(operand, 1.0))
                    .p);
    v.push_back(B("NaN/Inf and the canonical NaN", "Inf*1 + -Inf C")
                    .lane_codes(0, inf, code(operand, 1.0))
                    .c_code(inf_code(dest, Sign::negative))
                    .p);
  }
  // finite overflow of the accumulator
  {
    auto b = B("finite overflow", "32 * max*max");
    for (int k = 0; k < kMmaTileK; ++k) b.lane(k, max_op, max_op);
    v.push_back(b.p);
    auto n = B("finite overflow", "32 * max*-max");
    for (int k = 0; k < kMmaTileK; ++k) n.lane(k, max_op, -max_op);
    v.push_back(n.p);
  }
  v.push_back(B("finite overflow", "max_dest + 16*16").lane(0, 16.0, 16.0).c_code(f32 ? 0x7f7fffffu : 0x7bffu).p);
  // the sign of a zero result
  v.push_back(B("zero result sign", "U*U - U*U + -0").lane(0, U, U).lane(1, U, -U).c_code(sign_mask(dest)).p);
  v.push_back(B("zero result sign", "1*-1 + 1").lane(0, 1.0, -1.0).c(1.0).p);
  v.push_back(B("zero result sign", "zero products + -0").c_code(sign_mask(dest)).p);
  {
    auto b = B("zero result sign", "32 * (-0*+0) + -0");
    for (int k = 0; k < kMmaTileK; ++k) b.lane_codes(k, sign_mask(operand), 0);
    v.push_back(b.c_code(sign_mask(dest)).p);
  }
  {  // issue 26 item 4c as stated: A = +0, B = −0, C = −0 (MMA-Sim: +0)
    auto b = B("zero result sign", "32 * (+0*-0) + -0");
    for (int k = 0; k < kMmaTileK; ++k) b.lane_codes(k, 0, sign_mask(operand));
    v.push_back(b.c_code(sign_mask(dest)).p);
  }
  v.push_back(B("zero result sign", "-min_sub*min_sub + -0 (truncated away?)")
                  .lane(0, -min_sub, min_sub)
                  .c_code(sign_mask(dest))
                  .p);
  return v;
}

std::vector<MmaTile> mma_random_tiles(Format operand, Format dest, std::size_t n, std::uint64_t seed) {
  check_pair(operand, dest);
  std::mt19937_64 rng(seed);
  std::vector<MmaTile> v(n);
  const bool f32 = dest == formats::f32;
  for (std::size_t i = 0; i < n; ++i) {
    MmaTile& t = v[i];
    const bool raw = i % 2 == 0;
    auto operand_code = [&]() {
      for (;;) {
        const auto c = static_cast<std::uint8_t>(rng());
        if (raw || classify(operand, c) == Class::normal || classify(operand, c) == Class::subnormal ||
            classify(operand, c) == Class::zero)
          return c;
      }
    };
    for (auto& x : t.a) x = operand_code();
    for (auto& x : t.b) x = operand_code();
    for (auto& x : t.c) {
      if (raw) {
        x = static_cast<std::uint32_t>(rng()) & (f32 ? 0xffffffffu : 0xffffu);
      } else if (rng() % 8 == 0) {
        x = 0;
      } else {
        const int e = static_cast<int>(rng() % 41) - 20;
        const double m = 1.0 + static_cast<double>(rng() % 1024) / 1024.0;
        const double val = (rng() % 2 ? -1.0 : 1.0) * std::ldexp(m, e);
        x = static_cast<std::uint32_t>(convert(formats::f64, detail::bit_cast<std::uint64_t>(val), dest,
                                               RoundingSpec{Rounding::rne, Overflow::nonsat}, profiles::ocp)
                                           .code);
      }
    }
  }
  return v;
}

void mma_model_tile(const MmaHypothesis& h, Format operand, const MmaTile& t, std::uint32_t* d) {
  for (int r = 0; r < kMmaTileRows; ++r)
    for (int n = 0; n < kMmaTileCols; ++n) d[r * kMmaTileCols + n] = model_dot(h, operand, t, r, n);
}

void mma_emulate_from_fragments(const MmaHypothesis& h, Format operand, const MmaTile& t, std::uint32_t* d) {
  const bool f16 = h.model.dest == formats::f16;
  for (int row0 = 0; row0 < kMmaTileRows; row0 += 16) {
    // what the 32 lanes hold
    std::uint32_t ra[32][4], rb[32][2], rc[32][4] = {}, rc16[32][2] = {};
    for (int lane = 0; lane < 32; ++lane) {
      pack_a(t, row0, lane, ra[lane]);
      pack_b(t, lane, rb[lane]);
      if (f16) pack_c_f16(t, row0, lane, rc16[lane]);
      else pack_c_f32(t, row0, lane, rc[lane]);
    }
    // the tile the instruction sees, rebuilt from the registers alone
    MmaTile s;
    std::memset(&s, 0xa5, sizeof s);
    for (int lane = 0; lane < 32; ++lane) {
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) {
          const MmaPos p = mma_a_pos(lane, j, i);
          s.a[p.row * kMmaTileK + p.col] = static_cast<std::uint8_t>(ra[lane][j] >> (8 * i));
        }
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 4; ++i) {
          const MmaPos p = mma_b_pos(lane, j, i);
          s.b[p.col * kMmaTileK + p.row] = static_cast<std::uint8_t>(rb[lane][j] >> (8 * i));
        }
      if (f16) {
        for (int j = 0; j < 2; ++j)
          for (int hh = 0; hh < 2; ++hh) {
            const MmaPos p = mma_cd_f16_pos(lane, j, hh);
            s.c[p.row * kMmaTileCols + p.col] = (rc16[lane][j] >> (16 * hh)) & 0xffffu;
          }
      } else {
        for (int j = 0; j < 4; ++j) {
          const MmaPos p = mma_cd_f32_pos(lane, j);
          s.c[p.row * kMmaTileCols + p.col] = rc[lane][j];
        }
      }
    }
    // each lane's D registers, computed from the rebuilt slice, unpacked into d
    for (int lane = 0; lane < 32; ++lane) {
      if (f16) {
        std::uint32_t rd[2] = {0, 0};
        for (int j = 0; j < 2; ++j)
          for (int hh = 0; hh < 2; ++hh) {
            const MmaPos p = mma_cd_f16_pos(lane, j, hh);
            rd[j] |= (model_dot(h, operand, s, p.row, p.col) & 0xffffu) << (16 * hh);
          }
        unpack_d_f16(rd, row0, lane, d);
      } else {
        std::uint32_t rd[4];
        for (int j = 0; j < 4; ++j) {
          const MmaPos p = mma_cd_f32_pos(lane, j);
          rd[j] = model_dot(h, operand, s, p.row, p.col);
        }
        unpack_d_f32(rd, row0, lane, d);
      }
    }
  }
}

MmaReport mma_evaluate(Format operand, Format dest, const std::vector<MmaProbe>& probes, const std::uint32_t* probe_d,
                       const std::vector<MmaTile>& random, const std::uint32_t* random_d, std::string_view primary,
                       unsigned threads) {
  check_pair(operand, dest);
  const std::vector<MmaHypothesis> hs = mma_hypotheses(dest);
  const std::size_t H = hs.size(), P = probes.size(), R = random.size();
  if (!primary.empty()) (void)mma_hypothesis(dest, primary);
  // probe_ok[h·P + p]: hypothesis h reproduces probe tile p; rnd[h·R + r]: mismatching dots of random tile r
  std::vector<char> probe_ok(H * P, 0);
  std::vector<std::uint32_t> rnd(H * R, 0);
  std::vector<std::uint32_t> probe_model(H * P * kDots);
  const std::size_t jobs = H * (P + R);
  threads = resolve_threads(threads);
  auto work = [&](unsigned w) {
    std::uint32_t d[kDots];
    for (std::size_t job = w; job < jobs; job += threads) {
      const std::size_t h = job / (P + R), i = job % (P + R);
      if (i < P) {
        mma_model_tile(hs[h], operand, probes[i].tile, &probe_model[(h * P + i) * kDots]);
        probe_ok[h * P + i] = std::memcmp(&probe_model[(h * P + i) * kDots], probe_d + i * kDots, sizeof d) == 0;
      } else {
        const std::size_t r = i - P;
        mma_model_tile(hs[h], operand, random[r], d);
        std::uint32_t bad = 0;
        for (int k = 0; k < kDots; ++k) bad += d[k] != random_d[r * kDots + k];
        rnd[h * R + r] = bad;
      }
    }
  };
  parallel_for(threads, work);

  MmaReport rep;
  rep.probe_tiles = P;
  rep.random_tiles = R;
  rep.primary = std::string(primary);
  for (std::size_t p = 0; p < P; ++p) {
    auto it = std::find_if(rep.findings.begin(), rep.findings.end(),
                           [&](const MmaFinding& f) { return f.question == probes[p].question; });
    if (it == rep.findings.end()) {
      rep.findings.push_back({probes[p].question, 0, {}});
      it = rep.findings.end() - 1;
    }
    ++it->probes;
  }
  for (MmaFinding& f : rep.findings)
    for (std::size_t h = 0; h < H; ++h) {
      bool all = true;
      for (std::size_t p = 0; p < P; ++p)
        if (probes[p].question == f.question && !probe_ok[h * P + p]) all = false;
      if (all) f.supported.push_back(hs[h].name);
    }
  for (std::size_t h = 0; h < H; ++h) {
    std::uint64_t n = 0;
    for (std::size_t r = 0; r < R; ++r) n += rnd[h * R + r];
    rep.random_mismatches.emplace_back(hs[h].name, n);
  }
  if (!primary.empty()) {
    std::size_t h = 0;
    while (hs[h].name != primary) ++h;
    for (std::size_t p = 0; p < P; ++p)
      for (int k = 0; k < kDots; ++k) {
        const std::uint32_t want = probe_model[(h * P + p) * kDots + k], got = probe_d[p * kDots + k];
        if (got == want) continue;
        ++rep.primary_mismatches;
        if (rep.first.size() < 16)
          rep.first.push_back("probe '" + probes[p].name + "' (" + std::to_string(k / kMmaTileCols) + "," +
                              std::to_string(k % kMmaTileCols) + "): device " + hex(got) + " model " + hex(want));
      }
    std::uint32_t d[kDots];
    for (std::size_t r = 0; r < R; ++r) {
      if (rnd[h * R + r] == 0) continue;
      rep.primary_mismatches += rnd[h * R + r];
      if (rep.first.size() >= 16) continue;
      mma_model_tile(hs[h], operand, random[r], d);
      for (int k = 0; k < kDots && rep.first.size() < 16; ++k)
        if (d[k] != random_d[r * kDots + k])
          rep.first.push_back("random tile " + std::to_string(r) + " (" + std::to_string(k / kMmaTileCols) + "," +
                              std::to_string(k % kMmaTileCols) + "): device " + hex(random_d[r * kDots + k]) +
                              " model " + hex(d[k]));
    }
  }
  return rep;
}

}  // namespace minifloat::cuda
