// SPDX-License-Identifier: Apache-2.0
// tables.cpp: code, midpoint and overflow-threshold tables of a format, computed from the
// format parameters (exact), and their CSV/Markdown/JSON text; the tables/ folder writer and the
// generated reference pages docs/formats.md and docs/names.md.
#include "minifloat/tables.hpp"

#include "minifloat/file_io.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include <unistd.h>

#include "minifloat/core/bits.hpp"
#include "minifloat/decimal.hpp"

namespace minifloat {
namespace {

constexpr std::array<Rounding, 6> kModes{Rounding::rne, Rounding::rna, Rounding::rtz,
                                         Rounding::rtp, Rounding::rtn, Rounding::rto};
constexpr std::array<Overflow, 3> kPolicies{Overflow::nonsat, Overflow::satfinite, Overflow::satpropagate};

void require_small(Format f) {
  if (f.bits > kMaxTableBits)
    throw Error("tables exist for formats of at most " + std::to_string(kMaxTableBits) + " bits; " + format_name(f) +
                " has " + std::to_string(f.bits));
}

Unpacked finite(bool negative, std::uint64_t sig, std::int32_t exp) {
  return Unpacked{sig == 0 ? Class::zero : Class::normal, negative, sig, exp, false};
}

/// The NaN code of the default (`ocp`) profile: sign kept where the format has signed NaNs;
/// IEEE-style formats get the quiet NaN (top mantissa bit). Only called when has_nan(f).
std::uint64_t ocp_nan_code(Format f, bool negative) {
  const std::uint64_t s = negative ? sign_mask(f) : 0;
  switch (f.specials) {
    case Specials::ieee:
      return s | (magnitude_mask(f) - mantissa_mask(f)) | (std::uint64_t{1} << (f.mantissa_bits - 1));
    case Specials::fn: return s | magnitude_mask(f);
    case Specials::fnuz: return sign_mask(f);
    case Specials::p3109_extended: return f.is_signed ? sign_mask(f) : code_mask(f);
    case Specials::none: break;
  }
  return 0;
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

// ---- rows as text -------------------------------------------------------------------------

using Row = std::vector<std::string>;

const Row kCodeHeader{"code", "sign", "exponent", "mantissa", "value", "hex_value", "class"};
const Row kMidHeader{"lower", "upper", "lower_value", "upper_value", "midpoint", "midpoint_hex", "rne"};
const Row kOvfHeader{"rounding", "overflow",      "sign",    "threshold", "threshold_hex", "threshold_overflows",
                     "max_code", "overflow_code", "inf_code"};

Row code_row(Format f, const CodeRow& r) {
  const std::uint64_t mag = r.code & magnitude_mask(f);
  return {code_hex(r.code, f.bits),
          f.is_signed ? std::string((r.code & sign_mask(f)) ? "1" : "0") : std::string(),
          bit_string(mag >> f.mantissa_bits, f.exponent_bits),
          bit_string(mag & mantissa_mask(f), f.mantissa_bits),
          to_decimal(r.value),
          to_hex_float(r.value),
          std::string(class_name(r.cls))};
}
Row mid_row(Format f, const MidpointRow& r) {
  return {code_hex(r.lower, f.bits), code_hex(r.upper, f.bits), to_decimal(r.lower_value), to_decimal(r.upper_value),
          to_decimal(r.midpoint),    to_hex_float(r.midpoint),  code_hex(r.rne, f.bits)};
}
Row ovf_row(Format f, const OverflowRow& r) {
  return {std::string(rounding_name(r.rounding)),
          std::string(overflow_name(r.overflow)),
          r.negative ? "-" : "+",
          to_decimal(r.threshold),
          to_hex_float(r.threshold),
          yes_no(r.threshold_overflows),
          code_hex(r.max_code, f.bits),
          code_hex(r.overflow_code, f.bits),
          code_hex(r.inf_code, f.bits)};
}

std::vector<Row> rows_of(Format f, TablePart part) {
  std::vector<Row> rows;
  if (part == TablePart::codes)
    for (const auto& r : code_table(f)) rows.push_back(code_row(f, r));
  if (part == TablePart::midpoints)
    for (const auto& r : midpoint_table(f)) rows.push_back(mid_row(f, r));
  if (part == TablePart::overflow)
    for (const auto& r : overflow_table(f)) rows.push_back(ovf_row(f, r));
  return rows;
}
const Row& header_of(TablePart part) {
  return part == TablePart::codes ? kCodeHeader : part == TablePart::midpoints ? kMidHeader : kOvfHeader;
}

/// CSV field: quoted only when needed (never, for our contents, but kept correct).
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
void append_csv_line(std::string& out, const Row& r) {
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (i != 0) out += ',';
    out += csv_field(r[i]);
  }
  out += '\n';
}
void append_md_line(std::string& out, const Row& r) {
  out += '|';
  for (const auto& c : r) {
    out += ' ';
    out += c;
    out += " |";
  }
  out += '\n';
}

std::string csv_of(Format f, TablePart part) {
  std::string out;
  append_csv_line(out, header_of(part));
  for (const auto& r : rows_of(f, part)) append_csv_line(out, r);
  return out;
}

std::string md_table(Format f, TablePart part) {
  std::string out;
  const Row& h = header_of(part);
  append_md_line(out, h);
  out += '|';
  for (std::size_t i = 0; i < h.size(); ++i) out += "---|";
  out += '\n';
  for (const auto& r : rows_of(f, part)) append_md_line(out, r);
  return out;
}

std::vector<std::pair<std::string, std::string>> parameter_list(std::string_view name, Format f) {
  const FormatLimits L = format_limits(f);
  return {{"format", std::string(name)},
          {"bits", std::to_string(f.bits)},
          {"exponent_bits", std::to_string(f.exponent_bits)},
          {"mantissa_bits", std::to_string(f.mantissa_bits)},
          {"bias", std::to_string(f.bias)},
          {"signed", yes_no(f.is_signed)},
          {"specials", specials_name(f.specials)},
          {"has_zero", yes_no(f.has_zero)},
          {"has_inf", yes_no(has_inf(f))},
          {"has_nan", yes_no(has_nan(f))},
          {"has_negative_zero", yes_no(has_negative_zero(f))},
          {"max_finite", to_decimal(L.max_finite)},
          {"min_normal", to_decimal(L.min_normal)},
          {"min_subnormal", L.has_subnormals ? to_decimal(L.min_subnormal) : std::string()}};
}

std::string md_of(std::string_view name, Format f, TablePart part) {
  std::string out;
  if (part == TablePart::all) {
    out += "# " + std::string(name) + "\n\n";
    for (const auto& [k, v] : parameter_list(name, f))
      if (k != "format") out += "- " + k + ": " + (v.empty() ? "none" : v) + "\n";
    out += "\nProfile: ocp (the default). Columns: see README.md.\n";
    const std::array<std::pair<TablePart, const char*>, 3> parts{{{TablePart::codes, "Codes"},
                                                                  {TablePart::midpoints, "Rounding midpoints"},
                                                                  {TablePart::overflow, "Overflow thresholds"}}};
    for (const auto& [p, title] : parts) out += "\n## " + std::string(title) + "\n\n" + md_table(f, p);
    return out;
  }
  return md_table(f, part);
}

nlohmann::ordered_json row_json(const Row& header, const Row& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "threshold_overflows") j[header[i]] = r[i] == "yes";
    else j[header[i]] = r[i];
  }
  return j;
}
/// A JSON array with one compact row per line (diff-friendly), indented by `indent` spaces.
std::string json_rows(Format f, TablePart part, int indent) {
  const Row& h = header_of(part);
  const auto rows = rows_of(f, part);
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  std::string out = "[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out += i ? ",\n" : "\n";
    out += pad;
    out += "  ";
    out += row_json(h, rows[i]).dump();
  }
  out += rows.empty() ? "]" : "\n" + pad + "]";
  return out;
}
std::string json_of(std::string_view name, Format f, TablePart part) {
  if (part != TablePart::all) return json_rows(f, part, 0) + "\n";
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& [k, v] : parameter_list(name, f)) {
    if (k == "bits" || k == "exponent_bits" || k == "mantissa_bits" || k == "bias") params[k] = std::stoi(v);
    else if (v == "yes" || v == "no") params[k] = v == "yes";
    else if (v.empty()) params[k] = nullptr;
    else params[k] = v;
  }
  params["profile"] = "ocp";
  std::string out = "{\n  \"parameters\": " + params.dump() + ",\n";
  out += "  \"codes\": " + json_rows(f, TablePart::codes, 2) + ",\n";
  out += "  \"midpoints\": " + json_rows(f, TablePart::midpoints, 2) + ",\n";
  out += "  \"overflow\": " + json_rows(f, TablePart::overflow, 2) + "\n}\n";
  return out;
}

// ---- catalogue ----------------------------------------------------------------------------

const Row kCatalogueHeader{"name",       "family",        "bits",     "E",    "M",
                           "bias",       "signed",        "specials", "zero", "max_finite",
                           "min_normal", "min_subnormal", "inf",      "nan",  "neg_zero"};

Row catalogue_row(const NamedFormat& nf, bool short_values) {
  const Format f = nf.format;
  const FormatLimits L = format_limits(f);
  auto v = [&](const Unpacked& u) { return short_values ? to_short_exact(u) : to_decimal(u); };
  return {nf.name,
          family_name(nf.family),
          std::to_string(f.bits),
          std::to_string(f.exponent_bits),
          std::to_string(f.mantissa_bits),
          std::to_string(f.bias),
          yes_no(f.is_signed),
          specials_name(f.specials),
          yes_no(f.has_zero),
          v(L.max_finite),
          v(L.min_normal),
          L.has_subnormals ? v(L.min_subnormal) : (short_values ? "-" : ""),
          yes_no(has_inf(f)),
          yes_no(has_nan(f)),
          yes_no(has_negative_zero(f))};
}

// ---- the name tables of tables.hpp (registry.hpp NameTable; listed by names.cpp) ----------------

constexpr NameEntry<TableStyle> kTableStyle[] = {
    {TableStyle::csv, "csv", "comma-separated, exact decimals"},
    {TableStyle::md, "md", "Markdown tables"},
    {TableStyle::json, "json", "one JSON document"},
};
constexpr NameEntry<TablePart> kTablePart[] = {
    {TablePart::all, "all", "every code, the midpoints and the overflow thresholds"},
    {TablePart::codes, "codes", "every code with its fields, exact value and class"},
    {TablePart::midpoints, "midpoints", "the rounding midpoints between consecutive values"},
    {TablePart::overflow, "overflow", "the overflow threshold per rounding mode, policy and sign"},
};
constexpr NameEntry<CatalogueStyle> kCatalogueStyle[] = {
    {CatalogueStyle::text, "text", "aligned columns for a terminal, short exact values"},
    {CatalogueStyle::csv, "csv", "comma-separated, exact decimals"},
    {CatalogueStyle::md, "md", "a Markdown table, short exact values"},
};

}  // namespace

std::string specials_name(Specials s) { return std::string(specials_spelling(s)); }

FormatLimits format_limits(Format f) {
  FormatLimits L{};
  L.max_finite = unpack(f, max_finite_magnitude(f));
  L.min_normal = finite(false, 1, emin(f));
  L.has_subnormals = f.has_zero && f.mantissa_bits > 0;
  L.min_subnormal = L.has_subnormals ? finite(false, 1, emin(f) - f.mantissa_bits) : Unpacked{};
  return L;
}

std::vector<CodeRow> code_table(Format f) {
  require_small(f);
  std::vector<CodeRow> rows;
  const std::uint64_t n = std::uint64_t{1} << f.bits;
  rows.reserve(n);
  for (std::uint64_t c = 0; c < n; ++c) {
    rows.push_back(CodeRow{c, classify(f, c), unpack(f, c)});
  }
  return rows;
}

std::vector<MidpointRow> midpoint_table(Format f) {
  require_small(f);
  std::vector<MidpointRow> rows;
  // Magnitude codes 0 … max_finite_magnitude are exactly the non-negative finite values, ascending.
  const std::uint64_t top = max_finite_magnitude(f);
  for (std::uint64_t c = 0; c < top; ++c) {
    const Unpacked a = unpack(f, c), b = unpack(f, c + 1);
    // a = sa·2^ea (sa may be 0), b = sb·2^eb; midpoint = (sa·2^(ea−e) + sb·2^(eb−e))·2^(e−1).
    const std::int32_t ea = a.sig == 0 ? b.exp : a.exp;
    const std::int32_t e = std::min(ea, b.exp);
    const std::uint64_t sum = (a.sig << (ea - e)) + (b.sig << (b.exp - e));
    MidpointRow r{c, c + 1, a, b, finite(false, sum, e - 1), 0};
    if (f.mantissa_bits > 0) r.rne = (c & 1) == 0 ? c : c + 1;
    else r.rne = a.sig == 0 ? c : c + 1;  // no mantissa: ties up, except the tie with zero
    rows.push_back(r);
  }
  return rows;
}

std::vector<OverflowRow> overflow_table(Format f) {
  std::vector<OverflowRow> rows;
  const Unpacked mx = unpack(f, max_finite_magnitude(f));  // maxsig·2^q, maxsig has M+1 bits
  const std::uint64_t maxsig = mx.sig;
  const std::int32_t q = mx.exp;
  const bool odd = (maxsig & 1) != 0;
  for (Rounding r : kModes) {
    for (Overflow o : kPolicies) {
      for (int s = 0; s < (f.is_signed ? 2 : 1); ++s) {
        const bool neg = s == 1;
        OverflowRow row{r, o, neg, {}, false, max_finite_magnitude(f) | (neg ? sign_mask(f) : 0), 0, 0};
        const Unpacked half_up = finite(neg, 2 * maxsig + 1, q - 1);  // max + ulp/2
        const Unpacked next = finite(neg, maxsig + 1, q);             // max + ulp
        const Unpacked at_max = finite(neg, maxsig, q);
        const bool up_side = (r == Rounding::rtp && !neg) || (r == Rounding::rtn && neg);
        switch (r) {
          case Rounding::rne: row.threshold = half_up, row.threshold_overflows = odd; break;
          case Rounding::rna: row.threshold = half_up, row.threshold_overflows = true; break;
          case Rounding::rtz: row.threshold = next, row.threshold_overflows = true; break;
          case Rounding::rto:
            if (odd) row.threshold = next, row.threshold_overflows = true;
            else row.threshold = at_max, row.threshold_overflows = false;
            break;
          case Rounding::rtp:
          case Rounding::rtn:
            if (up_side) row.threshold = at_max, row.threshold_overflows = false;
            else row.threshold = next, row.threshold_overflows = true;
            break;
          case Rounding::sr: break;
          case Rounding::rnz: row.threshold = half_up, row.threshold_overflows = false; break;  // not in kModes
          case Rounding::rnu: row.threshold = half_up, row.threshold_overflows = !neg; break;   // not in kModes
        }
        const bool toward_max =
            r == Rounding::rtz || r == Rounding::rto || (r == Rounding::rtp && neg) || (r == Rounding::rtn && !neg);
        auto beyond = [&](bool saturate) {
          if (saturate) return row.max_code;
          if (has_inf(f)) return inf_code(f, detail::sign_of(neg));
          if (has_nan(f)) return ocp_nan_code(f, neg);
          return row.max_code;
        };
        row.overflow_code = beyond(o != Overflow::nonsat || toward_max);
        row.inf_code = beyond(o == Overflow::satfinite);
        rows.push_back(row);
      }
    }
  }
  return rows;
}

std::string render_table(std::string_view name, Format f, TableStyle style, TablePart part) {
  require_small(f);
  switch (style) {
    case TableStyle::csv:
      if (part != TablePart::all) return csv_of(f, part);
      return csv_of(f, TablePart::codes) + "\n" + csv_of(f, TablePart::midpoints) + "\n" +
             csv_of(f, TablePart::overflow);
    case TableStyle::md: return md_of(name, f, part);
    case TableStyle::json: return json_of(name, f, part);
  }
  return {};
}

std::string render_catalogue(const std::vector<NamedFormat>& list, TableStyle style) {
  std::string out;
  if (style == TableStyle::json) throw Error("the format catalogue is offered as csv, md or text");
  if (style == TableStyle::csv) {
    append_csv_line(out, kCatalogueHeader);
    for (const auto& nf : list) append_csv_line(out, catalogue_row(nf, false));
    return out;
  }
  append_md_line(out, kCatalogueHeader);
  out += '|';
  for (std::size_t i = 0; i < kCatalogueHeader.size(); ++i) out += "---|";
  out += '\n';
  for (const auto& nf : list) append_md_line(out, catalogue_row(nf, true));
  return out;
}

std::string render_catalogue_text(const std::vector<NamedFormat>& list) {
  std::vector<Row> rows{kCatalogueHeader};
  for (const auto& nf : list) rows.push_back(catalogue_row(nf, true));
  std::vector<std::size_t> width(kCatalogueHeader.size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line.append(width[i] - r[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  }
  return out;
}

std::vector<NamedFormat> tabled_formats() {
  std::vector<NamedFormat> v;
  for (const auto& nf : named_formats())
    if (nf.family != FormatFamily::p3109 && nf.format.bits <= 8) v.push_back(nf);
  for (const auto& nf : named_formats())
    if (nf.family == FormatFamily::p3109 && nf.format.bits == 8) v.push_back(nf);
  return v;
}

std::vector<std::string> write_tables(const std::filesystem::path& dir) {
  create_output_folder(dir, "--out");
  for (const char* sub : {"csv", "md", "json"}) {
    std::error_code ec;
    std::filesystem::create_directories(dir / sub, ec);
    if (ec)
      throw IoError("--out '" + dir.string() + "': cannot create '" + (dir / sub).string() + "': " + ec.message());
  }
  // One transaction: every file is checked and gets its temporary before any table is rendered;
  // all are renamed together at the end, so an error or a signal leaves the old tables intact.
  OutputSet out;
  std::vector<std::string> written;
  std::vector<OutputId> ids;
  const auto list = tabled_formats();
  auto add = [&](const std::string& rel) {
    ids.push_back(out.add_output(dir / rel, "--out"));
    written.push_back(rel);
  };
  add("formats.csv");
  for (const auto& nf : list)
    for (const char* suffix : {".codes.csv", ".midpoints.csv", ".overflow.csv"}) add("csv/" + nf.name + suffix);
  for (const auto& nf : list) add("md/" + nf.name + ".md");
  for (const auto& nf : list) add("json/" + nf.name + ".json");
  std::size_t k = 0;
  out.write(ids[k++], render_catalogue(list, TableStyle::csv));
  for (const auto& nf : list)
    for (const TablePart part : {TablePart::codes, TablePart::midpoints, TablePart::overflow})
      out.write(ids[k++], csv_of(nf.format, part));
  for (const auto& nf : list) out.write(ids[k++], md_of(nf.name, nf.format, TablePart::all));
  for (const auto& nf : list) out.write(ids[k++], json_of(nf.name, nf.format, TablePart::all));
  out.commit();
  return written;
}

const NameTable<TableStyle>& name_table(TableStyle) {
  static constexpr NameTable<TableStyle> t{"table-style", "table style", kTableStyle};
  return t;
}
const NameTable<TablePart>& name_table(TablePart) {
  static constexpr NameTable<TablePart> t{"table-part", "table part", kTablePart};
  return t;
}
const NameTable<CatalogueStyle>& name_table(CatalogueStyle) {
  static constexpr NameTable<CatalogueStyle> t{"catalogue-style", "catalogue style", kCatalogueStyle};
  return t;
}

// ---- docs/formats.md and docs/names.md -----------------------------------------------------

namespace {

constexpr std::string_view kGeneratedNote =
    "<!-- Generated by `minifloat docs --out docs` from the registry (src/registry.cpp): do not edit.\n"
    "     The ctest cli.docs_regenerate_identical fails when this file differs from a fresh run. -->\n";

/// A Markdown table cell: `|` escaped, so names such as `{s|u}` stay in one cell.
std::string md_cell(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

std::string render_formats_page() {
  std::string out(kGeneratedNote);
  out +=
      "\n# Formats\n\n"
      "Every format name the library and the tool accept (`minifloat formats --family all`, `minifloat names\n"
      "format`); names are case-insensitive, and the ml_dtypes spellings such as `float8_e4m3fn` are accepted as\n"
      "aliases. How a value is rounded into them: [conversion.md](conversion.md).\n\n"
      "| name | family | summary |\n| --- | --- | --- |\n";
  std::vector<NamedFormat> named, p3109_8;
  for (const auto& nf : named_formats()) {
    if (nf.family != FormatFamily::p3109) named.push_back(nf);
    if (nf.family == FormatFamily::p3109 && nf.format.bits == 8) p3109_8.push_back(nf);
  }
  for (const auto& nf : named)
    out += "| `" + nf.name + "` | " + family_name(nf.family) + " | " + md_cell(nf.summary) + " |\n";
  for (const auto& p : format_patterns())
    out += "| `" + md_cell(p.pattern) + "` | pattern | " + md_cell(p.summary) + " |\n";
  out +=
      "\n## Parameters and limits\n\n"
      "Exact values, shortened where long (`minifloat formats --as csv` gives them in full).\n\n";
  out += render_catalogue(named, TableStyle::md);
  out +=
      "\n## IEEE P3109, K = 8\n\n"
      "The P3109 formats of 8 bits (`minifloat formats --family p3109 --bits 8`; every K of 3..16 is\n"
      "accepted).\n\n";
  out += render_catalogue(p3109_8, TableStyle::md);
  return out;
}

std::string render_names_page(const std::vector<NameListing>& listings) {
  std::string out(kGeneratedNote);
  out +=
      "\n# Names\n\n"
      "Every name the library and the tool accept, by kind, from the one registry\n"
      "(`include/minifloat/registry.hpp`; the training and CUDA layers add theirs); `minifloat names [KIND]`\n"
      "prints the same. Names are case-insensitive. Which option takes which kind:\n"
      "[cli.md](cli.md#names-and-options).\n";
  for (const auto& l : listings) {
    out += "\n## `" + l.id + "`\n\n`minifloat names " + l.id + "`: " + md_cell(l.kind) +
           ".\n\n| name | summary |\n| --- | --- |\n";
    for (const auto& [n, summary] : l.names) out += "| `" + md_cell(n) + "` | " + md_cell(summary) + " |\n";
    for (const auto& p : l.patterns) out += "| `" + md_cell(p.pattern) + "` | pattern: " + md_cell(p.summary) + " |\n";
  }
  return out;
}

std::vector<std::string> write_docs(const std::filesystem::path& dir, const std::vector<NameListing>& listings) {
  create_output_folder(dir, "--out");
  OutputSet out;
  const OutputId formats = out.add_output(dir / "formats.md", "--out");
  const OutputId names = out.add_output(dir / "names.md", "--out");
  out.write(formats, render_formats_page());
  out.write(names, render_names_page(listings));
  out.commit();
  return {"formats.md", "names.md"};
}

}  // namespace minifloat
