// SPDX-License-Identifier: Apache-2.0
// common.hpp: what several commands of the CLI share, so that no command includes another: the
// stochastic-rounding flags (--round sr [--sr-variant exact|A|B|C|equal] [--sr-bits N] --seed S
// [--stream T] [--count K]: encode, convert, probe gen, quantize, report) and the tensor input of
// quantize, report and compare (pieces, --threads; the files themselves: tensor_file.hpp
// locate_tensors).
#pragma once
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "minifloat/core/rounding.hpp"
#include "minifloat/error.hpp"
#include "minifloat/tensor_file.hpp"
#include "options.hpp"

namespace minifloat::cli {

// ---- stochastic-rounding flags ------------------------------------------------------------------

/// The SR-related flags as the user gave them (std::nullopt = not given).
struct SrEncodeFlags {
  Rounding rounding = Rounding::rne;      ///< --round (already parsed)
  std::optional<std::string> sr_variant;  ///< --sr-variant exact|A|B|C|equal (default exact)
  std::optional<long long> sr_bits;       ///< --sr-bits N, 1..64, only for A/B/C/stochastic_odd (default 8)
  std::optional<std::uint64_t> seed;      ///< --seed S (required with --round sr)
  std::optional<long long> stream;        ///< --stream T, 0..2^32−1 (default 0)
  std::optional<long long> count;         ///< --count K ≥ 1 (default 1)
};

/// The SR variants that read N = --sr-bits random bits (exact reads 64, equal 1).
inline bool reads_sr_bits(SrVariant v) {
  return v == SrVariant::a || v == SrVariant::b || v == SrVariant::c || v == SrVariant::stochastic_odd;
}
/// The help of --sr-bits, --ftz and --daz, the same on every converting command.
inline constexpr const char* kSrBitsHelp =
    "With --round sr and variant A/B/C/stochastic_odd: random bits N, 1..64 (default 8; N > 32 reads two 32-bit "
    "words per element, low word first)";
inline constexpr const char* kFtzHelp =
    "Flush to zero: a result that rounds to a subnormal of the target becomes +-0 (rounding first; RoundingSpec::ftz)";
inline constexpr const char* kDazHelp = "Denormals are zero: subnormal inputs read as +-0 (RoundingSpec::daz)";

/// The ranges of the integer SR flags.
inline constexpr IntRange kSrBitsRange{kMinSrBits, kMaxSrBits}, kStreamRange{0, 4294967295LL},
    kCountRange{1, 100000000LL};

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

// ---- tensor input (quantize, report, compare) ---------------------------------------------------

/// Elements per piece that quantize, report and compare hold at once (2 Mi: 8 MiB of f32 values,
/// 16 MiB as doubles); each command's peak memory is a few such buffers plus the scales.
inline constexpr std::size_t kPieceElements = std::size_t{1} << 21;
/// --threads of quantize and report: 0..1024, 0 = all cores (std::thread::hardware_concurrency), as train.
inline constexpr IntRange kQuantThreads{0, 1024};

}  // namespace minifloat::cli
