// SPDX-License-Identifier: Apache-2.0
// minifloat_ext.cpp: the nanobind extension `minifloat._minifloat` (issue 13). A thin layer over
// the compiled library minifloat::minifloat — the same code the CLI links — so Python gets the same
// bits: every conversion goes through convert_span.hpp / stochastic.hpp (whole arrays) or the core's
// scalar `convert` (code → code), which all round once with round_pack.
//
// The Python package (python/minifloat/__init__.py) validates dtypes and shapes, makes inputs
// C-contiguous (a no-op, hence zero-copy, for contiguous inputs), allocates the outputs and calls
// the functions below on flat 1-D arrays. Formats, rounding specs and profiles arrive parsed, as the
// bound objects of objects_ext.cpp (made once per name and cached by the package), so unknown names
// raise the library's one-line messages and no name is parsed twice. Every
// minifloat::Error becomes ValueError with the library's what(), prefixed by the argument name as
// the CLI prefixes its option name. The GIL is released while arrays are converted.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "with_arg.hpp"
#include "minifloat/convert_array.hpp"
#include "minifloat/convert_span.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/core/round_pack.hpp"
#include "minifloat/decimal.hpp"
#include "minifloat/names.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/parse.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/stochastic.hpp"
#include "minifloat/tables.hpp"
#include "minifloat/check/names.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace minifloat;

using python::with_arg;

namespace {

/// A flat, C-contiguous CPU array (read-only view); its dtype is checked at run time.
using InArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
/// A flat, C-contiguous, writable CPU array.
using OutArray = nb::ndarray<nb::c_contig, nb::device::cpu>;

template <NamedEnum E>
E enum_arg(std::string_view arg, std::string_view text) {
  return with_arg(arg, [&] { return parse<E>(text); });
}

/// The array conversion behind minifloat.convert: `x` (flat, element type `type`; codes: uint8 or
/// uint16 of `source_fmt`) → `out` codes of `fmt`, through the library's array door convert_array.
std::uint8_t convert_array_py(ArrayType type, const InArray& x, OutArray& out, const Format& fmt,
                              const std::optional<Format>& source_fmt, const RoundingSpec& spec, const Profile& profile,
                              std::optional<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t, std::uint64_t>> sr,
                              unsigned threads) {
  ConvertRequest req;
  req.to = fmt;
  req.spec = spec;
  req.profile = profile;
  if (req.spec.rounding == Rounding::sr && !sr)
    throw Error("round: 'sr' needs sr=dict(seed=..., stream=..., step=..., variant=..., bits=...)");
  if (req.spec.rounding != Rounding::sr && sr) throw Error("sr: given, but round is not 'sr'");
  if (sr) req.sr = SrStream{std::get<0>(*sr), std::get<1>(*sr), std::get<2>(*sr), std::get<3>(*sr)};
  req.threads = threads;
  if (req.to.bits > 16)
    throw Error("fmt: codes of " + format_name(req.to) + " are " + std::to_string(req.to.bits) +
                " bits wide; accepted: formats of at most 16 bits (use a float dtype for f32/f64)");
  const std::size_t n = x.size();
  ArrayIn in{type, x.data(), n, {}, 0};
  if (type == ArrayType::codes) {
    if (!source_fmt) throw Error("source: integer code arrays need source=FORMAT (the codes' format)");
    in.code_format = *source_fmt;
    in.code_bytes = static_cast<std::uint8_t>(x.itemsize());
    if (in.code_format.bits > 8 * x.itemsize())
      throw Error("source: codes of " + format_name(in.code_format) + " are " + std::to_string(in.code_format.bits) +
                  " bits wide; the array's elements have " + std::to_string(8 * x.itemsize()));
  }
  const std::size_t want_item = type == ArrayType::f32     ? 4
                                : type == ArrayType::f64   ? 8
                                : type == ArrayType::codes ? x.itemsize()
                                                           : 2;
  if (x.itemsize() != want_item) throw Error("internal: input element size does not match its type");
  if (out.size() != n || out.itemsize() != (req.to.bits <= 8 ? 1u : 2u))
    throw Error("internal: output array has the wrong size or element type");
  nb::gil_scoped_release nogil;
  if (out.itemsize() == 1)
    return static_cast<std::uint8_t>(convert_array(in, std::span(static_cast<std::uint8_t*>(out.data()), n), req, "x"));
  return static_cast<std::uint8_t>(convert_array(in, std::span(static_cast<std::uint16_t*>(out.data()), n), req, "x"));
}

/// minifloat.decode's core: codes (flat uint8/uint16) of `fmt` → f32 or f64 values.
std::uint8_t decode_array(const InArray& codes, OutArray& out, const Format& from, const Profile& prof) {
  if (from.bits > 16)
    throw Error("fmt: codes of " + format_name(from) + " are " + std::to_string(from.bits) +
                " bits wide; accepted: formats of at most 16 bits");
  if (codes.size() != out.size()) throw Error("internal: output array has the wrong size");
  const std::size_t n = codes.size();
  const std::size_t cb = codes.itemsize(), ob = out.itemsize();
  if ((cb != 1 && cb != 2) || (ob != 4 && ob != 8)) throw Error("internal: bad element sizes");
  if (cb * 8 < from.bits)
    throw Error("codes: " + format_name(from) + " codes need a " + (from.bits <= 8 ? "uint8" : "uint16") +
                " array or wider");
  const void* in = codes.data();
  void* o = out.data();
  Flags f = flag_none;
  nb::gil_scoped_release nogil;
  if (cb == 1) {
    const std::span<const std::uint8_t> c(static_cast<const std::uint8_t*>(in), n);
    f = ob == 4 ? decode_to_f32(c, {static_cast<float*>(o), n}, from, prof)
                : decode_to_f64(c, {static_cast<double*>(o), n}, from, prof);
  } else {
    const std::span<const std::uint16_t> c(static_cast<const std::uint16_t*>(in), n);
    f = ob == 4 ? decode_to_f32(c, {static_cast<float*>(o), n}, from, prof)
                : decode_to_f64(c, {static_cast<double*>(o), n}, from, prof);
  }
  return static_cast<std::uint8_t>(f);
}

/// minifloat.sr_bits: fill `out` (flat uint64) with the random words of the documented stream.
void sr_bits_array(OutArray& out, std::uint64_t seed, std::uint32_t stream, std::uint32_t step,
                   std::uint64_t index_base, std::string_view variant, long long bits) {
  const SrVariant v = enum_arg<SrVariant>("variant", variant);
  if (const std::string p = sr_bits_problem(bits); !p.empty()) throw Error("bits: " + p);
  if (out.itemsize() != 8) throw Error("internal: sr_bits needs a uint64 output");
  const SrStream s{.seed = seed, .stream = stream, .step = step, .index_base = index_base};
  const RoundingSpec spec{.rounding = Rounding::sr, .sr_variant = v, .sr_bits = static_cast<std::uint8_t>(bits)};
  std::span<std::uint64_t> o(static_cast<std::uint64_t*>(out.data()), out.size());
  nb::gil_scoped_release nogil;
  fill_sr_bits(s, spec, o);
}

/// Exact decimal strings of a format's limits, plus its fields (Python turns them into Fractions).
nb::dict format_info(const Format& f) {
  nb::dict d;
  d["name"] = format_name(f);
  d["bits"] = int(f.bits);
  d["exponent_bits"] = int(f.exponent_bits);
  d["mantissa_bits"] = int(f.mantissa_bits);
  d["precision"] = precision(f);
  d["bias"] = int(f.bias);
  d["signed"] = f.is_signed;
  d["specials"] = specials_name(f.specials);
  d["has_zero"] = f.has_zero;
  d["has_inf"] = has_inf(f);
  d["has_nan"] = has_nan(f);
  d["has_negative_zero"] = has_negative_zero(f);
  d["emin"] = emin(f);
  d["emax"] = emax(f);
  d["max_code"] = max_finite_magnitude(f);
  const FormatLimits l = format_limits(f);
  d["max"] = to_decimal(l.max_finite);
  d["min_normal"] = to_decimal(l.min_normal);
  d["has_subnormals"] = l.has_subnormals;
  d["min_subnormal"] = l.has_subnormals ? nb::cast(to_decimal(l.min_subnormal)) : nb::none();
  d["family"] = nb::none();
  d["summary"] = nb::none();
  for (const auto& nf : named_formats())
    if (nf.format == f) {
      d["family"] = family_name(nf.family);
      d["summary"] = nf.summary;
      break;
    }
  return d;
}

/// Every code of `fmt` (≤ 16 bits): (codes, class names, exact decimal strings).
std::tuple<std::vector<std::uint64_t>, std::vector<std::string>, std::vector<std::string>> code_table_rows(
    const Format& f) {
  const std::vector<CodeRow> rows = with_arg("fmt", [&] { return code_table(f); });
  std::tuple<std::vector<std::uint64_t>, std::vector<std::string>, std::vector<std::string>> t;
  for (const auto& r : rows) {
    std::get<0>(t).push_back(r.code);
    std::get<1>(t).emplace_back(class_name(r.cls));
    std::get<2>(t).push_back(to_decimal(r.value));
  }
  return t;
}

/// One value (exact text: decimal, hex float, inf, nan) → (code, flags), rounding once.
std::pair<std::uint64_t, std::uint8_t> encode_scalar(std::string_view value, const Format& to,
                                                     const std::optional<Format>& source, const RoundingSpec& spec,
                                                     const Profile& prof, std::uint64_t rbits) {
  if (validate(to) != FormatError::ok) throw Error("fmt: the format fails validate()");
  RoundResult r;
  if (source) {
    const Format& from = *source;
    const std::uint64_t code = with_arg("value", [&] { return parse_code(value, from); });
    r = convert(from, code, to, spec, prof, rbits);
  } else {
    const Unpacked u = with_arg("value", [&] { return parse_value(value); });
    r = round_pack(to, u, spec, prof, rbits);
  }
  return {r.code, static_cast<std::uint8_t>(r.flags)};
}

/// The exact value of one code: (class name, exact decimal string, C99 hex float).
std::tuple<std::string, std::string, std::string> decode_scalar(std::uint64_t code, const Format& f) {
  if ((code & ~code_mask(f)) != 0)
    throw ParseError("code: " + code_hex(code, 64) + " is wider than the " + std::to_string(f.bits) + " bits of " +
                     format_name(f));
  const Unpacked v = unpack(f, code);
  return {std::string(class_name(classify(f, code))), to_decimal(v), to_hex_float(v)};
}

/// (id, kind, [(name, summary)], [(pattern, summary)]) for every kind of the registry.
std::vector<std::tuple<std::string, std::string, std::vector<std::pair<std::string, std::string>>,
                       std::vector<std::pair<std::string, std::string>>>>
names_listing() {
  std::vector<std::tuple<std::string, std::string, std::vector<std::pair<std::string, std::string>>,
                         std::vector<std::pair<std::string, std::string>>>>
      out;
  std::vector<NameListing> all = name_listings();  // the library's kinds, then the checker's
  for (auto& l : check::name_listings()) all.push_back(std::move(l));
  for (const auto& l : all) {
    std::vector<std::pair<std::string, std::string>> pats;
    for (const auto& p : l.patterns) pats.emplace_back(std::string(p.pattern), std::string(p.summary));
    out.emplace_back(l.id, l.kind, l.names, pats);
  }
  return out;
}

/// bench/bench_python.py's baseline: the best of `repeats` wall times (seconds) of one direct
/// convert_f32 span call (rne, nonsat, ocp) over `x` into `out`, timed in C++ with the GIL released.
double span_call_seconds(const InArray& x, OutArray& out, const Format& to, unsigned repeats) {
  if (x.itemsize() != 4 || out.itemsize() != 1 || x.size() != out.size() || repeats < 1)
    throw Error("span_call_seconds: needs float32 x, uint8 out of the same size, repeats >= 1");
  const std::span<const float> in(static_cast<const float*>(x.data()), x.size());
  const std::span<std::uint8_t> o(static_cast<std::uint8_t*>(out.data()), out.size());
  nb::gil_scoped_release nogil;
  double best = 1e300;
  for (unsigned r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)convert_f32(in, o, to);
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    best = dt.count() < best ? dt.count() : best;
  }
  return best;
}

}  // namespace

void bind_objects(nb::module_& m);  // objects_ext.cpp
void bind_quant(nb::module_& m);    // quant_ext.cpp
void bind_check(nb::module_& m);    // check_ext.cpp
void bind_dot(nb::module_& m);      // dot_ext.cpp
void bind_train(nb::module_& m);    // train_ext.cpp
void bind_device(nb::module_& m);   // device_ext.cpp

NB_MODULE(_minifloat, m) {
  m.doc() = "minifloat's compiled core (nanobind). Use the `minifloat` package, not this module.";
  m.attr("version") = MINIFLOAT_PROJECT_VERSION;  // CMake's project(VERSION), python/CMakeLists.txt
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const minifloat::Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  nb::enum_<ArrayType>(m, "ArrayType", "The element type of an input array (convert_array.hpp's ArrayType).")
      .value("f32", ArrayType::f32)
      .value("f64", ArrayType::f64)
      .value("f16", ArrayType::f16)
      .value("bf16", ArrayType::bf16)
      .value("codes", ArrayType::codes);
  bind_objects(m);
  m.def("convert_array", &convert_array_py, "type"_a, "x"_a, "out"_a, "fmt"_a, "source_fmt"_a.none(), "spec"_a,
        "profile"_a, "sr"_a.none(), "threads"_a,
        "Convert a flat C-contiguous array into codes of `fmt` written to `out`; returns the ORed flags.");
  m.def("decode_array", &decode_array, "codes"_a, "out"_a, "fmt"_a, "profile"_a,
        "Decode flat uint8/uint16 codes of `fmt` into the float32/float64 array `out`; returns the ORed flags.");
  m.def("sr_bits_array", &sr_bits_array, "out"_a, "seed"_a, "stream"_a, "step"_a, "index_base"_a, "variant"_a, "bits"_a,
        "Fill the uint64 array `out` with element index_base + i of the SR stream (random.hpp sr_bits).");
  m.def("format_info", &format_info, "fmt"_a, "A format's fields and exact limits (decimal strings).");
  m.def("code_table", &code_table_rows, "fmt"_a, "Every code of `fmt` (<= 16 bits): codes, classes, exact values.");
  m.def("encode_scalar", &encode_scalar, "value"_a, "fmt"_a, "source"_a.none(), "spec"_a, "profile"_a, "rbits"_a,
        "Round one exactly given value; returns (code, flags).");
  m.def("decode_scalar", &decode_scalar, "code"_a, "fmt"_a, "One code's (class, exact decimal, hex float).");
  m.def(
      "format_names",
      [] {
        std::vector<std::string> v;
        for (const auto& nf : named_formats()) v.push_back(nf.name);
        return v;
      },
      "The canonical names of every registered format (named ones, then P3109 Binary{K}p{P}{s|u}{e|f}).");
  m.def(
      "named_format_dtypes",
      [] {
        std::vector<std::tuple<std::string, std::string, std::string>> v;
        for (const auto& r : kNamedFormats) v.emplace_back(r.name, r.ml_dtypes, r.torch);
        return v;
      },
      "(name, ml_dtypes dtype name, torch dtype name without 'torch.') of every row of core/named_formats.hpp; "
      "'' where there is none.");
  m.def("ml_dtypes_name", &ml_dtypes_name, "fmt"_a,
        "The ml_dtypes dtype name of a format (npy.hpp ml_dtypes_name); ValueError naming those that have one.");
  m.def(
      "data_address", [](const InArray& x) { return reinterpret_cast<std::uintptr_t>(x.data()); }, "x"_a,
      "The address of the buffer the extension reads for `x` (tests check zero-copy with it).");
  m.def("span_call_seconds", &span_call_seconds, "x"_a, "out"_a, "fmt"_a, "repeats"_a,
        "Benchmark baseline: best wall time of the C++ convert_f32 span call over x (bench/bench_python.py).");
  bind_quant(m);
  bind_check(m);
  bind_dot(m);
  bind_train(m);
  bind_device(m);
  m.def("names_listing", &names_listing, "Every kind of the name registry: (id, kind, names, patterns).");
}
