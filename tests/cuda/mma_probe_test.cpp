// SPDX-License-Identifier: Apache-2.0
// mma_probe_test.cpp (label cuda-host): the host side of device-check stage S5 without a GPU.
//   - the fragment layouts of cuda/mma_fragments.hpp are bijections onto the tiles, and agree with the
//     PTX ISA's mma.m16n8k32 layout at the positions the MATLAB-tensor-core harness
//     (model_validation/CUDA/mma_fp8_output_fp32.cu, BSD-2) fills by hand: lanes 0..3 hold A row 0 /
//     B column 0 at k = 4t..4t+3 (register 0) and k = 16+4t.. (A register 2, B register 1); D[0] of lane 0
//     is D(0,0);
//   - packing every lane's registers, rebuilding the tile from the registers alone, computing and
//     unpacking D reproduces the model on the tile (mma_emulate_from_fragments == mma_model_tile);
//   - the probes discriminate: each question has hypotheses that disagree on it, and the values
//     training-sim.md §1.6 derives by hand for the Hopper rule (P1, P2, P4, P5) come out of the model;
//   - mma_evaluate round-trips: results computed by hypothesis X are attributed to X, and one corrupted
//     dot counts as one mismatch;
//   - the registry names of cuda::Path, Relu and HwCvt (parse(name(x)) == x, the PTX spellings).
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "minifloat/cuda/api.hpp"
#include "minifloat/cuda/mma_fragments.hpp"
#include "minifloat/cuda/mma_probe.hpp"
#include "minifloat/cuda/names.hpp"
#include "minifloat/error.hpp"
#include "minifloat/registry.hpp"

namespace {

namespace mf = minifloat;
namespace mc = minifloat::cuda;
namespace formats = minifloat::formats;
constexpr int kDots = mc::kMmaTileRows * mc::kMmaTileCols;

TEST(MmaFragments, LayoutsAreBijectionsOntoTheTiles) {
  std::set<std::pair<int, int>> a, b, c32, c16;
  for (int lane = 0; lane < 32; ++lane) {
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        const auto p = mc::mma_a_pos(lane, j, i);
        EXPECT_TRUE(p.row >= 0 && p.row < 16 && p.col >= 0 && p.col < 32);
        a.insert({p.row, p.col});
      }
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 4; ++i) {
        const auto p = mc::mma_b_pos(lane, j, i);
        EXPECT_TRUE(p.row >= 0 && p.row < 32 && p.col >= 0 && p.col < 8);
        b.insert({p.row, p.col});
      }
    for (int j = 0; j < 4; ++j) c32.insert({mc::mma_cd_f32_pos(lane, j).row, mc::mma_cd_f32_pos(lane, j).col});
    for (int j = 0; j < 2; ++j)
      for (int h = 0; h < 2; ++h) c16.insert({mc::mma_cd_f16_pos(lane, j, h).row, mc::mma_cd_f16_pos(lane, j, h).col});
  }
  EXPECT_EQ(a.size(), 16u * 32u);
  EXPECT_EQ(b.size(), 32u * 8u);
  EXPECT_EQ(c32.size(), 16u * 8u);
  EXPECT_EQ(c16.size(), 16u * 8u);
  std::set<int> off;
  for (int n = 0; n < 8; ++n)
    for (int k = 0; k < 32; ++k) off.insert(mc::wgmma_b_offset(n, k));
  EXPECT_EQ(off.size(), 256u);
  EXPECT_EQ(*off.begin(), 0);
  EXPECT_EQ(*off.rbegin(), mc::kWgmmaBBytes - 1);
  // descriptor fields: start >> 4, LBO = SBO = 128 bytes (>> 4 = 8), no swizzle
  const std::uint64_t d = mc::wgmma_b_descriptor(0x400);
  EXPECT_EQ(d & 0x3fff, 0x40u);
  EXPECT_EQ((d >> 16) & 0x3fff, 8u);
  EXPECT_EQ((d >> 32) & 0x3fff, 8u);
  EXPECT_EQ(d >> 62, 0u);
}

TEST(MmaFragments, MatchTheHarnessPositions) {
  for (int t = 0; t < 4; ++t)
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(mc::mma_a_pos(t, 0, i).row, 0);
      EXPECT_EQ(mc::mma_a_pos(t, 0, i).col, 4 * t + i);
      EXPECT_EQ(mc::mma_a_pos(t, 2, i).row, 0);
      EXPECT_EQ(mc::mma_a_pos(t, 2, i).col, 16 + 4 * t + i);
      EXPECT_EQ(mc::mma_b_pos(t, 0, i).col, 0);
      EXPECT_EQ(mc::mma_b_pos(t, 0, i).row, 4 * t + i);
      EXPECT_EQ(mc::mma_b_pos(t, 1, i).row, 16 + 4 * t + i);
    }
  EXPECT_EQ(mc::mma_cd_f32_pos(0, 0).row, 0);
  EXPECT_EQ(mc::mma_cd_f32_pos(0, 0).col, 0);
}

TEST(MmaProbe, EmulationFromFragmentsEqualsTheModel) {
  for (const mf::Format op : {formats::e4m3fn, formats::e5m2})
    for (const mf::Format dest : {formats::f32, formats::f16}) {
      const mc::MmaHypothesis h = mc::mma_hypotheses(dest).front();  // a copy: the vector is a temporary
      auto tiles = mc::mma_random_tiles(op, dest, 4, 7);
      for (const auto& p : mc::mma_probes(op, dest))
        if (p.question == "group size (32 vs 16+16)" || p.question == "zero result sign") tiles.push_back(p.tile);
      for (const auto& t : tiles) {
        std::vector<std::uint32_t> want(kDots), got(kDots, 0xdeadbeefu);
        mc::mma_model_tile(h, op, t, want.data());
        mc::mma_emulate_from_fragments(h, op, t, got.data());
        ASSERT_EQ(got, want) << mf::format_name(op) << " -> " << mf::format_name(dest);
      }
    }
}

std::uint32_t d00(const mc::MmaHypothesis& h, mf::Format op, const mc::MmaProbe& p) {
  std::vector<std::uint32_t> d(kDots);
  mc::mma_model_tile(h, op, p.tile, d.data());
  return d[0];
}
const mc::MmaProbe& probe(const std::vector<mc::MmaProbe>& v, const std::string& name) {
  for (const auto& p : v)
    if (p.name == name) return p;
  throw mf::Error("no probe " + name);
}

TEST(MmaProbe, ProbesDiscriminateAndGiveTheHandDerivedHopperValues) {
  const auto probes = mc::mma_probes(formats::e4m3fn, formats::f32);
  const auto hs = mc::mma_hypotheses(formats::f32);
  std::set<std::string> questions;
  for (const auto& p : probes) questions.insert(p.question);
  EXPECT_GE(questions.size(), 9u);
  for (const std::string& q : questions) {
    if (q == "exact products" || q == "subnormal operands") continue;  // every model agrees there (a check, not a question)
    bool differ = false;
    for (const auto& p : probes)
      if (p.question == q)
        for (const auto& h : hs) differ = differ || d00(h, formats::e4m3fn, p) != d00(hs.front(), formats::e4m3fn, p);
    EXPECT_TRUE(differ) << "no two hypotheses disagree on '" << q << "'";
  }
  const auto& hop = mc::mma_hypothesis(formats::f32, "hopper-fp8");
  const auto& c0 = mc::mma_hypothesis(formats::f32, "hopper-fp8[C=+0]");
  const auto& ada = mc::mma_hypothesis(formats::f32, "ada-fp8");
  // training-sim.md §1.6, by hand: P1 1.25² = 1.5625; P2 d = c for 2^(14-j) with j ≤ 13, 0 for j ≥ 14;
  // P4 2^20 + 32·1 → 2^20 (the products fall below the quantum 2^7); P5 one 32-group → 0.
  EXPECT_EQ(d00(hop, formats::e4m3fn, probe(probes, "1.25*1.25")), 0x3fc80000u);
  EXPECT_EQ(d00(hop, formats::e4m3fn, probe(probes, "U*U - U*U + 2^1")), 0x40000000u);
  EXPECT_EQ(d00(hop, formats::e4m3fn, probe(probes, "U*U - U*U + 2^0")), 0u);
  EXPECT_EQ(d00(hop, formats::e4m3fn, probe(probes, "32 * (1*1) + 2^20")), 0x49800000u);
  EXPECT_EQ(d00(c0, formats::e4m3fn, probe(probes, "32 * (1*1) + 2^20")), 0x42000000u);  // 32
  const auto& g = probe(probes, "+U*U at 0, -U*U at 1, 2^-6 elsewhere");
  EXPECT_EQ(d00(hop, formats::e4m3fn, g), 0u);
  EXPECT_NE(d00(ada, formats::e4m3fn, g), 0u);  // Ada's second group of 16 keeps its 2^-6 products
  // by hand for 16+16 (lanes 0-15 with C first, then 16-31): both big products in the first half leave the
  // second half's 16·2^-6 = 0.25; both in the second half truncate the first group's 0.25 away (quantum 2).
  EXPECT_EQ(d00(ada, formats::e4m3fn, probe(probes, "+U*U at 0, -U*U at 15, 2^-6 elsewhere")), 0x3e800000u);
  EXPECT_EQ(d00(ada, formats::e4m3fn, probe(probes, "+U*U at 16, -U*U at 31, 2^-6 elsewhere")), 0u);
}

TEST(MmaProbe, ZeroRuleProbesGiveTheHandDerivedValues) {
  // issue 26 item 4, by hand (MMA-Sim arithmetic.py:93-94, :152-155): C = 2^-120·(1 + 2^-13) = 0x03800400.
  // hopper-fp8 (zero products at 2^-126): E = -120, quantum 2^-133, C kept. Relative (-126 + j): j = 6
  // keeps E = -120; j = 7 makes E = -119, quantum 2^-132, and C's 2^-133 bit truncates to 0x03800000.
  const auto probes = mc::mma_probes(formats::e4m3fn, formats::f32);
  const auto& hop = mc::mma_hypothesis(formats::f32, "hopper-fp8");
  const auto& rel = mc::mma_hypothesis(formats::f32, "hopper-fp8[zero_product=relative]");
  const auto& pos = mc::mma_hypothesis(formats::f32, "hopper-fp8[zero_sign=positive]");
  const auto& sim = mc::mma_hypothesis(formats::f32, "hopper-fp8[zero=mma-sim]");
  for (const char* name : {"32 * (0*2^6) + C", "2^6*0 at lane 0, 0*0 elsewhere + C"}) {
    EXPECT_EQ(d00(hop, formats::e4m3fn, probe(probes, name)), 0x03800400u) << name;
    EXPECT_EQ(d00(rel, formats::e4m3fn, probe(probes, name)), 0x03800400u) << name;
  }
  for (const char* name : {"32 * (0*2^7) + C", "2^8*0 at lane 0, 0*0 elsewhere + C"}) {
    EXPECT_EQ(d00(hop, formats::e4m3fn, probe(probes, name)), 0x03800400u) << name;
    EXPECT_EQ(d00(rel, formats::e4m3fn, probe(probes, name)), 0x03800000u) << name;
    EXPECT_EQ(d00(sim, formats::e4m3fn, probe(probes, name)), 0x03800000u) << name;
  }
  // A = +0, B = -0, C = -0: every term a negative zero → -0 by default, +0 under MMA-Sim's sign rule
  const auto& z = probe(probes, "32 * (+0*-0) + -0");
  EXPECT_EQ(d00(hop, formats::e4m3fn, z), 0x80000000u);
  EXPECT_EQ(d00(pos, formats::e4m3fn, z), 0u);
  EXPECT_EQ(d00(sim, formats::e4m3fn, z), 0u);
}

TEST(MmaProbe, F16OverflowProbesSeparateInfFromSaturation) {
  // 32·448² = 6 422 528 > 65504: RNE to f16 overflows to +Inf (0x7c00); satfinite would give +max (0x7bff)
  const auto probes = mc::mma_probes(formats::e4m3fn, formats::f16);
  const auto& p = probe(probes, "32 * max*max");
  EXPECT_EQ(d00(mc::mma_hypothesis(formats::f16, "hopper-fp8-f16-unvalidated"), formats::e4m3fn, p), 0x7c00u);
  EXPECT_EQ(d00(mc::mma_hypothesis(formats::f16, "hopper-fp8-f16-unvalidated[overflow=satfinite]"), formats::e4m3fn, p), 0x7bffu);
}

TEST(MmaProbe, EvaluateAttributesResultsToTheHypothesisThatMadeThem) {
  for (const mf::Format dest : {formats::f32, formats::f16}) {
    const mf::Format op = formats::e5m2;
    const auto probes = mc::mma_probes(op, dest);
    const auto random = mc::mma_random_tiles(op, dest, 2, 11);
    const auto all = mc::mma_hypotheses(dest);
    std::vector<mc::MmaHypothesis> truths = {all.front()};  // the preset; for f32 also C = +0 and another architecture
    if (dest == formats::f32) truths.insert(truths.end(), {all[1], all.back()});
    for (const auto& truth : truths) {
      std::vector<std::uint32_t> pd(probes.size() * kDots), rd(random.size() * kDots);
      for (std::size_t i = 0; i < probes.size(); ++i) mc::mma_model_tile(truth, op, probes[i].tile, &pd[i * kDots]);
      for (std::size_t i = 0; i < random.size(); ++i) mc::mma_model_tile(truth, op, random[i], &rd[i * kDots]);
      const auto rep = mc::mma_evaluate(op, dest, probes, pd.data(), random, rd.data(), truth.name, 2);
      EXPECT_EQ(rep.primary_mismatches, 0u) << truth.name;
      for (const auto& f : rep.findings) {
        bool found = false;
        for (const auto& s : f.supported) found = found || s == truth.name;
        EXPECT_TRUE(found) << truth.name << " not supported on " << f.question;
      }
      for (const auto& [h, n] : rep.random_mismatches) {
        if (h == truth.name) {
          EXPECT_EQ(n, 0u);
        }
      }
      if (truth.name == all.front().name) {
        rd[3] ^= 1;  // one corrupted dot
        const auto bad = mc::mma_evaluate(op, dest, probes, pd.data(), random, rd.data(), truth.name, 2);
        EXPECT_EQ(bad.primary_mismatches, 1u);
        ASSERT_EQ(bad.first.size(), 1u);
        EXPECT_NE(bad.first[0].find("random tile 0 (0,3)"), std::string::npos) << bad.first[0];
      }
    }
  }
}

TEST(MmaProbe, RefusesOtherFormatsAndNames) {
  EXPECT_THROW(mc::mma_probes(formats::e2m1fn, formats::f32), mf::Error);
  EXPECT_THROW(mc::mma_probes(formats::e4m3fn, formats::bf16), mf::Error);
  try {
    (void)mc::mma_hypothesis(formats::f32, "hopper");
    ADD_FAILURE() << "no error";
  } catch (const mf::Error& e) {
    EXPECT_NE(std::string(e.what()).find("accepted: hopper-fp8"), std::string::npos) << e.what();
  }
}

TEST(CudaNames, PathReluAndHwCvtAreRegistered) {
  for (const mc::Path p : {mc::Path::engine, mc::Path::hardware}) EXPECT_EQ(mf::parse<mc::Path>(mf::name(p)), p);
  for (const mc::Relu r : {mc::Relu::off, mc::Relu::on}) EXPECT_EQ(mf::parse<mc::Relu>(mf::name(r)), r);
  EXPECT_EQ(mf::names<mc::HwCvt>().size(), static_cast<std::size_t>(mc::kHwCvtCount));
  for (int i = 0; i < mc::kHwCvtCount; ++i) {
    const auto op = static_cast<mc::HwCvt>(i);
    EXPECT_NE(mf::name(op), "?");
    EXPECT_EQ(mf::parse<mc::HwCvt>(mf::name(op)), op);
    EXPECT_EQ(mc::ptx_name(op).substr(0, 4), "cvt.");
  }
  // the PTX spelling, as PTX ISA 9.0 §9.7.9.21 writes the form
  EXPECT_EQ(mc::ptx_name(mc::HwCvt::e4m3x2_f32_rn_satfinite), "cvt.rn.satfinite.e4m3x2.f32");
  EXPECT_EQ(mc::ptx_name(mc::HwCvt::ue8m0x2_bf16x2_rp_satfinite), "cvt.rp.satfinite.ue8m0x2.bf16x2");
  try {
    (void)mf::parse<mc::Path>("hw");
    ADD_FAILURE() << "no error";
  } catch (const mf::NameError& e) {
    EXPECT_NE(std::string(e.what()).find("accepted: engine, hardware"), std::string::npos) << e.what();
  }
  bool listed = false;
  for (const auto& l : mc::name_listings()) listed = listed || l.id == "hw-cvt";  // the CUDA layer's listings (cuda/names.hpp)
  EXPECT_TRUE(listed);
}

}  // namespace
