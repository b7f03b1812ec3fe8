// SPDX-License-Identifier: Apache-2.0
// simd -> library: upward; hwy/ is third-party
#pragma once
#include "hwy/highway.h"
#include "minifloat/core/format.hpp"
#include "minifloat/registry.hpp"
