// SPDX-License-Identifier: Apache-2.0
// core/named_formats.hpp: the one table of named formats. Every list of named formats is derived from
// kNamedFormats: the registry's names, aliases and summaries (registry.cpp), the host's compiled
// loops (convert_span.cpp's Fast8), the SIMD whitelist (simd::kFormats), the CUDA sweep
// (device_check.cu), the SIMD and sweep tests, the docs (`minifloat docs`) and Python's ml_dtypes and
// torch dtype maps (format_info, list_named_formats). The IEEE P3109 family Binary{K}p{P}{s|u}{e|f} is
// a pattern, built by the registry from p3109() (format.hpp), not a row here.
//
// Adding a named format: its formats:: constant (format.hpp, limits pinned by tests/unit/format_test.cpp),
// one row here, and (≤ 16 bits) its oracle entry (tests/oracle/spec_formats.cpp; the test
// Coverage.EveryNamedFormatHasAnOracleSpec fails without it); then regenerate docs/ and tables/.
#pragma once
#include <cstdint>

#include "format.hpp"

namespace minifloat {

/// The family a named format belongs to (`minifloat formats --family`, docs/formats.md's column).
enum class FormatFamily : std::uint8_t { ocp, fnuz, ieee_like, mx, scale, ieee754, tensor_core, p3109 };

/// The family's name as the CLI, the docs and Python's format_info print it: "ocp", "fnuz", "ieee-like",
/// "mx", "scale", "ieee754", "tensor-core", "p3109".
constexpr const char* family_name(FormatFamily f) noexcept {
  switch (f) {
    case FormatFamily::ocp: return "ocp";
    case FormatFamily::fnuz: return "fnuz";
    case FormatFamily::ieee_like: return "ieee-like";
    case FormatFamily::mx: return "mx";
    case FormatFamily::scale: return "scale";
    case FormatFamily::ieee754: return "ieee754";
    case FormatFamily::tensor_core: return "tensor-core";
    case FormatFamily::p3109: return "p3109";
  }
  return "?";
}

/// Which fast paths cover a named format (bit flags of NamedFormatRow::paths).
enum FastPath : std::uint8_t {
  /// The array paths: a loop compiled for the format on the host (convert_span.cpp), the Highway
  /// kernels' whitelist (simd::kFormats: deterministic modes, every policy, profiles ocp nvidia
  /// ml_dtypes p3109), and the CUDA device model's sweep against tests/cuda/golden/sweep_digests.txt.
  kArrayPath = 1,
  /// A PTX cvt instruction converts to it (cuda/api.cpp's hardware path, sm_89+ / sm_100a family).
  kCudaCvt = 2,
  /// A 16-bit format with a loop compiled for it on the host (format_dispatch.hpp's Fast16: the array
  /// door's and convert_span.cpp's 2-byte code words).
  kHostLoop16 = 4,
};

/// One named format: its canonical name, descriptor, family, fast paths, the names other libraries
/// give it, and its one-line summary. Strings are literals ("" where there is none).
struct NamedFormatRow {
  const char* name;  ///< canonical name: "e4m3fn"
  Format format;     ///< the formats:: constant
  FormatFamily family;
  std::uint8_t paths;     ///< FastPath flags
  const char* ml_dtypes;  ///< the ml_dtypes dtype name ("float8_e4m3fn"); also accepted as an alias
  const char* torch;      ///< the torch dtype name without "torch." ("float8_e4m3fn")
  const char* aliases;    ///< further accepted names, lowercase, space separated ("half float16")
  const char* summary;    ///< one line: standard and notes
};

/// The named formats, in the registry's (and docs') order.
inline constexpr NamedFormatRow kNamedFormats[] = {
    {"e4m3fn", formats::e4m3fn, FormatFamily::ocp, kArrayPath | kCudaCvt, "float8_e4m3fn", "float8_e4m3fn", "",
     "OCP OFP8 E4M3: bias 7, no Inf, NaN 0x7f/0xff, max 448"},
    {"e5m2", formats::e5m2, FormatFamily::ocp, kArrayPath | kCudaCvt, "float8_e5m2", "float8_e5m2", "",
     "OCP OFP8 E5M2: bias 15, IEEE Inf/NaN, max 57344"},
    {"e4m3fnuz", formats::e4m3fnuz, FormatFamily::fnuz, kArrayPath, "float8_e4m3fnuz", "float8_e4m3fnuz", "",
     "FNUZ E4M3 (AMD/Graphcore): bias 8, NaN 0x80, no -0, max 240"},
    {"e5m2fnuz", formats::e5m2fnuz, FormatFamily::fnuz, kArrayPath, "float8_e5m2fnuz", "float8_e5m2fnuz", "",
     "FNUZ E5M2 (AMD/Graphcore): bias 16, NaN 0x80, no -0, max 57344"},
    {"e4m3b11fnuz", formats::e4m3b11fnuz, FormatFamily::fnuz, kArrayPath, "float8_e4m3b11fnuz", "", "",
     "E4M3 bias 11 (TPU): NaN 0x80, no -0, max 30"},
    {"e4m3", formats::e4m3, FormatFamily::ieee_like, kArrayPath, "float8_e4m3", "", "",
     "IEEE-like E4M3 (ml_dtypes float8_e4m3): bias 7, Inf 0x78, max 240"},
    {"e3m4", formats::e3m4, FormatFamily::ieee_like, kArrayPath, "float8_e3m4", "", "",
     "IEEE-like E3M4 (ml_dtypes float8_e3m4): bias 3, Inf 0x70, max 15.5"},
    {"e3m2fn", formats::e3m2fn, FormatFamily::mx, kArrayPath | kCudaCvt, "float6_e3m2fn", "", "",
     "OCP MX FP6 E3M2: bias 3, no Inf/NaN, max 28"},
    {"e2m3fn", formats::e2m3fn, FormatFamily::mx, kArrayPath | kCudaCvt, "float6_e2m3fn", "", "",
     "OCP MX FP6 E2M3: bias 1, no Inf/NaN, max 7.5"},
    {"e2m1fn", formats::e2m1fn, FormatFamily::mx, kArrayPath | kCudaCvt, "float4_e2m1fn", "", "",
     "OCP MX FP4 E2M1: bias 1, no Inf/NaN, max 6"},
    {"e8m0fnu", formats::e8m0fnu, FormatFamily::scale, kArrayPath | kCudaCvt, "float8_e8m0fnu", "float8_e8m0fnu",
     "ue8m0", "OCP MX scale UE8M0: unsigned, bias 127, no zero, NaN 0xff"},
    {"ue4m3", formats::ue4m3, FormatFamily::scale, kArrayPath, "", "", "",
     "NVFP4 block scale UE4M3: 7 bits, unsigned, bias 7, NaN 0x7f, max 448"},
    {"ue5m3", formats::ue5m3, FormatFamily::scale, kArrayPath, "", "", "",
     "UE5M3 block scale (CUDA 13.4, LLVM Float8E5M3FNU): unsigned, bias 15, no Inf, NaN 0xff, max 114688"},
    {"bf16", formats::bf16, FormatFamily::ieee754, kHostLoop16, "bfloat16", "", "", "bfloat16"},
    {"f16", formats::f16, FormatFamily::ieee754, kHostLoop16, "", "", "binary16 half float16", "IEEE 754 binary16"},
    {"tf32", formats::tf32, FormatFamily::tensor_core, 0, "", "", "",
     "NVIDIA TensorFloat-32: FP32 range (bias 127, IEEE Inf/NaN), 10 mantissa bits"},
    {"f32", formats::f32, FormatFamily::ieee754, 0, "", "", "binary32 float32", "IEEE 754 binary32"},
    {"f64", formats::f64, FormatFamily::ieee754, 0, "", "", "binary64 float64", "IEEE 754 binary64"},
};

/// The number of rows of kNamedFormats.
inline constexpr int kNamedFormatCount = static_cast<int>(sizeof(kNamedFormats) / sizeof(kNamedFormats[0]));

/// How many named formats have every flag of `paths`.
constexpr int count_named_formats(std::uint8_t paths) noexcept {
  int n = 0;
  for (const auto& r : kNamedFormats) n += (r.paths & paths) == paths ? 1 : 0;
  return n;
}
/// The `i`-th named format (table order) with every flag of `paths`; formats::f32 past the end.
constexpr Format nth_named_format(std::uint8_t paths, int i) noexcept {
  for (const auto& r : kNamedFormats)
    if ((r.paths & paths) == paths && i-- == 0) return r.format;
  return formats::f32;
}

}  // namespace minifloat
