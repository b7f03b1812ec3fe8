// SPDX-License-Identifier: Apache-2.0
// arith_property_test.cpp: RapidCheck properties for f16/bf16/f32/f64 and mixed-format arithmetic,
// each case checked against the MPFR oracle (tests/arith/mpfr_oracle.*).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>

#include "minifloat/core/arith.hpp"
#include "minifloat/core/format.hpp"
#include "mpfr_oracle.hpp"

namespace minifloat_test {
namespace {

namespace mf = minifloat;
namespace ao = arith_oracle;

struct FormatPair {
  mf::Format engine;
  ao::OFormat oracle;
};
const FormatPair kWide[] = {{mf::formats::f16, ao::formats::f16},
                            {mf::formats::bf16, ao::formats::bf16},
                            {mf::formats::f32, ao::formats::f32},
                            {mf::formats::f64, ao::formats::f64},
                            {mf::formats::e4m3fn, ao::formats::e4m3fn},
                            {mf::formats::e5m2, ao::formats::e5m2},
                            {mf::formats::e2m1fn, ao::formats::e2m1fn}};
constexpr mf::Rounding kEngineModes[] = {mf::Rounding::rne, mf::Rounding::rna, mf::Rounding::rtz,
                                         mf::Rounding::rtp, mf::Rounding::rtn, mf::Rounding::rto};
constexpr ao::Mode kOracleModes[] = {ao::Mode::rne, ao::Mode::rna, ao::Mode::rtz,
                                     ao::Mode::rtp, ao::Mode::rtn, ao::Mode::rto};

std::uint64_t mask(const mf::Format& f) { return f.bits >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << f.bits) - 1); }

/// A code of f: uniform bits, or a code near `near` (cancellation and ties), or a small or
/// huge magnitude.
rc::Gen<std::uint64_t> code_of(const mf::Format& f, std::uint64_t near) {
  const std::uint64_t m = mask(f);
  return rc::gen::oneOf(rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [m](std::uint64_t x) { return x & m; }),
                        rc::gen::map(rc::gen::inRange<std::int64_t>(-40, 40),
                                     [m, near, f](std::int64_t d) {
                                       // same magnitude neighbourhood, either sign
                                       const std::uint64_t s = f.is_signed ? (std::uint64_t{1} << (f.bits - 1)) : 0;
                                       return ((near & ~s) + static_cast<std::uint64_t>(d)) & m;
                                     }),
                        rc::gen::map(rc::gen::inRange<std::uint64_t>(0, 64), [m](std::uint64_t x) { return x & m; }));
}

bool same(const mf::RoundResult& got, const ao::Result& want) {
  return got.code == want.code && ((got.flags & mf::flag_inexact) != 0) == want.inexact &&
         ((got.flags & mf::flag_underflow) != 0) == want.underflow &&
         ((got.flags & mf::flag_overflow) != 0) == want.overflow &&
         ((got.flags & mf::flag_invalid) != 0) == want.invalid;
}

// Oracle: MPFR. Operands and result may each be any of the formats above (mixed-format API).
RC_GTEST_PROP(ArithProperty, MixedFormatsMatchMpfr, ()) {
  const auto ia = *rc::gen::inRange<std::size_t>(0, std::size(kWide));
  const auto ib = *rc::gen::inRange<std::size_t>(0, std::size(kWide));
  const auto ic = *rc::gen::inRange<std::size_t>(0, std::size(kWide));
  const auto io = *rc::gen::inRange<std::size_t>(0, 4);  // result: f16 bf16 f32 f64
  const auto op = static_cast<ao::Op>(*rc::gen::inRange(0, 6));
  const auto m = *rc::gen::inRange<std::size_t>(0, 6);
  const FormatPair &A = kWide[ia], &B = kWide[ib], &C = kWide[ic], &O = kWide[io];
  const std::uint64_t a = *code_of(A.engine, 0);
  const std::uint64_t b = *code_of(B.engine, a);
  const std::uint64_t c = *code_of(C.engine, a);
  const mf::RoundingSpec spec{kEngineModes[m]};
  mf::RoundResult got;
  switch (op) {
    case ao::Op::add: got = mf::add(A.engine, a, B.engine, b, O.engine, spec); break;
    case ao::Op::sub: got = mf::sub(A.engine, a, B.engine, b, O.engine, spec); break;
    case ao::Op::mul: got = mf::mul(A.engine, a, B.engine, b, O.engine, spec); break;
    case ao::Op::div: got = mf::div(A.engine, a, B.engine, b, O.engine, spec); break;
    case ao::Op::sqrt: got = mf::sqrt(A.engine, a, O.engine, spec); break;
    case ao::Op::fma: got = mf::fma(A.engine, a, B.engine, b, C.engine, c, O.engine, spec); break;
  }
  const ao::Result want = ao::compute(op, A.oracle, a, B.oracle, b, C.oracle, c, O.oracle, kOracleModes[m]);
  RC_LOG() << A.oracle.name << " " << B.oracle.name << " " << C.oracle.name << " -> " << O.oracle.name << " op "
           << static_cast<int>(op) << " mode " << m << std::hex << " a=0x" << a << " b=0x" << b << " c=0x" << c
           << " want 0x" << want.code << " got 0x" << got.code << std::dec << " wantflags " << want.inexact
           << want.underflow << want.overflow << want.invalid << " gotflags " << static_cast<int>(got.flags) << "\n";
  RC_ASSERT(same(got, want));
}

// Oracle: MPFR. f64 fma where the product and the addend nearly cancel (needs the full 106-bit
// product plus the addend: the 160-bit exactness case).
RC_GTEST_PROP(ArithProperty, F64FmaCancellationMatchesMpfr, ()) {
  const std::uint64_t a = *rc::gen::arbitrary<std::uint64_t>() & 0x3fffffffffffffffull;  // finite, |a| < 2
  const std::uint64_t b = *rc::gen::arbitrary<std::uint64_t>() & 0x3fffffffffffffffull;
  const auto m = *rc::gen::inRange<std::size_t>(0, 6);
  // c ≈ −a·b: the rne product, perturbed by a few ulps
  const mf::RoundResult p = mf::mul(mf::formats::f64, a, b);
  const std::uint64_t c = (p.code ^ 0x8000000000000000ull) + static_cast<std::uint64_t>(*rc::gen::inRange(-3, 4));
  const mf::RoundResult got = mf::fma(mf::formats::f64, a, b, c, mf::RoundingSpec{kEngineModes[m]});
  const ao::Result want = ao::compute(ao::Op::fma, ao::formats::f64, a, ao::formats::f64, b, ao::formats::f64, c,
                                      ao::formats::f64, kOracleModes[m]);
  RC_LOG() << std::hex << "a=0x" << a << " b=0x" << b << " c=0x" << c << " want 0x" << want.code << " got 0x"
           << got.code << "\n";
  RC_ASSERT(same(got, want));
}

}  // namespace
}  // namespace minifloat_test
