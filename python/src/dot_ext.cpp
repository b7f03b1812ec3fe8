// SPDX-License-Identifier: Apache-2.0
// dot_ext.cpp: minifloat.dot / minifloat.gemm over accumulate.hpp: the operands' rounding
// (round_operands, OperandRound), the model's operand formats and gemm() with a C in the
// accumulator's format, the same library calls as the CLI's `dot`. The Python layer maps dtypes
// to (format, codes) and checks shapes; this file takes flat uint64 codes.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "minifloat/accumulate.hpp"
#include "minifloat/registry.hpp"
#include "with_arg.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace minifloat;

using python::with_arg;

namespace {

using U64In = nb::ndarray<const std::uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

std::span<const std::uint64_t> view(const U64In& x) { return {x.data(), x.shape(0)}; }

/// A NumPy uint64 array owning `v`.
nb::object to_numpy(std::vector<std::uint64_t>&& v) {
  auto* heap = new std::vector<std::uint64_t>(std::move(v));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<std::uint64_t>*>(p); });
  const std::size_t n = heap->size();
  return nb::cast(nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>>(heap->data(), {n}, owner));
}

/// One operand: its codes as codes of the format the model multiplies. `src` is the array's own
/// format (f32/f16/f64/bf16 for float arrays, else the codes' format); `target` the format= /
/// format_b= argument (float arrays are rounded into it by `how`; code arrays must already be it).
std::pair<Format, std::vector<std::uint64_t>> operand(const DotModel& model, std::string_view model_name,
                                                      const char* arg, const char* farg, const Format& src,
                                                      bool is_float, const U64In& codes,
                                                      const std::optional<Format>& target, OperandRound how) {
  const Format f = target.value_or(src);
  std::vector<std::uint64_t> out;
  if (is_float && target) {
    out = with_arg(arg, [&] { return round_operands(src, view(codes), f, how); });
  } else {
    out.assign(codes.data(), codes.data() + codes.shape(0));
    for (std::size_t i = 0; i < out.size(); ++i)
      if ((out[i] & ~code_mask(f)) != 0)
        throw Error(std::string(arg) + ": element " + std::to_string(i) + " is not " + with_article(format_name(f)) +
                    " code");
  }
  const std::span<const Format> accepted = operand_formats(model);
  if (accepted.empty()) return {f, std::move(out)};
  std::string list;
  for (const Format& a : accepted) {
    if (a == f) return {f, std::move(out)};
    (list += list.empty() ? "" : " or ") += format_name(a);
  }
  throw Error(std::string(farg) + ": model '" + quote_input(model_name) + "' multiplies " + list +
              " operands only, not the " + format_name(f) + " of " + arg +
              (target ? "" : " (no " + std::string(farg) + "=)") + "; pass " + farg + "='" + format_name(accepted[0]) +
              "'");
}

/// gemm() of the library on flat row-major codes; returns (D codes, result format).
std::pair<nb::object, Format> gemm_codes(std::string_view model_name, std::size_t m, std::size_t n, std::size_t k,
                                         const Format& a_src, bool a_float, const U64In& a,
                                         const std::optional<Format>& fa, const Format& b_src, bool b_float,
                                         const U64In& b, const std::optional<Format>& fb,
                                         std::string_view operand_round, const Format& fc, const U64In& c,
                                         const std::optional<U64In>& scale_a, const std::optional<U64In>& scale_b) {
  const DotModel model = with_arg("model", [&] { return parse_dot_model(model_name); });
  const OperandRound how = with_arg("operand_round", [&] { return parse<OperandRound>(operand_round); });
  auto A = operand(model, model_name, "a", "format", a_src, a_float, a, fa, how);
  auto B = operand(model, model_name, "b", "format_b", b_src, b_float, b, fb ? fb : fa, how);
  const bool scaled =
      model.kind == AccumKind::tfdpa && model.tensor_core.scale.application != BlockScaleApplication::none;
  if (!scaled && (scale_a || scale_b))
    throw Error(
        "scale_a/scale_b: they are for the block-scaled tensor-core models (blackwell-tcgen05-mxf8f6f4/"
        "mxf4/nvf4-unvalidated), not model '" +
        quote_input(model_name) + "'");
  if (scaled && (!scale_a || !scale_b))
    throw Error("scale_a/scale_b: model '" + quote_input(model_name) + "' is block-scaled: pass both, uint8 codes of " +
                format_name(model.tensor_core.scale.format) + " shaped (m, nb) and (nb, n), nb = ceil(k / " +
                std::to_string(model.tensor_core.scale.block) + ")");
  const std::span<const std::uint64_t> SA = scale_a ? view(*scale_a) : std::span<const std::uint64_t>{};
  const std::span<const std::uint64_t> SB = scale_b ? view(*scale_b) : std::span<const std::uint64_t>{};
  std::vector<std::uint64_t> D = gemm(model, m, n, k, A.first, A.second, B.first, B.second, view(c), SA, SB, fc);
  return {to_numpy(std::move(D)), result_format(model)};
}

}  // namespace

void bind_dot(nb::module_& m) {
  m.def("gemm_codes", &gemm_codes, "model"_a, "m"_a, "n"_a, "k"_a, "a_src"_a, "a_float"_a, "a"_a, "fa"_a.none(),
        "b_src"_a, "b_float"_a, "b"_a, "fb"_a.none(), "operand_round"_a, "fc"_a, "c"_a, "scale_a"_a.none(),
        "scale_b"_a.none(),
        "accumulate.hpp gemm() on flat row-major uint64 codes (operands rounded by round_operands); returns "
        "(D codes, result format).");
  m.def(
      "dot_result_format",
      [](std::string_view model) { return result_format(with_arg("model", [&] { return parse_dot_model(model); })); },
      "model"_a, "The format of a model's results and of its C (accumulate.hpp result_format).");
  m.def(
      "dot_block_scale",
      [](std::string_view model_name) -> std::optional<std::pair<Format, int>> {
        const DotModel model = with_arg("model", [&] { return parse_dot_model(model_name); });
        if (model.kind != AccumKind::tfdpa || model.tensor_core.scale.application == BlockScaleApplication::none)
          return std::nullopt;
        return std::pair<Format, int>{model.tensor_core.scale.format, model.tensor_core.scale.block};
      },
      "model"_a, "A block-scaled tensor-core model's (scale format, block size along k); None for other models.");
}
