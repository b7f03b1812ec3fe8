// SPDX-License-Identifier: Apache-2.0
// options.hpp: what every command's valued options share — help text and accepted-list errors
// derived from the name registry (registry.hpp; no name lists are written by hand in src/cli/),
// integer options whose error names the accepted range, and the output transaction of a command.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "minifloat/error.hpp"
#include "minifloat/registry.hpp"

namespace minifloat::cli {

/// "rne (default), rna, rtz, …": the names of `t` for a help string, `dflt` marked as the default.
template <class V>
std::string choices(const NameTable<V>& t, std::string_view dflt = {}) {
  std::string s;
  for (const auto& e : t.entries) {
    (s += s.empty() ? "" : ", ") += e.name;
    if (!dflt.empty() && iequals(e.name, dflt)) s += " (default)";
  }
  for (const auto& p : t.patterns) (s += s.empty() ? "" : ", ") += p.pattern;
  return s;
}
template <NamedEnum E>
std::string choices(std::string_view dflt = {}) {
  return choices(name_table(E{}), dflt);
}

/// The entry of `t` that option `option` names; throws NameError
/// "<option>: unknown <kind> '<text>'; accepted: <names>".
template <class V>
const NameEntry<V>& parse_option(std::string_view option, const NameTable<V>& t, std::string_view text) {
  if (const auto* e = find_name(t, text)) return *e;
  try {
    throw_unknown_name(t, text);
  } catch (const NameError& e) {
    throw NameError(std::string(option) + ": " + e.what());
  }
}
template <NamedEnum E>
E parse_option(std::string_view option, std::string_view text) {
  return parse_option(option, name_table(E{}), text).value;
}

/// Rethrows any minifloat::Error of `fn()` with "<option>: " in front (same exception type kept
/// for NameError and ParseError).
template <class Fn>
auto with_option(std::string_view option, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const NameError& e) {
    throw NameError(std::string(option) + ": " + e.what());
  } catch (const ParseError& e) {
    throw ParseError(std::string(option) + ": " + e.what());
  }
}

/// A closed range of an integer option.
struct IntRange {
  long long lo, hi;
};
/// The decimal integer `text` of option `option` within `r`; throws Error
/// "<option> '<text>' is out of range; accepted: lo..hi" (also for integers beyond 64 bits) or
/// "<option> '<text>' is not an integer; accepted: lo..hi". The text is quoted at most 40 chars.
long long parse_int_option(std::string_view option, std::string_view text, IntRange r);
/// An array shape as NumPy prints it: "(3, 4)", "(3,)", "()".
std::string shape_text(const std::vector<std::size_t>& s);

}  // namespace minifloat::cli
