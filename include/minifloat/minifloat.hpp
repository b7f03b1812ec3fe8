// SPDX-License-Identifier: Apache-2.0
// minifloat.hpp: umbrella header of the header-only core (minifloat::core).
#pragma once
#include "core/arith.hpp"
#include "core/config.hpp"
#include "core/convert.hpp"
#include "core/format.hpp"
#include "core/profile.hpp"
#include "core/random.hpp"
#include "core/round_pack.hpp"
#include "core/rounding.hpp"
#include "core/unpacked.hpp"
