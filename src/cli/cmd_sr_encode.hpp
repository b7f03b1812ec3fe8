// SPDX-License-Identifier: Apache-2.0
// cmd_sr_encode.hpp: the stochastic-rounding part of `minifloat encode` (--round sr
// [--sr-variant exact|A|B|C|equal] [--sr-bits N] --seed S [--stream T] [--count K] VALUE):
// the K codes, one per element index 0…K−1 of the Philox stream (the flags and their validation:
// common.hpp).
#pragma once
#include <cstdint>
#include <ostream>
#include <vector>

#include "common.hpp"
#include "minifloat/core/format.hpp"
#include "minifloat/core/profile.hpp"
#include "minifloat/core/rounding.hpp"
#include "minifloat/core/unpacked.hpp"
#include "minifloat/error.hpp"

namespace minifloat::cli {

/// Stochastically round `value` into `to` `count` times: element k (0…count−1) rounds with
/// sr_bits(seed, stream, step 0, index k, spec.sr_variant) (random.hpp). `spec.rounding` must be sr
/// (else minifloat::Error). The same arguments always give the same codes.
std::vector<std::uint64_t> sr_encode_codes(Format to, const Unpacked& value, RoundingSpec spec, Profile prof,
                                           std::uint64_t seed, std::uint32_t stream, std::uint64_t count);

/// Same, from a validated plan (spec.sr_variant/sr_bits are taken from the plan; rounding = sr).
std::vector<std::uint64_t> sr_encode_codes(Format to, const Unpacked& value, Overflow overflow, Profile prof,
                                           const SrEncodePlan& plan);

/// Print one code per line as `0x` + lowercase hex, zero-padded to ⌈bits/4⌉ digits (e4m3fn: 0x38).
void print_codes(std::ostream& os, Format to, const std::vector<std::uint64_t>& codes);

}  // namespace minifloat::cli
