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

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "minifloat/check/check.hpp"
#include "minifloat/convert_array.hpp"
#include "minifloat/registry.hpp"

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

nb::dict check_kernel(nb::callable kernel, const Format& from, const Format& to, const RoundingSpec& spec,
                      const Profile& profile, std::size_t n, std::uint64_t seed, std::size_t batch, bool shrink,
                      bool diagnose, bool any_nan) {
  check::Target t;
  t.from = from;
  t.to = to;
  t.spec = spec;
  t.profile = profile;
  if (n < 1) throw Error("n: must be at least 1");
  if (batch < 1) throw Error("batch: must be at least 1");
  check::Options opt;
  opt.gen.seed = seed;
  opt.gen.count = n;
  opt.batch = batch;
  opt.shrink = shrink ? check::Options::Shrink::yes : check::Options::Shrink::no;
  opt.diagnose = diagnose ? check::Options::Diagnose::yes : check::Options::Diagnose::no;
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
    e["class"] = std::string(name(m.c.cls));
    e["input"] = m.c.input;
    e["rbits"] = m.c.rbits;
    e["got"] = m.got;
    e["expected"] = m.expected;
    e["class_failures"] = m.class_failures;
    e["why"] = m.why;
    e["reproduce"] = m.reproduce;
    minimal.append(e);
  }
  d["minimal"] = minimal;
  return d;
}

}  // namespace

void bind_check(nb::module_& m) {
  m.def("check_kernel", &check_kernel, "kernel"_a, "source"_a, "target"_a, "spec"_a, "profile"_a, "n"_a, "seed"_a,
        "batch"_a, "shrink"_a, "diagnose"_a, "any_nan"_a,
        "Run check::check_batch over a Python batch kernel(inputs: uint64[], rbits: uint64[]) -> uint64[].");
}
