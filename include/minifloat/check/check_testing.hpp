// SPDX-License-Identifier: Apache-2.0
// check_testing.hpp: RapidCheck generators and a GoogleTest macro over the kernel checker
// (check.hpp). Optional: CMake target minifloat::check_testing (links RapidCheck and GoogleTest);
// minifloat::check and minifloat::minifloat depend on neither. A user's test is three lines (four with RapidCheck):
//
//   #include <minifloat/check/check_testing.hpp>
//   const minifloat::check::Target t{.to = minifloat::formats::e4m3fn, .spec = {.overflow = minifloat::Overflow::satfinite}};
//   TEST(MyKernel, Bitexact) { MINIFLOAT_EXPECT_KERNEL(my_kernel, t); }           // the whole checker
//   RC_GTEST_PROP(MyKernel, Cases, ()) {                                          // or RapidCheck
//     static const auto gen = minifloat::check::arbitrary_case(t);  // generates once
//     const auto c = *gen;
//     RC_ASSERT(my_kernel(c.input, c.rbits) == minifloat::check::expected(t, c).code);
//   }
#pragma once
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <memory>
#include <vector>

#include "check.hpp"

namespace minifloat::check {

/// The cases of `generate(t, options)` in class `cls`, drawn uniformly; RapidCheck shrinks toward the
/// simplest (the generator sorts each class by `simplicity`). Throws Error when the class is empty.
inline rc::Gen<Case> arbitrary_case(const Target& t, CaseClass cls, const GenOptions& options = {.count = 1u << 16}) {
  auto all = std::make_shared<std::vector<Case>>();
  for (const Case& c : generate(t, options))
    if (c.cls == cls) all->push_back(c);
  if (all->empty()) throw Error("arbitrary_case: class " + std::string(name(cls)) + " is empty for " + describe(t));
  return rc::gen::map(rc::gen::inRange<std::size_t>(0, all->size()), [all](std::size_t i) { return (*all)[i]; });
}

/// A case of any class of `generate(t, options)`: the class first (shrinking toward the earlier
/// classes: exact, midpoint, …), then a case within it (shrinking toward its simplest).
inline rc::Gen<Case> arbitrary_case(const Target& t, const GenOptions& options = {.count = 1u << 16}) {
  auto by = std::make_shared<std::vector<std::vector<Case>>>();
  for (const Case& c : generate(t, options)) {
    if (by->empty() || by->back().front().cls != c.cls) by->emplace_back();
    by->back().push_back(c);
  }
  return rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, by->size()), [by](std::size_t k) {
    const auto& v = (*by)[k];
    return rc::gen::map(rc::gen::inRange<std::size_t>(0, v.size()), [by, k](std::size_t i) { return (*by)[k][i]; });
  });
}

}  // namespace minifloat::check

/// GoogleTest: run the whole checker (generate, compare, shrink, diagnose) on `kernel` (any form
/// check::check accepts) for `target`; on failure the report is the message.
#define MINIFLOAT_EXPECT_KERNEL(kernel, target)                                                         \
  do {                                                                                                  \
    const ::minifloat::check::Report minifloat_report_ = ::minifloat::check::check((kernel), (target)); \
    EXPECT_TRUE(minifloat_report_.ok()) << minifloat_report_;                                           \
  } while (0)
