// SPDX-License-Identifier: Apache-2.0
// objects_ext.cpp: the parsed argument objects of the extension (issue 24 item 2): minifloat::Format,
// RoundingSpec and Profile as nanobind classes. Each is made once from its name(s) with the library's
// parsers (parse_format, the rounding/overflow/SR-variant name tables, parse_profile) and then passed
// by reference to every extension function, so C++ never parses the same name again. The Python
// package caches them per name (python/minifloat/__init__.py: _format, _spec, _profile).
//
// Errors: Format(name) and Profile(name) raise ValueError with the library's message unprefixed (the
// Python resolver puts the argument's name in front: "fmt: ", "source: ", "profile: ", ...);
// RoundingSpec(round, overflow, sr_variant, sr_bits) prefixes each field's message with the
// argument that names it ("round: ", "overflow: ", "sr['variant']: ", "sr['bits']: ").
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/optional.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "with_arg.hpp"
#include "minifloat/names.hpp"
#include "minifloat/convert_array.hpp"
#include "minifloat/parse.hpp"
#include "minifloat/registry.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace minifloat;

using python::with_arg;

namespace {

RoundingSpec make_spec(std::string_view round, std::string_view overflow, std::string_view sr_variant,
                       long long sr_nbits, bool ftz, bool daz) {
  RoundingSpec spec;
  spec.ftz = ftz;
  spec.daz = daz;
  spec.rounding = with_arg("round", [&] { return parse<Rounding>(round); });
  spec.overflow = with_arg("overflow", [&] { return parse<Overflow>(overflow); });
  spec.sr_variant = with_arg("sr['variant']", [&] { return parse<SrVariant>(sr_variant); });
  if (const std::string p = sr_bits_problem(sr_nbits); !p.empty()) throw Error("sr['bits']: " + p);
  spec.sr_bits = static_cast<std::uint8_t>(sr_nbits);
  return spec;
}

std::size_t hash_text(const std::string& s) { return std::hash<std::string>{}(s); }

std::string spec_repr(const RoundingSpec& s) {
  return "RoundingSpec(round='" + std::string(name(s.rounding)) + "', overflow='" + std::string(name(s.overflow)) +
         "', sr_variant='" + std::string(name(s.sr_variant)) + "', sr_bits=" + std::to_string(int(s.sr_bits)) +
         (s.ftz ? ", ftz=True" : "") + (s.daz ? ", daz=True" : "") + ")";
}

}  // namespace

void bind_objects(nb::module_& m) {
  nb::class_<Format>(m, "Format",
                     "A parsed number format (core/format.hpp): Format(name) parses a name, alias or "
                     "custom:E,M,BIAS,... once (ValueError with the library's message if unknown).")
      .def(
          "__init__", [](Format* f, std::string_view text) { new (f) Format(parse_format(text)); }, "name"_a)
      .def_prop_ro(
          "name", [](const Format& f) { return format_name(f); }, "The canonical name.")
      .def_prop_ro(
          "bits", [](const Format& f) { return int(f.bits); }, "Code width in bits.")
      .def_prop_ro("exponent_bits", [](const Format& f) { return int(f.exponent_bits); })
      .def_prop_ro(
          "mantissa_bits", [](const Format& f) { return int(f.mantissa_bits); }, "Trailing significand bits.")
      .def_prop_ro("bias", [](const Format& f) { return int(f.bias); })
      .def_prop_ro("signed", [](const Format& f) { return f.is_signed; })
      .def("__repr__", [](const Format& f) { return "Format('" + format_name(f) + "')"; })
      .def("__str__", [](const Format& f) { return format_name(f); })
      .def(
          "__eq__", [](const Format& a, const Format& b) { return a == b; }, nb::is_operator())
      .def(
          "__ne__", [](const Format& a, const Format& b) { return !(a == b); }, nb::is_operator())
      .def("__hash__", [](const Format& f) { return hash_text(format_name(f)); });

  nb::class_<RoundingSpec>(m, "RoundingSpec",
                           "A parsed rounding choice (core/rounding.hpp): RoundingSpec(round, overflow, "
                           "sr_variant='exact', sr_bits=8, *, ftz=False, daz=False); ValueError naming the bad field.")
      .def(
          "__init__",
          [](RoundingSpec* s, std::string_view round, std::string_view overflow, std::string_view sr_variant,
             long long sr_bits, bool ftz,
             bool daz) { new (s) RoundingSpec(make_spec(round, overflow, sr_variant, sr_bits, ftz, daz)); },
          "round"_a = "rne", "overflow"_a = "nonsat", "sr_variant"_a = "exact", "sr_bits"_a = 8, nb::kw_only(),
          "ftz"_a = false, "daz"_a = false)
      .def_prop_ro(
          "round", [](const RoundingSpec& s) { return std::string(name(s.rounding)); }, "Rounding mode.")
      .def_prop_ro("overflow", [](const RoundingSpec& s) { return std::string(name(s.overflow)); })
      .def_prop_ro("sr_variant", [](const RoundingSpec& s) { return std::string(name(s.sr_variant)); })
      .def_prop_ro(
          "sr_bits", [](const RoundingSpec& s) { return int(s.sr_bits); }, "N of SR variants A/B/C/stochastic_odd.")
      .def_prop_ro(
          "ftz", [](const RoundingSpec& s) { return s.ftz; }, "A result that rounds to a subnormal becomes +-0.")
      .def_prop_ro(
          "daz", [](const RoundingSpec& s) { return s.daz; }, "Subnormal inputs read as +-0.")
      .def("__repr__", &spec_repr)
      .def(
          "__eq__", [](const RoundingSpec& a, const RoundingSpec& b) { return a == b; }, nb::is_operator())
      .def(
          "__ne__", [](const RoundingSpec& a, const RoundingSpec& b) { return !(a == b); }, nb::is_operator())
      .def("__hash__", [](const RoundingSpec& s) { return hash_text(spec_repr(s)); });

  nb::class_<Profile>(m, "Profile",
                      "A parsed vendor profile (core/profile.hpp): Profile(name) for ocp nvidia ml_dtypes p3109 "
                      "(ValueError with the library's message if unknown).")
      .def(
          "__init__", [](Profile* p, std::string_view text) { new (p) Profile(parse_profile(text)); }, "name"_a)
      .def_prop_ro(
          "name", [](const Profile& p) { return std::string(profile_name(p)); }, "The profile's name.")
      .def("__repr__", [](const Profile& p) { return "Profile('" + std::string(profile_name(p)) + "')"; })
      .def("__str__", [](const Profile& p) { return std::string(profile_name(p)); })
      .def(
          "__eq__", [](const Profile& a, const Profile& b) { return a == b; }, nb::is_operator())
      .def(
          "__ne__", [](const Profile& a, const Profile& b) { return !(a == b); }, nb::is_operator())
      .def("__hash__", [](const Profile& p) { return hash_text(std::string(profile_name(p))); });
}
