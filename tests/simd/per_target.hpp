// SPDX-License-Identifier: Apache-2.0
// per_target.hpp: one gtest instance per Highway target (Highway's HWY_EXPORT_AND_TEST_P /
// TestWithParamTarget pattern), so ctest names and reruns each target: a TEST_P of a suite derived
// from PerTarget runs once for every target this CPU supports and the library compiled
// (hwy::SupportedAndGeneratedTargets), named after it ("…/AVX2"), with that target forced for the
// library's dispatch during the test.
#pragma once
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdint>
#include <string>

#include "simd/convert_simd.hpp"

namespace minifloat_test {

class PerTarget : public ::testing::TestWithParam<std::int64_t> {
 protected:
  void SetUp() override {
    hwy::SetSupportedTargetsForTest(GetParam());
    ASSERT_STREQ(minifloat::simd::target_name(), hwy::TargetName(GetParam()));
  }
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

}  // namespace minifloat_test

/// Instantiates the TEST_Ps of `suite` (derived from PerTarget) once per Highway target, as
/// EveryTarget/<suite>.<test>/<TARGET>.
#define MINIFLOAT_INSTANTIATE_PER_TARGET(suite)                                              \
  INSTANTIATE_TEST_SUITE_P(EveryTarget, suite, ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()), \
                           [](const ::testing::TestParamInfo<std::int64_t>& i) {              \
                             return std::string(hwy::TargetName(i.param));                    \
                           })
