// SPDX-License-Identifier: Apache-2.0
// core/named_profiles.hpp: the one table of named vendor profiles. The registry's `profile` names
// (registry.cpp: --profile, Python's profile=, docs/names.md) and the SIMD whitelist (simd::kProfiles)
// are derived from kNamedProfiles; the profiles themselves are core/profile.hpp's profiles:: constants.
//
// Adding a profile: its profiles:: constant (profile.hpp) and one row here; kArrayPath when the array
// paths' kernels and tables should take it (they are built by the engine, so any profile is exact there;
// the flag only decides which combinations have a table slot).
#pragma once
#include <cstdint>

#include "named_formats.hpp"
#include "profile.hpp"

namespace minifloat {

/// One named profile: its name, the profiles:: constant, its FastPath flags (kArrayPath or 0) and a
/// one-line summary naming the vendor or spec it follows. Strings are literals.
struct NamedProfileRow {
  const char* name;
  Profile profile;
  std::uint8_t paths;
  const char* summary;
};

/// The named profiles, in the registry's (and docs') order; the first is the default.
inline constexpr NamedProfileRow kNamedProfiles[] = {
    {"ocp", profiles::ocp, kArrayPath, "OCP OFP8/MX v1.0 choices; the default"},
    {"nvidia", profiles::nvidia, kArrayPath, "CUDA 13 host conversion API (cuda_fp8.hpp, cuda_fp6.hpp, cuda_fp4.hpp)"},
    {"ml_dtypes", profiles::ml_dtypes, kArrayPath, "ml_dtypes 0.6 NumPy casts"},
    {"p3109", profiles::p3109, kArrayPath, "IEEE P3109 interim report v4.0"},
    {"torch", profiles::torch, 0, "PyTorch 2.15 Tensor.to casts (e4m3fn saturates; f64 via f32)"},
};

/// How many named profiles have every flag of `paths`.
constexpr int count_named_profiles(std::uint8_t paths) noexcept {
  int n = 0;
  for (const auto& r : kNamedProfiles) n += (r.paths & paths) == paths ? 1 : 0;
  return n;
}
/// The `i`-th named profile (table order) with every flag of `paths`; profiles::ocp past the end.
constexpr Profile nth_named_profile(std::uint8_t paths, int i) noexcept {
  for (const auto& r : kNamedProfiles)
    if ((r.paths & paths) == paths && i-- == 0) return r.profile;
  return profiles::ocp;
}

}  // namespace minifloat
