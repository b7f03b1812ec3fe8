// SPDX-License-Identifier: Apache-2.0
// minifloat.hpp: umbrella header of the header-only core (minifloat::core).
#pragma once
#include "arith.hpp"
#include "config.hpp"
#include "convert.hpp"
#include "format.hpp"
#include "profile.hpp"
#include "random.hpp"
#include "round_pack.hpp"
#include "rounding.hpp"
#include "unpacked.hpp"
