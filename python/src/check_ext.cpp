// SPDX-License-Identifier: Apache-2.0
// check_ext.cpp: minifloat.check — the kernel-checking harness (check.hpp) over a Python kernel.
// The harness generates the cases, compares, shrinks and diagnoses in C++ (GIL released); each
// batch calls the Python kernel with the GIL held: kernel(inputs, rbits) gets two uint64 arrays
// (source bits, random words) and returns a uint64 array of codes (the Python layer adapts the
// user's function: source bits → float32/… values, their result → codes).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "minifloat/check/check.hpp"
#include "minifloat/check/check_block.hpp"
#include "minifloat/check/check_dot.hpp"
#include "minifloat/accumulate.hpp"
#include "minifloat/convert_array.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/scheme.hpp"
#include "with_arg.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace minifloat;

namespace {

using U64Array = nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>>;

U64Array new_u64(std::size_t n) {
  auto* data = new std::uint64_t[n ? n : 1];
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<std::uint64_t*>(p); });
  return U64Array(data, {n}, owner);
}

/// The fields every checker's report gives Python: ok, target, tested, failed, kernel_calls, text, json,
/// diagnosis (its text), and `minimal`: one dict per failing class, filled by `fields(e, m)` with that
/// checker's case.
template <class Report, class Fields>
nb::dict report_dict(const Report& rep, Fields&& fields) {
  nb::dict d;
  d["ok"] = rep.ok();
  d["target"] = check::describe(rep.target);
  d["tested"] = rep.tested;
  d["failed"] = rep.failed;
  d["kernel_calls"] = rep.kernel_calls;
  d["text"] = rep.text();
  d["json"] = rep.json();
  d["diagnosis"] = rep.diagnosis.text;
  nb::list minimal;
  for (const auto& m : rep.minimal) {
    nb::dict e;
    fields(e, m);
    minimal.append(e);
  }
  d["minimal"] = minimal;
  return d;
}

/// A checker's options from Python's arguments (n ≥ 1 and batch ≥ 1 checked here; the block checker has no
/// NaN comparison of its own).
template <class Opts>
Opts options_of(std::size_t n, std::uint64_t seed, std::size_t batch, bool shrink, bool diagnose) {
  if (n < 1) throw Error("n: must be at least 1");
  if (batch < 1) throw Error("batch: must be at least 1");
  Opts opt;
  opt.gen.seed = seed;
  opt.gen.count = n;
  opt.batch = batch;
  opt.shrink = shrink ? check::Options::Shrink::yes : check::Options::Shrink::no;
  opt.diagnose = diagnose ? check::Options::Diagnose::yes : check::Options::Diagnose::no;
  return opt;
}

nb::dict check_kernel(nb::callable kernel, const Format& from, const Format& to, const RoundingSpec& spec,
                      const Profile& profile, std::size_t n, std::uint64_t seed, std::size_t batch, bool shrink,
                      bool diagnose, bool any_nan) {
  check::Target t;
  t.from = from;
  t.to = to;
  t.spec = spec;
  t.profile = profile;
  auto opt = options_of<check::Options>(n, seed, batch, shrink, diagnose);
  opt.nan_compare = any_nan ? check::NanCompare::any_nan : check::NanCompare::bits;

  const check::BatchKernel k = [&kernel](std::span<const check::Case> in, std::span<std::uint64_t> out) {
    nb::gil_scoped_acquire gil;
    U64Array inputs = new_u64(in.size()), rbits = new_u64(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      inputs.data()[i] = in[i].input;
      rbits.data()[i] = in[i].rbits;
    }
    nb::object r = kernel(inputs, rbits);
    const auto codes = nb::cast<nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>>(r);
    if (codes.size() != out.size())
      throw Error("check: the kernel returned " + std::to_string(codes.size()) + " codes for " +
                  std::to_string(out.size()) + " inputs");
    std::memcpy(out.data(), codes.data(), out.size() * sizeof(std::uint64_t));
  };
  check::Report rep;
  {
    nb::gil_scoped_release nogil;
    rep = check::check_batch(k, t, opt);
  }
  return report_dict(rep, [](nb::dict& e, const check::Mismatch& m) {
    e["class"] = std::string(name(m.c.cls));
    e["input"] = m.c.input;
    e["rbits"] = m.c.rbits;
    e["got"] = m.got;
    e["expected"] = m.expected;
    e["class_failures"] = m.class_failures;
    e["why"] = m.why;
    e["reproduce"] = m.reproduce;
  });
}

using U8In = nb::ndarray<const std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using U64In = nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// check() with a block-scheme target (check_block.hpp, as `probe check` of blocks): each batch calls
/// kernel(x) with x a float32 array (blocks, k) and takes back (codes: uint8[blocks·bytes per block] in
/// the packing's storage form, scales: uint64[blocks] scale words); the Python layer adapts the user's
/// function to that.
check::ChoiceFinding kernel_choices(nb::callable kernel, const check::BlockTarget& t, const check::BlockOptions& opt);

nb::dict check_block_kernel(nb::callable kernel, std::string_view scheme, const RoundingSpec& spec,
                            const Profile& profile, std::string_view packing, std::size_t n, std::uint64_t seed,
                            std::size_t batch, bool shrink, bool diagnose, bool got_choices) {
  check::BlockTarget t;
  t.scheme = python::with_arg("target", [&] { return parse_scheme(scheme); });
  t.rounding = spec;
  t.profile = profile;
  t.packing = python::with_arg("packing", [&] { return parse<check::Packing>(packing); });
  python::with_arg("target", [&] {
    check::validate(t);
    return 0;
  });
  const auto opt = options_of<check::BlockOptions>(n, seed, batch, shrink, diagnose);
  const std::size_t k = check::block_size(t);
  const check::BlockKernel bk = [&](std::span<const float> in, std::span<std::uint8_t> codes,
                                    std::span<std::uint64_t> scales) {
    nb::gil_scoped_acquire gil;
    auto* data = new float[in.empty() ? 1 : in.size()];
    std::memcpy(data, in.data(), in.size() * sizeof(float));
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<float*>(p); });
    const std::size_t blocks = scales.size();
    nb::ndarray<nb::numpy, float, nb::ndim<2>> x(data, {blocks, k}, owner);
    const nb::tuple r = nb::cast<nb::tuple>(kernel(x));
    const auto c = nb::cast<U8In>(r[0]);
    const auto s = nb::cast<U64In>(r[1]);
    if (c.size() != codes.size() || s.size() != scales.size())
      throw Error("check: the kernel returned " + std::to_string(c.size()) + " code bytes and " +
                  std::to_string(s.size()) + " scales for " + std::to_string(blocks) + " blocks (expected " +
                  std::to_string(codes.size()) + " and " + std::to_string(scales.size()) + ")");
    std::memcpy(codes.data(), c.data(), codes.size());
    std::memcpy(scales.data(), s.data(), scales.size() * sizeof(std::uint64_t));
  };
  check::BlockReport rep;
  {
    nb::gil_scoped_release nogil;
    rep = check::check_blocks(bk, t, opt);
  }
  if (got_choices) rep.choices = kernel_choices(kernel, t, opt);
  nb::dict d = report_dict(rep, [](nb::dict& e, const check::BlockMismatch& m) {
    e["class"] = std::string(name(m.cls));
    e["block"] = m.block;
    e["got_codes"] = m.got.codes;
    e["got_scale"] = m.got.scale;
    e["expected_codes"] = m.expected.codes;
    e["expected_scale"] = m.expected.scale;
    e["class_failures"] = m.class_failures;
    e["why"] = m.why;
  });
  if (rep.choices) {
    nb::dict c;
    c["tested"] = rep.choices->tested;
    c["failed"] = rep.choices->failed;
    if (rep.choices->failed) {
      const check::ChoiceFinding& f = *rep.choices;
      c["block"] = f.first;
      c["got"] = f.got;
      c["expected"] = f.expected.choice;
      c["map6_code"] = f.expected.map6;
      c["map4_code"] = f.expected.map4;
      c["map6_err"] = f.expected.err6;
      c["map4_err"] = f.expected.err4;
      c["values"] = f.block;
    }
    d["choices"] = c;
  }
  return d;
}

/// check(got_choices=True) of a 4over6 block target (issue 25 item 2): the kernel run once more over the
/// generated blocks (deterministic in the seed, in batches), its third output (one 0/1 choice per block)
/// compared with the reference's (check::evaluate_choices).
check::ChoiceFinding kernel_choices(nb::callable kernel, const check::BlockTarget& t, const check::BlockOptions& opt) {
  if (t.scheme.scale_select == ScaleSelect::none)
    throw Error("got_choices: the target " + scheme_name(t.scheme) +
                " has no scale-select; accepted with scale_select 4over6:mse or 4over6:mae");
  const check::BlockCases cases = check::generate_blocks(t, opt.gen);
  const std::size_t k = cases.block, n = cases.size();
  std::vector<std::uint8_t> got, want(n);
  for (std::size_t b0 = 0; b0 < n; b0 += opt.batch) {
    const std::size_t m = std::min(opt.batch, n - b0);
    auto* data = new float[m * k];
    std::memcpy(data, cases.values.data() + b0 * k, m * k * sizeof(float));
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<float*>(p); });
    nb::ndarray<nb::numpy, float, nb::ndim<2>> x(data, {m, k}, owner);
    const nb::tuple r = nb::cast<nb::tuple>(kernel(x));
    if (r.size() != 3) throw Error("check: got_choices=True: the kernel returns (codes, scales, choices)");
    const auto c = nb::cast<U8In>(r[2]);
    if (c.size() != m)
      throw Error("check: the kernel returned " + std::to_string(c.size()) + " choices for " + std::to_string(m) +
                  " blocks; one per block (0 map-to-6, 1 map-to-4)");
    for (std::size_t i = 0; i < m; ++i) {
      if (c.data()[i] > 1)
        throw Error("check: the kernel's choice for block " + std::to_string(b0 + i) + " is " +
                    std::to_string(c.data()[i]) + "; accepted: 0 (map-to-6), 1 (map-to-4)");
      got.push_back(c.data()[i]);
    }
  }
  for (std::size_t i = 0; i < n; ++i) want[i] = check::expected_choice(t, cases.at(i)).choice;
  return check::evaluate_choices(t, cases, got, want);
}

/// check() with a dot-product target (check_dot.hpp, as `probe gen --model`): each batch calls
/// kernel(a, b, c) with a, b uint64 (n, k) operand codes of formats `a`/`b` and c uint64 (n,) binary32 bits of
/// the accumulator input, and takes back uint64 (n,) result codes (the model's result format: f32 or f16).
nb::dict check_dot_kernel(nb::callable kernel, std::string_view model, const Format& a, const Format& b, std::size_t k,
                          std::size_t n, std::uint64_t seed, std::size_t batch, bool shrink, bool diagnose,
                          bool any_nan) {
  check::DotTarget t;
  t.model = python::with_arg("target", [&] { return parse_dot_model(model); });
  t.a = a;
  t.b = b;
  t.k = k;
  python::with_arg("target", [&] {
    check::validate(t);
    return 0;
  });
  auto opt = options_of<check::DotOptions>(n, seed, batch, shrink, diagnose);
  opt.nan_compare = any_nan ? check::NanCompare::any_nan : check::NanCompare::bits;
  const check::DotKernel dk = [&](std::span<const check::DotCase> in, std::span<std::uint64_t> out) {
    nb::gil_scoped_acquire gil;
    const std::size_t rows = in.size();
    auto* data = new std::uint64_t[rows * (2 * k + 1) + 1];
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<std::uint64_t*>(p); });
    for (std::size_t i = 0; i < rows; ++i) {
      std::copy(in[i].a.begin(), in[i].a.end(), data + i * k);
      std::copy(in[i].b.begin(), in[i].b.end(), data + rows * k + i * k);
      data[2 * rows * k + i] = in[i].c;
    }
    nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<2>> av(data, {rows, k}, owner),
        bv(data + rows * k, {rows, k}, owner);
    nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>> cv(data + 2 * rows * k, {rows}, owner);
    const auto r = nb::cast<U64In>(kernel(av, bv, cv));
    if (r.size() != out.size())
      throw Error("check: the kernel returned " + std::to_string(r.size()) + " results for " +
                  std::to_string(out.size()) + " dot products");
    std::memcpy(out.data(), r.data(), out.size() * sizeof(std::uint64_t));
  };
  check::DotReport rep;
  {
    nb::gil_scoped_release nogil;
    rep = check::check_dot(dk, t, opt);
  }
  return report_dict(rep, [](nb::dict& e, const check::DotMismatch& m) {
    e["class"] = std::string(name(m.c.cls));
    e["a"] = m.c.a;
    e["b"] = m.c.b;
    e["c"] = m.c.c;
    e["got"] = m.got;
    e["expected"] = m.expected;
    e["class_failures"] = m.class_failures;
    e["why"] = m.why;
    e["reproduce"] = m.reproduce;
  });
}

}  // namespace

void bind_check(nb::module_& m) {
  m.def("check_dot_kernel", &check_dot_kernel, "kernel"_a, "model"_a, "a"_a, "b"_a, "k"_a, "n"_a, "seed"_a, "batch"_a,
        "shrink"_a, "diagnose"_a, "any_nan"_a,
        "Run check::check_dot over a Python kernel(a: uint64[n, k], b: uint64[n, k], c: uint64[n]) -> uint64[n].");
  m.def("check_block_kernel", &check_block_kernel, "kernel"_a, "scheme"_a, "spec"_a, "profile"_a, "packing"_a, "n"_a,
        "seed"_a, "batch"_a, "shrink"_a, "diagnose"_a, "got_choices"_a = false,
        "Run check::check_blocks over a Python kernel(x: float32[blocks, k]) -> (uint8[] codes, uint64[] scales); "
        "with got_choices also a third output, uint8[blocks] 4over6 choices (0 map-to-6, 1 map-to-4).");
  m.def("check_kernel", &check_kernel, "kernel"_a, "source"_a, "target"_a, "spec"_a, "profile"_a, "n"_a, "seed"_a,
        "batch"_a, "shrink"_a, "diagnose"_a, "any_nan"_a,
        "Run check::check_batch over a Python batch kernel(inputs: uint64[], rbits: uint64[]) -> uint64[].");
}
