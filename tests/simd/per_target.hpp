// SPDX-License-Identifier: Apache-2.0
// per_target.hpp: one gtest instance per Highway target (Highway's HWY_EXPORT_AND_TEST_P /
// TestWithParamTarget pattern), so ctest names and reruns each target: a TEST_P of a suite derived
// from PerTarget runs once for every target this CPU supports and the library compiled
// (hwy::SupportedAndGeneratedTargets), named after it ("…/AVX2"), with that target forced for the
// library's dispatch during the test.
#pragma once
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

#include "minifloat/registry.hpp"
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

/// The same for a suite over the array paths' formats: one instance per (simd::kFormats index, target).
class PerFormatTarget : public ::testing::TestWithParam<std::tuple<std::size_t, std::int64_t>> {
 protected:
  static std::size_t format_index() { return std::get<0>(GetParam()); }
  void SetUp() override {
    hwy::SetSupportedTargetsForTest(std::get<1>(GetParam()));
    ASSERT_STREQ(minifloat::simd::target_name(), hwy::TargetName(std::get<1>(GetParam())));
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

/// Instantiates the TEST_Ps of `suite` (derived from PerFormatTarget) once per array-path format and
/// Highway target, as EveryTarget/<suite>.<test>/<format>_<TARGET>.
#define MINIFLOAT_INSTANTIATE_PER_FORMAT_TARGET(suite)                                                            \
  INSTANTIATE_TEST_SUITE_P(                                                                                      \
      EveryTarget, suite,                                                                                        \
      ::testing::Combine(::testing::Range<std::size_t>(0, ::minifloat::simd::kFormats.size()),                 \
                         ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets())),                              \
      [](const ::testing::TestParamInfo<std::tuple<std::size_t, std::int64_t>>& i) {                           \
        return std::string(::minifloat::format_name(::minifloat::simd::kFormats[std::get<0>(i.param)])) + "_" + \
               hwy::TargetName(std::get<1>(i.param));                                                            \
      })
