// SPDX-License-Identifier: Apache-2.0
// presets_issue26_test.cpp: the presets of issue 26 item 6 (tcgen05 f8f6f4 with an f16 D, RTX Blackwell
// block-scaled mma), each with a value derived by hand from its parameters (MMA-Sim c785138
// mmasim/simulator/nv_ptx.py tcgen05mma / mma_block_scale, arithmetic.py nv_fused_dot_add and
// nv_fused_dot_add_with_block_scale) that its nearest neighbour preset does not give.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "minifloat/core/tfdpa.hpp"

namespace minifloat_test {
namespace {

using namespace minifloat;

// tcgen05 f8f6f4, f16 D (L = 32, F = 25, RNE to f16). e4m3 lanes 16·16 = 256, 0.25·1, 0.125·1 and
// −2^-9·2^-9 = −2^-18; E = 8, quantum 2^-17: −2^-18 (−0.5 quanta) truncates to 0, the sum 256.375 is the
// f16 tie between 256.25 (0x5c01) and 256.5 (0x5c02) → even 0x5c02. blackwell-fp8-f16-unvalidated
// (F = 30, quantum 2^-22) keeps −2^-18: below the tie → 0x5c01.
TEST(Issue26Presets, Tcgen05Fp8F16KeepsTwentyFiveBits) {
  std::vector<std::uint64_t> a(32, 0), b(32, 0);
  a[0] = 0x58, b[0] = 0x58;  // 16 · 16
  a[1] = 0x28, b[1] = 0x38;  // 0.25 · 1
  a[2] = 0x20, b[2] = 0x38;  // 0.125 · 1
  a[3] = 0x81, b[3] = 0x01;  // −2^-9 · 2^-9
  const TfdpaModel& m = mma_models::blackwell_tcgen05_fp8_f16_unvalidated;
  EXPECT_EQ(tfdpa_dot(m, formats::e4m3fn, a.data(), formats::e4m3fn, b.data(), 32, 0).code, 0x5c02u);
  EXPECT_EQ(tfdpa_dot(mma_models::blackwell_fp8_f16_unvalidated, formats::e4m3fn, a.data(), formats::e4m3fn,
                      b.data(), 32, 0)
                .code,
            0x5c01u);
}

// RTX Blackwell mxf8f6f4 (L = 32, F = 25, UE8M0 per 32, RZ-FP32). (1) 1·1 and 2^-9·2^-9 with s_a = 2^1
// (code 128), s_b = 2^0 (127): 2 + 2^-17, E = 1, quantum 2^-24 keeps 2^-17 → 0x40000020 (32 ulps of 2).
// (2) 256·256 (0x78) and 2^-9·2^-9, unit scales: E = 16, quantum 2^-9, 2^-18 truncated → 65536 (0x47800000).
TEST(Issue26Presets, RtxBlackwellMxf8f6f4) {
  const TfdpaModel& m = mma_models::rtx_blackwell_mxf8f6f4_unvalidated;
  std::vector<std::uint64_t> a(32, 0), b(32, 0);
  a[0] = 0x38, b[0] = 0x38, a[1] = 0x01, b[1] = 0x01;
  const std::uint64_t sa = 128, sb = 127, one = 127;
  EXPECT_EQ(tfdpa_dot(m, formats::e4m3fn, a.data(), formats::e4m3fn, b.data(), 32, 0, &sa, &sb).code, 0x40000020u);
  a[0] = 0x78, b[0] = 0x78;
  EXPECT_EQ(tfdpa_dot(m, formats::e4m3fn, a.data(), formats::e4m3fn, b.data(), 32, 0, &one, &one).code, 0x47800000u);
}

// RTX Blackwell mxf4 (L = 64, exact 16-lane sums, F = 35, UE8M0 per 32): lane 0 1·1 and lane 32 −1·1,
// both blocks scaled 2^20 (code 147) on A: terms +2^20 and −2^20 at exponent 20 (the empty subblocks too),
// C = 2^-14 (0x38800000): quantum 2^(20−35) = 2^-15 keeps C → 0x38800000. With F = 25 (quantum 2^-5) C
// would truncate to +0: the 35 bits are what the case shows.
TEST(Issue26Presets, RtxBlackwellMxf4) {
  TfdpaModel m = mma_models::rtx_blackwell_mxf4_unvalidated;
  std::vector<std::uint64_t> a(64, 0), b(64, 0);
  a[0] = 0x2, b[0] = 0x2;    // e2m1 1 · 1
  a[32] = 0xa, b[32] = 0x2;  // −1 · 1
  const std::uint64_t sa[2] = {147, 147}, sb[2] = {127, 127};
  EXPECT_EQ(tfdpa_dot(m, formats::e2m1fn, a.data(), formats::e2m1fn, b.data(), 64, 0x38800000u, sa, sb).code,
            0x38800000u);
  m.frac_bits = 25;
  EXPECT_EQ(tfdpa_dot(m, formats::e2m1fn, a.data(), formats::e2m1fn, b.data(), 64, 0x38800000u, sa, sb).code, 0u);
}

// RTX Blackwell nvf4 (L = 64, UE4M3 per 16, F = 35): lane 0 1·1 with s_a = 256 (ue4m3 0x78), lane 16 −1·1
// with s_a = 256, the other scales 1 (0x38): terms ±256 at exponent 8, C = 2^-18 (0x36800000): quantum
// 2^(8−35) = 2^-27 keeps C → 0x36800000 (F = 25, quantum 2^-17: +0).
TEST(Issue26Presets, RtxBlackwellNvf4) {
  TfdpaModel m = mma_models::rtx_blackwell_nvf4_unvalidated;
  std::vector<std::uint64_t> a(64, 0), b(64, 0);
  a[0] = 0x2, b[0] = 0x2;
  a[16] = 0xa, b[16] = 0x2;
  const std::uint64_t sa[4] = {0x78, 0x78, 0x38, 0x38}, sb[4] = {0x38, 0x38, 0x38, 0x38};
  EXPECT_EQ(tfdpa_dot(m, formats::e2m1fn, a.data(), formats::e2m1fn, b.data(), 64, 0x36800000u, sa, sb).code,
            0x36800000u);
  m.frac_bits = 25;
  EXPECT_EQ(tfdpa_dot(m, formats::e2m1fn, a.data(), formats::e2m1fn, b.data(), 64, 0x36800000u, sa, sb).code, 0u);
}

}  // namespace
}  // namespace minifloat_test
