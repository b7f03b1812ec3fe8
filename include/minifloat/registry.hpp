// SPDX-License-Identifier: Apache-2.0
// registry.hpp: canonical names of formats, rounding modes, overflow policies and profiles,
// and their parsing. One table per kind; parse(name(x)) == x is tested for every entry.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/format.hpp"
#include "core/profile.hpp"
#include "core/rounding.hpp"
#include "error.hpp"

namespace minifloat {

/// A format with its canonical name, family and one-line description.
struct NamedFormat {
  std::string name;     ///< canonical name: "e4m3fn", "Binary8p3se", …
  Format format;
  std::string family;   ///< "ocp", "fnuz", "ieee-like", "mx", "scale", "ieee754", "p3109"
  std::string summary;  ///< one line: standard and notes
};

/// Every registered format: the named ones (e4m3fn e5m2 e4m3fnuz e5m2fnuz e4m3b11fnuz e4m3 e3m4
/// e3m2fn e2m3fn e2m1fn e8m0fnu ue4m3 bf16 f16 f32 f64) then the IEEE P3109 family
/// Binary{K}p{P}{s|u}{e|f} for 3 ≤ K ≤ 16 (names as in the P3109 interim report v4.0).
const std::vector<NamedFormat>& named_formats();

/// Resolve a format name (case-insensitive; aliases float8_e4m3fn, float4_e2m1fn, binary16,
/// bfloat16, binary32, binary64, … accepted) or a user-defined descriptor
/// `custom:E,M,BIAS,signed|unsigned,ieee|fn|fnuz|p3109_extended|none[,nozero]`.
/// Throws NameError listing the accepted names.
Format parse_format(std::string_view name);
/// The canonical name of `f`, or its `custom:…` descriptor when it has none.
std::string format_name(Format f);

Rounding parse_rounding(std::string_view name);     ///< rne rna rtz rtp rtn rto sr; throws NameError
Overflow parse_overflow(std::string_view name);     ///< nonsat satfinite satpropagate; throws NameError
Profile parse_profile(std::string_view name);       ///< ocp nvidia ml_dtypes p3109; throws NameError
SrVariant parse_sr_variant(std::string_view name);  ///< exact A B C equal; throws NameError
std::string_view rounding_name(Rounding r);
std::string_view overflow_name(Overflow o);
std::string_view sr_variant_name(SrVariant v);
/// The accepted names of each kind, in canonical order.
const std::vector<std::string_view>& rounding_names();
const std::vector<std::string_view>& overflow_names();
const std::vector<std::string_view>& profile_names();

}  // namespace minifloat
