// SPDX-License-Identifier: Apache-2.0
// library -> check: upward (the commented-out one below does not count)
#include "minifloat/registry.hpp"
// #include "minifloat/train/study.hpp"
#include "minifloat/check/check.hpp"
