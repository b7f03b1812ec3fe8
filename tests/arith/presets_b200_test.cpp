// SPDX-License-Identifier: Apache-2.0
// presets_b200_test.cpp: issue 26 item 5, the B200 FP8 mma.sync rule (TfdpaStructure::late_c, preset
// blackwell-fp8-late-c): the products' fused sum rounded RZ to FP32, then C added with one RNE. Values derived
// by hand from that rule (core/tfdpa.hpp, the blackwell_fp8_late_c comment), each one that blackwell-fp8 (C
// inside the alignment) does not give; and the two B200-E5M2 lines that decided the rule.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "minifloat/core/tfdpa.hpp"

namespace minifloat_test {
namespace {

using namespace minifloat;

std::uint64_t dot32(const TfdpaModel& m, Format f, const std::vector<std::uint64_t>& a,
                    const std::vector<std::uint64_t>& b, std::uint64_t c) {
  return tfdpa_dot(m, f, a.data(), f, b.data(), 32, c).code;
}

// The product sum is rounded toward zero before C is added. e4m3 lanes 16·16 = 256 (0x58) and
// 2^-9·(−2^-8) = −2^-17 (0x01, 0x82 subnormals), C = +0. E = 8, F = 25: quantum 2^-17 keeps −2^-17, so
// P = 256 − 2^-17; FP32's ulp below 256 is 2^-16, RZ → 256 − 2^-16 = 0x437fffff; + 0 → 0x437fffff.
// blackwell-fp8 (F = 30) rounds the exact 256 − 2^-17 once, RNE: the tie between 0x437fffff and
// 0x43800000 → even 0x43800000.
TEST(BlackwellLateC, ProductSumRoundsTowardZeroFirst) {
  std::vector<std::uint64_t> a(32, 0), b(32, 0);
  a[0] = 0x58, b[0] = 0x58;
  a[1] = 0x01, b[1] = 0x82;
  EXPECT_EQ(dot32(mma_models::blackwell_fp8_late_c, formats::e4m3fn, a, b, 0), 0x437fffffu);
  EXPECT_EQ(dot32(mma_models::blackwell_fp8, formats::e4m3fn, a, b, 0), 0x43800000u);
}

// C keeps all its bits. Lanes 16·16 = 256 only, C = 2^-16·(1 + 2^-23) = 0x37800001. The FP32 add:
// 256 + 2^-16 + 2^-39, above the tie 256 + 2^-16 (ulp 2^-15) → 0x43800001. blackwell-fp8 aligns C to
// quantum 2^(8−30) = 2^-22, dropping 2^-39: the tie → even 0x43800000.
TEST(BlackwellLateC, CKeepsEveryBit) {
  std::vector<std::uint64_t> a(32, 0), b(32, 0);
  a[0] = 0x58, b[0] = 0x58;
  EXPECT_EQ(dot32(mma_models::blackwell_fp8_late_c, formats::e4m3fn, a, b, 0x37800001u), 0x43800001u);
  EXPECT_EQ(dot32(mma_models::blackwell_fp8, formats::e4m3fn, a, b, 0x37800001u), 0x43800000u);
}

// C takes no part in the alignment, so a large C does not truncate the products. Lanes 8·8 = 64 (0x50) and
// 2^-8·2^-8 = 2^-16 (0x02 subnormals), C = 2^30 (0x4e800000). P: E = 6, quantum 2^-19, P = 64 + 2^-16 is
// exact in FP32 (ulp 2^-17); C + P = 2^30 + 64 + 2^-16 lies above the tie 2^30 + 64 (ulp 2^7) → 0x4e800001.
// blackwell-fp8: E = 30, quantum 2^0 truncates 2^-16 away, 2^30 + 64 is the tie → even 0x4e800000.
TEST(BlackwellLateC, CIsNotInTheAlignment) {
  std::vector<std::uint64_t> a(32, 0), b(32, 0);
  a[0] = 0x50, b[0] = 0x50;
  a[1] = 0x02, b[1] = 0x02;
  EXPECT_EQ(dot32(mma_models::blackwell_fp8_late_c, formats::e4m3fn, a, b, 0x4e800000u), 0x4e800001u);
  EXPECT_EQ(dot32(mma_models::blackwell_fp8, formats::e4m3fn, a, b, 0x4e800000u), 0x4e800000u);
}

// The two B200-E5M2 lines blackwell-fp8 misses (MATLAB-tensor-core b12b5a7
// model_validation/B200/E5M2/{a,b}_B200_E5M2.txt, c_B200_fp32.txt, d_B200_fp32.txt lines 3936 and 4631, BSD-2;
// the e5m2 codes of the a/b words). The arithmetic (blackwell_fp8_late_c comment in core/tfdpa.hpp):
//   3936: P = −9827841.75·2^-20, RZ → −9827841·2^-20; C = 530052.9375·2^-20; C + P = −9297788.0625·2^-20 →
//         RNE 0xc10ddf7c (measured). Fused: −9297788.8125·2^-20 → 0xc10ddf7d.
//   4631: P = −16687104·2^-25 exact; C = 168842.546875·2^-25; C + P = −16518261.453125·2^-25 → 0xbefc0c75
//         (measured). Fused with F = 30: C loses 3·2^-31, the tie −16518261.5·2^-25 → even 0xbefc0c76.
TEST(BlackwellLateC, TheTwoB200E5M2Lines) {
  const std::vector<std::uint64_t> a3936 = {0xc0, 0xb8, 0xb9, 0xb5, 0xa7, 0x2c, 0x3b, 0xb6, 0x3d, 0x2c, 0x40,
                                            0xba, 0xa9, 0x38, 0x39, 0xbd, 0xb6, 0x38, 0xbc, 0x3c, 0x33, 0x38,
                                            0xbe, 0x3d, 0xb2, 0x39, 0x39, 0x27, 0xbd, 0xbf, 0xbc, 0xb9};
  const std::vector<std::uint64_t> b3936 = {0x37, 0xbb, 0xb6, 0x35, 0x04, 0xb8, 0x30, 0xb7, 0x3b, 0xbc, 0xbc,
                                            0xbc, 0xbe, 0x3c, 0xba, 0x38, 0xb4, 0xc0, 0x35, 0xb7, 0x3c, 0xc0,
                                            0x32, 0xb7, 0x34, 0xaf, 0xbb, 0x3b, 0x3d, 0x3b, 0x39, 0x3e};
  const std::vector<std::uint64_t> a4631 = {0x37, 0x3b, 0xa9, 0x3f, 0xbd, 0x3b, 0xb8, 0x31, 0xbc, 0xb6, 0xbd,
                                            0xba, 0x39, 0x31, 0x35, 0xb2, 0x36, 0x30, 0xb7, 0x38, 0xbc, 0x38,
                                            0x3c, 0xbc, 0x1a, 0x31, 0x35, 0xb8, 0xb5, 0x41, 0xc0, 0xc0};
  const std::vector<std::uint64_t> b4631 = {0x2b, 0xb6, 0xb5, 0x30, 0x38, 0x38, 0x35, 0xbd, 0xbb, 0xbe, 0x41,
                                            0xbc, 0xac, 0x3a, 0xb2, 0x33, 0xb6, 0xbd, 0xba, 0xa8, 0xbc, 0xb9,
                                            0x2e, 0x37, 0x3d, 0xb9, 0x37, 0xb6, 0x3d, 0x38, 0x39, 0xb7};
  const TfdpaModel& late = mma_models::blackwell_fp8_late_c;
  EXPECT_EQ(dot32(late, formats::e5m2, a3936, b3936, 0x3f01684fu), 0xc10ddf7cu);
  EXPECT_EQ(dot32(late, formats::e5m2, a4631, b4631, 0x3ba4e2a3u), 0xbefc0c75u);
  EXPECT_EQ(dot32(mma_models::blackwell_fp8, formats::e5m2, a3936, b3936, 0x3f01684fu), 0xc10ddf7du);
  EXPECT_EQ(dot32(mma_models::blackwell_fp8, formats::e5m2, a4631, b4631, 0x3ba4e2a3u), 0xbefc0c76u);
}

// FP8 mma.sync with an f16 D (late_c_pairs): the lanes i mod 4 in {0, 1} are summed first, from C = +0, and
// rounded RNE to f16; then the other lanes with that result. e4m3 lanes 0: 16·16 = 256 (0x58), 1: 0.125·1
// (0x20·0x38), 2: 0.125·1, C = +0. First group (lanes 0, 1): 256.125, the f16 tie between 256 and 256.25 (ulp
// 0.25) → even 256. Second (lane 2 + 256): 256.125 → 256 again; + C = 256 → 0x5c00. One group of 32
// (hopper-fp8-f16-unvalidated, F = 13: quantum 2^-5 keeps 0.125) rounds 256.25 once → 0x5c01, and so would
// consecutive halves (lanes 0-2 in the first) or the halves in the other order (0.125, then 256.25).
TEST(BlackwellLateC, F16DestinationSumsLanePairsFirst) {
  std::vector<std::uint64_t> a(32, 0), b(32, 0);
  a[0] = 0x58, b[0] = 0x58;
  a[1] = 0x20, b[1] = 0x38;
  a[2] = 0x20, b[2] = 0x38;
  for (const TfdpaModel* m : {&mma_models::hopper_fp8_f16_mma_sync, &mma_models::blackwell_fp8_f16_mma_sync})
    EXPECT_EQ(dot32(*m, formats::e4m3fn, a, b, 0), 0x5c00u) << m->name;
  EXPECT_EQ(dot32(mma_models::hopper_fp8_f16_unvalidated, formats::e4m3fn, a, b, 0), 0x5c01u);
  // C is added last, by one more RNE: C = 0.125 (f16 0x3000) → 256.125 → 256 (0x5c00); C inside the first
  // group would give the same here, and lane 1 moved to lane 3 (second group) gives 256 + 0.25 = 0x5c01
  EXPECT_EQ(dot32(mma_models::hopper_fp8_f16_mma_sync, formats::e4m3fn, a, b, 0x3000), 0x5c00u);
  std::swap(a[1], a[3]);
  std::swap(b[1], b[3]);
  EXPECT_EQ(dot32(mma_models::hopper_fp8_f16_mma_sync, formats::e4m3fn, a, b, 0), 0x5c01u);
}

}  // namespace
}  // namespace minifloat_test
