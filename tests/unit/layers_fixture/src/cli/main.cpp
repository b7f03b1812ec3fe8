// SPDX-License-Identifier: Apache-2.0
#include "cmd_a.hpp"
#include "minifloat/check/check.hpp"
#include "minifloat/train/study.hpp"
#include "simd/kernel.hpp"
