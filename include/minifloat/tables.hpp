// SPDX-License-Identifier: Apache-2.0
// tables.hpp: encoding tables of a format (every code; the rounding midpoints; the overflow
// thresholds per rounding mode and overflow policy) as data, and their CSV/Markdown/JSON text,
// as committed in tables/ (see tables/README.md for every column).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/format.hpp"
#include "core/rounding.hpp"
#include "core/unpacked.hpp"
#include "error.hpp"
#include "registry.hpp"

namespace minifloat {

/// The name of a Specials kind as the tables, `minifloat formats`, `custom:` specs and the Python
/// format_info write it: ieee, fn, fnuz, p3109_extended, none (core/format.hpp).
std::string specials_name(Specials s);

/// Formats with at most this many bits have code tables (2^16 rows at most).
inline constexpr int kMaxTableBits = 16;

/// One code of a format with its exact value (unpack()).
struct CodeRow {
  std::uint64_t code;
  Class cls;
  Unpacked value;  ///< exact; for inf/nan only `negative` is meaningful
};

/// A rounding midpoint: the exact value halfway between two consecutive positive finite values
/// (negative values mirror them). Below it round-to-nearest gives `lower`, above it `upper`.
struct MidpointRow {
  std::uint64_t lower;  ///< code of the smaller value
  std::uint64_t upper;  ///< code of the next larger value (= lower + 1)
  Unpacked lower_value, upper_value;
  Unpacked midpoint;  ///< (lower_value + upper_value) / 2, exact
  /// The code `rne` gives at the midpoint under the default (`ocp`) profile: the even code
  /// (even trailing significand); with no mantissa bits, the upper one unless the lower is
  /// zero (ties up, as MPFR at precision 1 and ml_dtypes). `rna` always gives `upper`.
  std::uint64_t rne;
};

/// Where values beyond the largest finite magnitude start to overflow, for one rounding mode,
/// overflow policy and sign, under the default (`ocp`) profile.
///
/// `threshold` (signed, exact) is the boundary magnitude T: every x with max ≤ |x| < T gives
/// ±max (`max_code`) with no overflow flag; every |x| > T raises the overflow flag and gives
/// `overflow_code`; x = ±T itself overflows iff `threshold_overflows`.
///   rne: T = max + ulp/2, overflowing iff max's significand is odd (the tie goes up);
///   rna: T = max + ulp/2, overflowing; rtz: T = max + ulp, overflowing (result ±max);
///   rto: T = max (exclusive) when max's significand is even (x > max truncates to max and
///        the sticky bit makes it odd: max + ulp), else max + ulp; result ±max;
///   rtp: +: T = max (exclusive); −: T = max + ulp;  rtn symmetric.
/// ulp is the quantum of max's binade. `overflow_code` follows the policy (rounding.hpp):
/// directed modes rounding toward ±max, satfinite and satpropagate give ±max; nonsat gives
/// ±Inf, else NaN, else ±max. `inf_code` is what ±Inf gives under the policy.
struct OverflowRow {
  Rounding rounding;
  Overflow overflow;
  bool negative;
  Unpacked threshold;
  bool threshold_overflows;
  std::uint64_t max_code;
  std::uint64_t overflow_code;
  std::uint64_t inf_code;
};

/// Largest finite, smallest normal and smallest subnormal positive values, exact.
struct FormatLimits {
  Unpacked max_finite;
  Unpacked min_normal;
  bool has_subnormals;     ///< false when there are no mantissa bits or no zero
  Unpacked min_subnormal;  ///< meaningful only when has_subnormals
};
FormatLimits format_limits(Format f);

/// Every code 0 … 2^bits − 1. Throws Error when f.bits > kMaxTableBits.
std::vector<CodeRow> code_table(Format f);
/// The midpoints between consecutive positive finite values, ascending. Throws as code_table.
std::vector<MidpointRow> midpoint_table(Format f);
/// One row per rounding mode (rne rna rtz rtp rtn rto) × overflow policy (nonsat satfinite
/// satpropagate) × sign (+, and − for signed formats).
std::vector<OverflowRow> overflow_table(Format f);

/// Text styles of the tables.
enum class TableStyle : std::uint8_t { csv, md, json };
/// Which part of a format's tables to render.
enum class TablePart : std::uint8_t { all, codes, midpoints, overflow };
/// Text styles of the format catalogue (`minifloat formats --as`).
enum class CatalogueStyle : std::uint8_t { text, csv, md };
/// "table-style": csv md json; "table-part": all codes midpoints overflow; "catalogue-style": text
/// csv md (src/registry.cpp; parse<TableStyle>(…) throws NameError listing them).
const NameTable<TableStyle>& name_table(TableStyle);
const NameTable<TablePart>& name_table(TablePart);
const NameTable<CatalogueStyle>& name_table(CatalogueStyle);

/// The tables of `f` (named `name`) as text. CSV with TablePart::all gives the three CSV blocks
/// separated by an empty line; Markdown and JSON are one document. Deterministic: no locale, no
/// time stamps. Throws Error when f.bits > kMaxTableBits.
std::string render_table(std::string_view name, Format f, TableStyle style, TablePart part = TablePart::all);

/// The format catalogue (name, family, parameters, limits) of `list` as CSV (exact decimals) or
/// as a Markdown table (short exact values: to_short_exact). Throws Error for TableStyle::json.
std::string render_catalogue(const std::vector<NamedFormat>& list, TableStyle style);
/// The same catalogue as an aligned plain-text table for terminals (short exact values).
std::string render_catalogue_text(const std::vector<NamedFormat>& list);

/// The formats written by write_tables: the rows of kNamedFormats (core/named_formats.hpp) of at most
/// 8 bits, in table order, and the 30 IEEE P3109 K = 8 formats.
std::vector<NamedFormat> tabled_formats();

/// Write formats.csv and csv/<fmt>.{codes,midpoints,overflow}.csv, md/<fmt>.md,
/// json/<fmt>.json for every tabled format under `dir` (`dir` itself is created only when its parent
/// exists: file_io.hpp create_output_folder; then its csv/md/json folders). The
/// files are one transaction (file_io.hpp OutputSet): all replaced together, or none on an error or
/// signal. Returns the paths written, relative to `dir`. Throws IoError on an I/O failure.
std::vector<std::string> write_tables(const std::filesystem::path& dir);

/// docs/formats.md: every named format but the P3109 family (name, family, summary), the format
/// patterns, and the catalogue of their parameters and limits and of the P3109 K = 8 formats
/// (render_catalogue). Generated from the registry, as tables/ is; deterministic.
std::string render_formats_page();
/// docs/names.md: every kind of `listings` (name_listings(), plus the training and CUDA layers'
/// for the CLI) with every name and pattern and its summary, in registry order.
std::string render_names_page(const std::vector<NameListing>& listings);
/// Write formats.md and names.md under `dir` (`minifloat docs --out docs`; one transaction, as
/// write_tables; `dir` is created only when its parent exists). Returns the paths written,
/// relative to `dir`. The ctest cli.docs_regenerate_identical diffs them against docs/.
std::vector<std::string> write_docs(const std::filesystem::path& dir, const std::vector<NameListing>& listings);

}  // namespace minifloat
