// SPDX-License-Identifier: Apache-2.0
// registry.hpp: the one name registry. Every value a user can name (formats, rounding modes,
// overflow policies, profiles, SR variants, scale rules, special-block policies, block schemes,
// accumulation models, table styles, …; the training layer adds recipes and models) has one table
// of {value, canonical name, one-line summary}, and everything else — parse_*(), name(), the CLI's
// help and accepted-list errors, `minifloat names`, docs/names.md and docs/formats.md (generated:
// `minifloat docs`) — is derived from it. parse(name(x)) == x is tested for every entry of every
// table, and a test checks that docs/cli.md lists exactly these kinds.
//
// This header holds the machinery and the tables of the core's kinds (formats, rounding, overflow,
// profiles, SR variants, the block-scaling policies of core/block_scale.hpp, decode targets). Adding a
// kind: declare `const NameTable<E>& name_table(E);` next to the enum (an overload found by
// argument-dependent lookup; the argument is only a tag), define the table in that module's .cpp
// (src/registry.cpp for the core's kinds), add it to its layer's name_listings() (names.hpp for the
// compiled library; check/names.hpp, train/study.hpp, cuda/names.hpp), its row (which options take it)
// to docs/cli.md, and regenerate docs/names.md (`minifloat docs --out docs`). Parameterised families (Binary{K}p{P}{s|u}{e|f}, custom:…, blocked<N>,
// <preset>+blocked<N>, block-scheme spec strings: scheme.hpp) are listed as NamePatterns.
#pragma once
#include <concepts>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/block_scale.hpp"
#include "core/format.hpp"
#include "core/named_formats.hpp"
#include "core/profile.hpp"
#include "core/rounding.hpp"
#include "error.hpp"

namespace minifloat {

// =============================================================================================
// The generic interface
// =============================================================================================

/// One name a user can give: the value it stands for, its canonical spelling, a one-line summary.
template <class V>
struct NameEntry {
  V value;
  std::string_view name;     ///< canonical spelling; parsing ignores ASCII case
  std::string_view summary;  ///< one line: what it means and which spec or vendor it follows
};

/// A parameterised family of names that a kind also accepts, listed by its pattern.
struct NamePattern {
  std::string_view pattern;  ///< "blocked<N>", "Binary{K}p{P}{s|u}{e|f}", "custom:E,M,BIAS,…"
  std::string_view summary;
};

/// The name table of one kind: every entry in canonical order, and the families accepted beyond them.
template <class V>
struct NameTable {
  std::string_view id;    ///< the kind's id, as `minifloat names ID` takes it: "rounding", "scale-rule", …
  std::string_view kind;  ///< the human label used in messages: "unknown <kind> 'x'; accepted: …"
  std::span<const NameEntry<V>> entries;
  std::span<const NamePattern> patterns = {};
};

/// The user's text as an error message quotes it: at most 40 bytes (then "…"), printable ASCII as
/// is and every other byte (and the backslash) as \xNN, so a message stays one line. No error
/// echoes more than that of its input.
std::string quote_input(std::string_view text);

/// Whether `a` and `b` are equal ignoring ASCII case.
bool iequals(std::string_view a, std::string_view b) noexcept;

/// `noun` with its indefinite article, as messages write it: "an e4m3fn", "an f32", "an mxfp4",
/// "a ue4m3", "a Binary8p3se", "a code", "a format" ("an" before a, e, i, o, and before a lowercase
/// abbreviation read letter by letter: f h l m n r s x followed by no vowel among its leading letters).
std::string with_article(std::string_view noun);

/// The items of the comma-separated list `list`, in order (commas inside a `custom:E,M,…` format, up to
/// the next '/', belong to it). Throws NameError on an empty item (a leading, trailing or doubled comma),
/// naming `noun` ("scheme") and the list.
std::vector<std::string> split_list(std::string_view list, std::string_view noun);

/// parse_list's refusal: "<noun> 'first' is listed twice[ (as 'first' and 'second')]; name each <noun> once".
[[noreturn]] void throw_listed_twice(std::string_view noun, std::string_view first, std::string_view second);
/// The one parser of the comma-separated lists of names (report --schemes, train --recipes, …):
/// `parse(item)` for every item of split_list(list, noun), refusing two items whose `key(value)` are
/// equal (two spellings of one scheme included) with NameError "<noun> 'a' is listed twice …".
template <class T, class Parse, class Key>
std::vector<T> parse_list(std::string_view list, std::string_view noun, Parse&& parse, Key&& key) {
  std::vector<T> out;
  std::vector<std::string> keys, items;
  for (const std::string& item : split_list(list, noun)) {
    T v = parse(item);
    std::string k = key(v);
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == k) throw_listed_twice(noun, items[i], item);
    keys.push_back(std::move(k));
    items.push_back(item);
    out.push_back(std::move(v));
  }
  return out;
}

/// "a, b, c" — the accepted names of `t`, then its patterns.
template <class V>
std::string accepted_names(const NameTable<V>& t) {
  std::string s;
  for (const auto& e : t.entries) (s += s.empty() ? "" : ", ") += e.name;
  for (const auto& p : t.patterns) (s += s.empty() ? "" : ", ") += p.pattern;
  return s;
}

/// The entry of `t` named `text` (ASCII case ignored), or nullptr.
template <class V>
const NameEntry<V>* find_name(const NameTable<V>& t, std::string_view text) noexcept {
  for (const auto& e : t.entries)
    if (iequals(e.name, text)) return &e;
  return nullptr;
}

/// The error every lookup throws: NameError "unknown <kind> '<text>'; accepted: <list>".
template <class V>
[[noreturn]] void throw_unknown_name(const NameTable<V>& t, std::string_view text) {
  throw NameError("unknown " + std::string(t.kind) + " '" + quote_input(text) + "'; accepted: " + accepted_names(t));
}

/// The entry of `t` named `text`; throws NameError listing the accepted names otherwise.
template <class V>
const NameEntry<V>& lookup_name(const NameTable<V>& t, std::string_view text) {
  if (const auto* e = find_name(t, text)) return *e;
  throw_unknown_name(t, text);
}

/// An enum with a registered name table (`name_table(E{})` found by argument-dependent lookup).
template <class E>
concept NamedEnum = std::is_enum_v<E> && requires {
  { name_table(E{}) } -> std::same_as<const NameTable<E>&>;
};

/// The value of `E` named `text` (case-insensitive); throws NameError "unknown <kind> …; accepted: …".
template <NamedEnum E>
E parse(std::string_view text) {
  return lookup_name(name_table(E{}), text).value;
}
/// The canonical name of `v`; "?" only for a value outside the enum (a test checks every enumerator
/// has an entry).
template <NamedEnum E>
std::string_view name(E v) noexcept {
  for (const auto& e : name_table(E{}).entries)
    if (e.value == v) return e.name;
  return "?";
}
/// Every canonical name of `E`, in table order.
template <NamedEnum E>
std::vector<std::string_view> names() {
  std::vector<std::string_view> out;
  for (const auto& e : name_table(E{}).entries) out.push_back(e.name);
  return out;
}
/// The kind's human label ("rounding mode").
template <NamedEnum E>
std::string_view kind_label() noexcept {
  return name_table(E{}).kind;
}

// =============================================================================================
// The tables of the core's enums (src/registry.cpp)
// =============================================================================================

const NameTable<Rounding>& name_table(Rounding);    ///< "rounding": rne rna rtz rtp rtn rto sr
const NameTable<Overflow>& name_table(Overflow);    ///< "overflow": nonsat satfinite satpropagate
const NameTable<SrVariant>& name_table(SrVariant);  ///< "sr-variant": exact A B C equal
const NameTable<ScaleRule>& name_table(
    ScaleRule);  ///< "scale-rule": ocp_floor rceil ceil even tosa fp32_amax fp32_pow2 nvfp4
const NameTable<ZeroBlock>& name_table(ZeroBlock);            ///< "zero-block": standard min_scale unit_scale nan
const NameTable<NanInBlock>& name_table(NanInBlock);          ///< "nan-block": whole_block_nan element_only
const NameTable<InfInBlock>& name_table(InfInBlock);          ///< "inf-block": nan_scale max_scale
const NameTable<SubnormalAmax>& name_table(SubnormalAmax);    ///< "subnormal-amax": keep flush_block
const NameTable<Mxint8Min>& name_table(Mxint8Min);            ///< "mxint8-min": twos_complement symmetric
const NameTable<Fp32ScaleOrder>& name_table(Fp32ScaleOrder);  ///< "fp32-order": te_multiply divide

inline Rounding parse_rounding(std::string_view text) { return parse<Rounding>(text); }
inline Overflow parse_overflow(std::string_view text) { return parse<Overflow>(text); }
inline SrVariant parse_sr_variant(std::string_view text) { return parse<SrVariant>(text); }
inline ScaleRule parse_scale_rule(std::string_view text) { return parse<ScaleRule>(text); }
inline std::string_view rounding_name(Rounding r) noexcept { return name(r); }
inline std::string_view overflow_name(Overflow o) noexcept { return name(o); }
inline std::string_view sr_variant_name(SrVariant v) noexcept { return name(v); }
inline std::string_view scale_rule_name(ScaleRule r) noexcept { return name(r); }

// =============================================================================================
// Profiles
// =============================================================================================

/// "profile": ocp (default) nvidia ml_dtypes p3109 — the named `profiles::` sets.
const NameTable<Profile>& profile_table();
/// The named profile `text` (case-insensitive); throws NameError listing the accepted names.
Profile parse_profile(std::string_view text);
/// The name of `p` if it is one of the named profiles, else "custom".
std::string_view profile_name(const Profile& p) noexcept;

// =============================================================================================
// Formats
// =============================================================================================

/// A format with its canonical name, family and one-line description.
struct NamedFormat {
  std::string name;  ///< canonical name: "e4m3fn", "Binary8p3se", …
  Format format;
  FormatFamily family;  ///< printed by family_name(): "ocp", "fnuz", …, "p3109"
  std::string summary;  ///< one line: standard and notes
};

/// Every registered format: the rows of kNamedFormats (core/named_formats.hpp), in order, then the
/// IEEE P3109 family Binary{K}p{P}{s|u}{e|f} for 3 ≤ K ≤ 16 (names as in the P3109 interim report v4.0).
const std::vector<NamedFormat>& named_formats();
/// The families parse_format accepts beyond the named formats: Binary{K}p{P}{s|u}{e|f} and custom:….
std::span<const NamePattern> format_patterns();

/// Resolve a format name (case-insensitive; the aliases of kNamedFormats' rows — ml_dtypes names such as
/// float8_e4m3fn, float4_e2m1fn, bfloat16, and binary16, half, binary32, … — accepted) or a user-defined descriptor
/// `custom:E,M,BIAS,signed|unsigned,ieee|fn|fnuz|p3109_extended|none[,nozero]`.
/// Throws NameError listing the accepted names and patterns.
Format parse_format(std::string_view name);
/// The canonical name of `f`, or its `custom:…` descriptor when it has none.
std::string format_name(Format f);
/// How `custom:…` descriptors, format_name and the tables spell `s`: ieee fn fnuz p3109_extended none
/// ("?" only for a value outside the enum).
std::string_view specials_spelling(Specials s) noexcept;

/// "decode-target": the IEEE formats `decode --to` prints bits in (f32 f64 f16 bf16).
const NameTable<Format>& decode_target_table();

// =============================================================================================
// Listing a kind (`minifloat names`, docs/names.md, the docs test; each layer's name_listings(): names.hpp)
// =============================================================================================

/// One kind of name as `minifloat names` prints it and docs/names.md lists it.
struct NameListing {
  std::string id;                                          ///< NameTable::id
  std::string kind;                                        ///< NameTable::kind
  std::vector<std::pair<std::string, std::string>> names;  ///< (canonical name, summary), table order
  std::vector<NamePattern> patterns;
};

/// The listing of one table.
template <class V>
NameListing listing(const NameTable<V>& t) {
  NameListing l{std::string(t.id), std::string(t.kind), {}, {t.patterns.begin(), t.patterns.end()}};
  for (const auto& e : t.entries) l.names.emplace_back(e.name, e.summary);
  return l;
}

}  // namespace minifloat
