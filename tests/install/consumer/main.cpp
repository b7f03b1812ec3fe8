// SPDX-License-Identifier: Apache-2.0
// main.cpp: install consumer; encodes/decodes a few values and checks them against spec literals
// (OCP OFP8 v1.0 Table 1, OCP MX v1.0 §5); exits 1 on a mismatch.
#include <cstdint>
#include <cstdio>

#ifdef CONSUMER_CORE_ONLY
#include <minifloat/core/core.hpp>  // the header-only, device-safe core (minifloat::core)
#else
#include <minifloat/minifloat.hpp>  // the whole public library (minifloat::minifloat)
#include <span>
#include <vector>
#endif
#ifdef CONSUMER_CHECK
#include <minifloat/check/check.hpp>  // the kernel checker (minifloat::check)
#endif

namespace mf = minifloat;

// The core is constexpr: checked at compile time. 464 (f32 0x43e80000) → e4m3fn 0x7e (trap T1).
static_assert(mf::convert(mf::formats::f32, 0x43e80000, mf::formats::e4m3fn).code == 0x7e);
static_assert(mf::max_finite_magnitude(mf::formats::e5m2) == 0x7b);

namespace {
int failures = 0;
void check(const char* what, std::uint64_t got, std::uint64_t want) {
  std::printf("%-36s got 0x%llx want 0x%llx%s\n", what, static_cast<unsigned long long>(got),
              static_cast<unsigned long long>(want), got == want ? "" : "  MISMATCH");
  if (got != want) ++failures;
}
}  // namespace

int main() {
  check("448 -> e4m3fn", mf::from_double(448.0, mf::formats::e4m3fn).code, 0x7e);
  check("57344 -> e5m2", mf::from_float(57344.f, mf::formats::e5m2).code, 0x7b);
  check("6 -> e2m1fn", mf::from_double(6.0, mf::formats::e2m1fn).code, 0x7);
  check("1 -> e8m0fnu", mf::from_double(1.0, mf::formats::e8m0fnu).code, 0x7f);
  check("-1 -> e4m3fn", mf::from_double(-1.0, mf::formats::e4m3fn).code, 0xb8);
  check("decode e4m3fn 0x7e == 448", mf::to_double(mf::formats::e4m3fn, 0x7e) == 448.0, 1);
  check("decode e5m2 0x7b == 57344", mf::to_float(mf::formats::e5m2, 0x7b) == 57344.f, 1);
#ifndef CONSUMER_CORE_ONLY
  check("parse_format(\"float8_e4m3fn\")", mf::parse_format("float8_e4m3fn") == mf::formats::e4m3fn, 1);
  const std::vector<float> in = {448.f, 464.f, -0.f};
  std::vector<std::uint8_t> out(in.size());
  const mf::Flags f = mf::convert_f32(in, out, mf::formats::e4m3fn);
  check("span 448 -> e4m3fn", out[0], 0x7e);
  check("span 464 -> e4m3fn", out[1], 0x7e);
  check("span -0 -> e4m3fn", out[2], 0x80);
  check("span flags", f, mf::flag_inexact);
#endif
#ifdef CONSUMER_CHECK
  const mf::check::Target t{.from = mf::formats::f32, .to = mf::formats::e4m3fn};
  check("check::expected 464 -> e4m3fn", mf::check::expected(t, mf::check::Case{.input = 0x43e80000}).code, 0x7e);
  check("check: a correct kernel passes",
        mf::check::check([](std::uint64_t x) { return mf::convert(mf::formats::f32, x, mf::formats::e4m3fn).code; }, t,
                         mf::check::Options{.gen = {.count = 4096}}).ok(), 1);
#endif
  std::printf("install consumer: %s\n", failures == 0 ? "ok" : "MISMATCH");
  return failures == 0 ? 0 : 1;
}
