// SPDX-License-Identifier: Apache-2.0
// te2_cli_test.cpp: `quantize --mx-quirks te_2` end to end (issue 25 item 6's must-show line
// `quantize --scheme fp8_1x128 --mx-quirks te_2`) and its refusal. Expected values by hand from TE d0067d0
// tests/pytorch/references/quantize_scale_calc.py:32,58 (an Inf tile: scale 448/Inf = 0, scale_inv +Inf) and
// blockwise_quantizer_reference.py:165 (elements x · 0).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli_run.hpp"
#include "minifloat/npy.hpp"

namespace minifloat_test {
using namespace minifloat;
namespace fs = std::filesystem;

TEST(CliTe2, Fp8_1x128InfTile) {
  const fs::path d = fs::temp_directory_path() / ("minifloat_te2_cli_" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::vector<float> x(256, 0.5f);
  x[0] = -1.0f;
  x[1] = std::numeric_limits<float>::infinity();  // row 0's tile; row 1 stays finite
  write_npy(d / "x.npy", make_npy_f32({2, 128}, x));
  const std::string io = " --in " + (d / "x.npy").string() + " --out-codes " + (d / "c.npy").string() +
                         " --out-scales " + (d / "s.npy").string();
  const CliRun r = run_cli("quantize --scheme fp8_1x128 --mx-quirks te_2" + io);
  ASSERT_EQ(r.status, 0) << r.out;
  const NpyArray c = read_npy(d / "c.npy"), s = read_npy(d / "s.npy");
  ASSERT_EQ(c.data.size(), 256u);
  ASSERT_EQ(s.data.size(), 2u * sizeof(float));
  std::uint32_t s0 = 0, s1 = 0;
  std::memcpy(&s0, s.data.data(), 4);
  std::memcpy(&s1, s.data.data() + 4, 4);
  EXPECT_EQ(s0, 0x7f800000u);  // scale_inv +Inf
  EXPECT_EQ(s1, 0x3a924925u);  // fl32(1 / fl32(448 / 0.5)) = fl32(1/896) as the default
  EXPECT_EQ(static_cast<unsigned>(c.data[0]), 0x80u);    // −1 · 0 = −0
  EXPECT_EQ(static_cast<unsigned>(c.data[1]), 0xffu);    // Inf · 0: the default NaN, e4m3fn 0xff
  EXPECT_EQ(static_cast<unsigned>(c.data[2]), 0x00u);    // 0.5 · 0 = +0
  EXPECT_EQ(static_cast<unsigned>(c.data[128]), 0x7eu);  // row 1: 0.5 · 896 = 448
  // the refusal names what was wrong and what is accepted
  const CliRun bad = run_cli("quantize --scheme mxfp8_e4m3 --mx-quirks te_2" + io);
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("te_2 applies to FP32 current scaling"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("not mxfp8_e4m3"), std::string::npos) << bad.out;
  const CliRun name = run_cli("quantize --scheme fp8_1x128 --mx-quirks te_3" + io);
  EXPECT_NE(name.status, 0);
  EXPECT_NE(name.out.find("te_2"), std::string::npos) << name.out;  // among the accepted names
  fs::remove_all(d);
}

}  // namespace minifloat_test
