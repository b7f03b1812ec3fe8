// SPDX-License-Identifier: Apache-2.0
// core/core.hpp: umbrella header of the device-safe core (minifloat::core): header-only,
// constexpr/inline, host and CUDA device; no exceptions, no allocation, no <cmath>, no std::string
// (checked by the test unit.core_is_device_safe). The whole public library: minifloat.hpp.
#pragma once
#include "arith.hpp"
#include "bits.hpp"
#include "block_scale.hpp"
#include "config.hpp"
#include "convert.hpp"
#include "digest.hpp"
#include "format.hpp"
#include "four_over_six.hpp"
#include "four_over_six_tile.hpp"
#include "fp32_ops.hpp"
#include "gaussws_noise.hpp"
#include "named_formats.hpp"
#include "profile.hpp"
#include "random.hpp"
#include "round_pack.hpp"
#include "rounding.hpp"
#include "tfdpa.hpp"
#include "tile_step.hpp"
#include "unpacked.hpp"
