// SPDX-License-Identifier: Apache-2.0
// device_ext.cpp: the tensor door of minifloat.torch for tensors that live on a CUDA device (issue 27): the
// block kernels and the engine conversion of minifloat::cuda (cuda/cuda.hpp) on device pointers, when the
// package is built with CUDA (CMake MINIFLOAT_PYTHON_CUDA), and the same kernel bodies over the same grid on
// host pointers through the CPU launcher (cuda/api.hpp cpu::), which the default tests run where no GPU is.
// Pointers are integers (torch's data_ptr()); the Python side owns every buffer, allocates it with the sizes
// the plan gives and keeps it alive for the call; `stream` is the CUDA stream handle (cudaStream_t as an
// integer; 0 = the default stream), unused by the CPU launcher.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "minifloat/core/block_scale.hpp"
#include "minifloat/cuda/api.hpp"
#include "minifloat/error.hpp"
#include "minifloat/parallel_for.hpp"
#include "minifloat/quant.hpp"
#include "quant_args.hpp"
#include "with_arg.hpp"
#if MINIFLOAT_PYTHON_CUDA
#include "minifloat/cuda/cuda.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;
using namespace minifloat;

namespace {

/// One block quantization as the kernels run it: the validated request and its plan (cuda/api.hpp
/// plan_blocks: the header's shapes and the tile body's fields; refuses what the kernels do not run).
struct DeviceQuant {
  Scheme scheme;
  QuantOptions opt;
  std::vector<std::size_t> shape;
  cuda::BlockPlan plan;
};

/// Which launcher runs the bodies: "cuda" (the device API; only in a CUDA build) or "cpu" (the CPU launcher).
bool on_device(std::string_view launcher) {
  if (launcher == "cpu") return false;
  if (launcher != "cuda") throw Error("launcher: '" + std::string(launcher) + "' is not accepted; accepted: cuda, cpu");
#if MINIFLOAT_PYTHON_CUDA
  return true;
#else
  throw Error(
      "this build of the minifloat package has no CUDA kernels (build it with "
      "-C cmake.define.MINIFLOAT_PYTHON_CUDA=ON where nvcc is installed)");
#endif
}

template <class T>
T* ptr(std::uintptr_t p) {
  return reinterpret_cast<T*>(p);
}

DeviceQuant device_plan(
    const std::vector<std::size_t>& shape, std::string_view scheme, std::optional<std::string_view> rule,
    const RoundingSpec& spec, const Profile& profile, std::string_view axis,
    std::optional<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>> sr,
    const std::vector<std::pair<std::string, std::string>>& policies, const std::optional<std::string>& amax_epsilon,
    const std::optional<std::string_view>& mx_quirks, const std::optional<std::string>& transform,
    const std::optional<std::string>& tensor_scale, const std::optional<std::string_view>& scale_select,
    const std::optional<std::string>& transform_gemm, const std::optional<std::string_view>& amax_scope) {
  auto [s, o] = python::quant_request(scheme, rule, spec, profile, axis, sr, policies, amax_epsilon, mx_quirks,
                                      transform, tensor_scale, scale_select, transform_gemm, amax_scope);
  // plan_blocks refuses what the kernels' bodies do not run (mx_quirks, daz, a tensor-core transform-gemm); one
  // tensor scale per row is run by them but not by this door, whose quantize gives one tensor scale as the CPU op's.
  if (s.amax_scope != AmaxScope::tensor)
    throw Error("amax_scope: 'row' is not run by minifloat.torch's CUDA door (host engine only)");
  cuda::BlockPlan p = cuda::plan_blocks(shape, s, o);
  return DeviceQuant{s, o, shape, std::move(p)};
}

/// Quantize the binary32 tensor at x (plan.n elements, C order) into the caller's buffers: codes (n bytes),
/// scale_codes (uint8, one per tile) or scales (float32, one per tile) as the scheme has them (0 otherwise),
/// tensor (3 floats: S_enc, S_dec, the tensor amax, for the tensor-scaled rules; 0 otherwise).
void device_quantize(const DeviceQuant& d, std::string_view launcher, std::uintptr_t x, std::uintptr_t codes,
                     std::uintptr_t scale_codes, std::uintptr_t scales, std::uintptr_t tensor,
                     [[maybe_unused]] std::uintptr_t stream, unsigned threads) {
  const bool dev = on_device(launcher);
  const QuantizedTensor& h = d.plan.header;
  const bool fp32 = is_fp32_rule(h.rule);
  if (d.plan.n != 0 &&
      (x == 0 || codes == 0 || (fp32 ? scales == 0 : scale_codes == 0) || (d.plan.needs_tensor_amax() && tensor == 0)))
    throw Error("internal: a buffer the scheme needs is missing");
  nb::gil_scoped_release nogil;
  if (dev) {
#if MINIFLOAT_PYTHON_CUDA
    cuda::DeviceBlockOutputs out;
    out.codes = ptr<std::uint8_t>(codes);
    out.scale_codes = ptr<std::uint8_t>(scale_codes);
    out.scales = ptr<float>(scales);
    out.tensor_scales = ptr<float>(tensor);
    cuda::quantize_blocks(ptr<const float>(x), d.shape, d.scheme, d.opt, out, reinterpret_cast<cudaStream_t>(stream));
#endif
    return;
  }
  const QuantizedTensor q = cuda::cpu::quantize_blocks(std::span<const float>(ptr<const float>(x), d.plan.n), d.shape,
                                                       d.scheme, d.opt, resolve_threads(threads));
  std::copy(q.codes.begin(), q.codes.end(), ptr<std::uint8_t>(codes));
  if (fp32) std::copy(q.scales.begin(), q.scales.end(), ptr<float>(scales));
  else std::copy(q.scale_codes.begin(), q.scale_codes.end(), ptr<std::uint8_t>(scale_codes));
  if (tensor != 0) {
    float* t = ptr<float>(tensor);
    t[0] = q.tensor_encode_scale;
    t[1] = q.tensor_decode_scale;
    t[2] = 0.0f;  // the CPU launcher's result does not keep the amax; minifloat.torch reads t[1] only
  }
}

/// The engine conversion (cuda/api.hpp ConvertRequest, Path::engine) of n elements at `in` into `out`
/// (storage per element: cuda/kernels.hpp storage_bytes: 1 or 2 bytes for codes, 4 for f32, 8 for f64).
void device_convert(std::string_view launcher, std::uintptr_t in, std::uintptr_t out, std::size_t n, const Format& from,
                    const Format& to, const RoundingSpec& spec, const Profile& profile,
                    std::optional<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t, std::uint64_t>> sr,
                    [[maybe_unused]] std::uintptr_t stream, unsigned threads) {
  const bool dev = on_device(launcher);
  cuda::ConvertRequest r;
  r.from = from;
  r.to = to;
  r.spec = spec;
  r.profile = profile;
  r.path = cuda::Path::engine;
  if (spec.rounding == Rounding::sr && !sr)
    throw Error("round: 'sr' needs sr=dict(seed=..., stream=..., step=..., variant=..., bits=...)");
  if (spec.rounding != Rounding::sr && sr) throw Error("sr: given, but round is not 'sr'");
  if (sr) r.sr = cuda::SrCounter{std::get<0>(*sr), std::get<1>(*sr), std::get<2>(*sr), std::get<3>(*sr)};
  cuda::validate(r);
  if (n == 0) return;
  nb::gil_scoped_release nogil;
  if (dev) {
#if MINIFLOAT_PYTHON_CUDA
    cuda::convert(ptr<const void>(in), ptr<void>(out), nullptr, n, r, reinterpret_cast<cudaStream_t>(stream));
#endif
    return;
  }
  cuda::cpu::convert(ptr<const void>(in), ptr<void>(out), nullptr, n, r, resolve_threads(threads));
}

using CodesArray = nb::ndarray<const std::uint8_t, nb::ro, nb::c_contig, nb::device::cpu>;
using ScalesF32 = nb::ndarray<const float, nb::ro, nb::c_contig, nb::device::cpu>;

/// The decode scale of every tile (quant.hpp block_scale_value: the library's own step, scale_ftz included), in
/// the order of the scales, from the scales as the kernels wrote them (copied to the host: one per tile).
nb::object tile_scale_values(const DeviceQuant& d, const std::optional<CodesArray>& scale_codes,
                             const std::optional<ScalesF32>& scales, std::optional<float> tensor_decode_scale,
                             bool scale_ftz) {
  QuantizedTensor q = d.plan.header;
  const std::size_t n = q.scale_rows * q.scale_cols;
  python::set_scales(q,
                     scale_codes
                         ? std::optional(std::span<const std::uint8_t>(scale_codes->data(), scale_codes->size()))
                         : std::nullopt,
                     scales ? std::optional(std::span<const float>(scales->data(), scales->size())) : std::nullopt,
                     tensor_decode_scale);
  auto* v = new std::vector<double>(n);
  for (std::size_t t = 0; t < n; ++t) (*v)[t] = block_scale_value(q, t, scale_ftz ? ScaleFtz::yes : ScaleFtz::no);
  nb::capsule owner(v, [](void* p) noexcept { delete static_cast<std::vector<double>*>(p); });
  const std::size_t dims[1] = {n};
  return nb::cast(nb::ndarray<nb::numpy, double>(v->data(), 1, dims, owner));
}

}  // namespace

void bind_device(nb::module_& m) {
  m.attr("cuda_built") = static_cast<bool>(MINIFLOAT_PYTHON_CUDA);
  nb::class_<DeviceQuant>(m, "DeviceQuant", "A block quantization as the CUDA kernels run it (cuda/api.hpp BlockPlan).")
      .def_prop_ro(
          "header", [](const DeviceQuant& d) { return d.plan.header; },
          "quant.hpp's result for the request, without codes (shapes, scale shape, rule).")
      .def_prop_ro(
          "n", [](const DeviceQuant& d) { return d.plan.n; }, "Elements.")
      .def_prop_ro(
          "fp32_scales", [](const DeviceQuant& d) { return is_fp32_rule(d.plan.header.rule); },
          "True: float32 decode scales, one per tile; False: uint8 scale codes.")
      .def_prop_ro(
          "tensor_scaled", [](const DeviceQuant& d) { return d.plan.needs_tensor_amax(); },
          "The rule has an FP32 tensor scale (3 floats: S_enc, S_dec, amax).")
      .def_prop_ro(
          "layout",
          [](const DeviceQuant& d) {
            const cuda::BlockLayout& l = d.plan.body.lay;
            return std::make_tuple(l.file_rows, l.file_cols, l.tile_rows, l.tile_cols, l.tiles_b);
          },
          "(file_rows, file_cols, tile_rows, tile_cols, tiles_b): element i = a*file_cols + b (C order) is in tile "
          "(a // tile_rows) * tiles_b + b // tile_cols, which is its scale's index.")
      .def_prop_ro(
          "element_values",
          [](const DeviceQuant& d) {
            std::vector<double> v(256);
            const Format f = d.scheme.element.format;
            const unsigned width = d.scheme.element.kind == ElementKind::int8 ? 8u : f.bits;
            for (unsigned c = 0; c < 256; ++c)
              v[c] = c < (1u << width) ? element_value(d.scheme.element, static_cast<std::uint8_t>(c)) : 0.0;
            return v;
          },
          "The exact value of each element code 0..255 (block_scale.hpp element_value; 0 above the width).");
  m.def("device_plan", &device_plan, "shape"_a, "scheme"_a, "rule"_a.none(), "spec"_a, "profile"_a, "axis"_a,
        "sr"_a.none(), "policies"_a, "amax_epsilon"_a.none(), "mx_quirks"_a.none(), "transform"_a.none(),
        "tensor_scale"_a.none(), "scale_select"_a.none(), "transform_gemm"_a.none(), "amax_scope"_a.none(),
        "The kernels' plan of minifloat.quantize's request (the arguments of quantize_array); throws for what the "
        "CUDA block body does not run.");
  m.def("device_quantize", &device_quantize, "plan"_a, "launcher"_a, "x"_a, "codes"_a, "scale_codes"_a, "scales"_a,
        "tensor"_a, "stream"_a, "threads"_a,
        "Run the block kernels of `plan` on the buffers at these addresses (launcher 'cuda' or 'cpu').");
  m.def("device_convert", &device_convert, "launcher"_a, "x"_a, "out"_a, "n"_a, "source"_a, "fmt"_a, "spec"_a,
        "profile"_a, "sr"_a.none(), "stream"_a, "threads"_a,
        "The engine conversion kernel (cuda/api.hpp ConvertRequest, Path::engine) on the buffers at these addresses.");
  m.def("tile_scale_values", &tile_scale_values, "plan"_a, "scale_codes"_a.none(), "scales"_a.none(),
        "tensor_decode_scale"_a.none(), "scale_ftz"_a,
        "Each tile's decode scale (quant.hpp block_scale_value), float64, in the scales' order.");
}
