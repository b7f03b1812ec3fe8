// SPDX-License-Identifier: Apache-2.0
// A fixture for unit.core_is_device_safe_detects: each forbidden thing once; the words throw, new,
// std::string and <cmath> in this comment and in the string literal below must not be reported.
/* a block comment: #include <vector> throw new std::vector */
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include "../error.hpp"
#include "good.hpp"

struct NoCopy {
  NoCopy(const NoCopy&) = delete;  // allowed
};
inline const char* literal() { return "throw new std::string <cmath>"; }
inline int* leak() { return new int(1); }
inline void fail() { throw 1; }
inline double root(double x) { return std::sqrt(x); }
inline std::string name() { return {}; }
