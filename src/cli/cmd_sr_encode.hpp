// SPDX-License-Identifier: Apache-2.0
// cmd_sr_encode.hpp: the stochastic-rounding part of `minifloat encode` (--round sr
// [--sr-variant exact|A|B|C|equal] [--sr-bits N] --seed S [--stream T] [--count K] VALUE):
// flag validation and the K codes, one per element index 0…K−1 of the Philox stream.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "minifloat/core/format.hpp"
#include "minifloat/core/profile.hpp"
#include "minifloat/core/rounding.hpp"
#include "minifloat/core/unpacked.hpp"
#include "minifloat/error.hpp"
#include "options.hpp"

namespace minifloat::cli {

/// The SR-related flags of `encode` as the user gave them (std::nullopt = not given).
struct SrEncodeFlags {
  Rounding rounding = Rounding::rne;        ///< --round (already parsed)
  std::optional<std::string> sr_variant;    ///< --sr-variant exact|A|B|C|equal (default exact)
  std::optional<long long> sr_bits;         ///< --sr-bits N, 1..32, only for A/B/C (default 8)
  std::optional<std::uint64_t> seed;        ///< --seed S (required with --round sr)
  std::optional<long long> stream;          ///< --stream T, 0..2^32−1 (default 0)
  std::optional<long long> count;           ///< --count K ≥ 1 (default 1)
};

/// The ranges of the integer SR flags.
inline constexpr IntRange kSrBitsRange{1, 32}, kStreamRange{0, 4294967295LL}, kCountRange{1, 100000000LL};

/// The validated SR plan: the RoundingSpec fields and the stream to read.
struct SrEncodePlan {
  SrVariant variant = SrVariant::exact;
  std::uint8_t sr_bits = 8;
  std::uint64_t seed = 0;
  std::uint32_t stream = 0;
  std::uint64_t count = 1;
};

/// CLI11 validator: the text is a decimal unsigned 64-bit integer (no sign, no wrap-around).
extern const CLI::Validator uint64_text;

/// Check the SR flags; throws minifloat::Error with one line naming the flag and what is accepted:
///  - with --round sr: --seed is required; --sr-variant one of exact, A, B, C, equal
///    (case-insensitive); --sr-bits 1..32 and only with A, B or C (exact reads 64 bits, equal 1);
///    --stream 0..4294967295; --count ≥ 1 (at most 100000000).
///  - without --round sr: none of --sr-variant, --sr-bits, --seed, --stream, --count may be given.
SrEncodePlan validate_sr_encode_flags(const SrEncodeFlags& flags);

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
