// SPDX-License-Identifier: Apache-2.0
// quant_ext.cpp: minifloat.quantize / minifloat.report over quant.hpp (any block scheme: MX,
// NVFP4, scaled FP8, spec strings), the same quantizer the CLI's quantize/report commands run.
// Inputs are flat C-order float32/float64 arrays with their shape (the Python layer makes them
// contiguous); the result is a QuantizedTensor held by Python, whose arrays are copied out.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "quant_args.hpp"
#include "with_arg.hpp"
#include "minifloat/pack.hpp"
#include "minifloat/scale_layout.hpp"
#include "minifloat/convert_array.hpp"
#include "minifloat/error_stats.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/parse.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/core/bits.hpp"
#include "minifloat/core/round_pack.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace minifloat;

using python::with_arg;

namespace {

using InArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

/// A NumPy array owning a copy of `v`, with `shape`.
template <class T>
nb::object to_numpy(const std::vector<T>& v, const std::vector<std::size_t>& shape) {
  auto* heap = new std::vector<T>(v);
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T>(heap->data(), shape.size(), shape.data(), owner));
}

std::string element_name(ElementType e) {
  return e.kind == ElementKind::int8 ? std::string("mxint8") : format_name(e.format);
}

Scheme scheme_arg(std::string_view scheme, const std::optional<std::string_view>& rule) {
  Scheme s = with_arg("scheme", [&] { return parse_scheme(scheme); });
  if (rule) {
    const ScaleRule r = with_arg("rule", [&] { return parse<ScaleRule>(*rule); });
    // As the CLI's --scale-rule: a rule of another scale family would silently make another scheme.
    s = with_arg("rule", [&] { return with_scale_rule(s, r, scheme); });
    with_arg("rule", [&] {
      validate_scheme(s);
      return 0;
    });
  }
  return s;
}

/// The Python keyword of a policy field: its spec key with '_' for '-' ("zero-block" -> zero_block).
std::string policy_keyword(std::string_view key) {
  std::string k(key);
  for (char& c : k)
    if (c == '-') c = '_';
  return k;
}

/// `s` with the block-policy keywords of quantize() (kPolicyFields, scheme.hpp: (keyword, value name)
/// pairs, each keyword checked by the Python layer against policy_keywords()) and amax_epsilon (exact
/// text, rounded once to binary32 as the spec key amax-epsilon), validated.
Scheme with_policies(Scheme s, const std::vector<std::pair<std::string, std::string>>& policies,
                     const std::optional<std::string>& amax_epsilon) {
  for (const auto& [kw, value] : policies) {
    bool matched = false;
    for_each_policy_field([&](const auto& f, std::size_t) {
      using E = std::remove_cvref_t<decltype(BlockPolicy{}.*f.member)>;
      if (matched || policy_keyword(policy_key(f)) != kw) return;
      matched = true;
      s.policy.*f.member = with_arg(kw, [&] { return parse<E>(value); });
    });
    if (!matched) throw Error(kw + ": not a block-policy keyword");
  }
  if (amax_epsilon) {
    const Unpacked u = with_arg("amax_epsilon", [&] { return parse_value(*amax_epsilon); });
    const float f = detail::bit_cast<float>(
        static_cast<std::uint32_t>(round_pack(formats::f32, u, {Rounding::rne, Overflow::nonsat}).code));
    if (u.negative || !std::isfinite(f)) throw Error("amax_epsilon: must be a finite number >= 0");
    s.policy.amax_epsilon = f;
  }
  with_arg("scheme", [&] {
    validate_scheme(s);
    return 0;
  });
  return s;
}

QuantOptions options_arg(const RoundingSpec& spec, const Profile& profile, std::string_view axis,
                         const std::optional<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>>& sr) {
  QuantOptions o;
  o.rounding = spec;
  o.profile = profile;
  o.axis = with_arg("axis", [&] { return parse<BlockAxis>(axis); });
  if (o.rounding.rounding == Rounding::sr && !sr)
    throw Error("round: 'sr' needs sr=dict(seed=..., stream=..., step=..., variant=..., bits=...)");
  if (o.rounding.rounding != Rounding::sr && sr) throw Error("sr: given, but round is not 'sr'");
  if (sr) {
    o.sr_seed = std::get<0>(*sr);
    o.sr_stream = std::get<1>(*sr);
    o.sr_step = std::get<2>(*sr);
  }
  return o;
}

}  // namespace

void python::set_scales(QuantizedTensor& q, std::optional<std::span<const std::uint8_t>> scale_codes,
                        std::optional<std::span<const float>> scales_f32, std::optional<float> tensor_decode_scale) {
  const std::size_t n_scales = q.scale_rows * q.scale_cols;
  auto sizes = [&](std::size_t got) {
    if (got != n_scales)
      throw Error("scales: has " + std::to_string(got) + " elements; the scheme and shape need " +
                  std::to_string(n_scales));
  };
  if (!is_fp32_rule(q.rule)) {  // the scale families stored as uint8 codes
    if (!scale_codes) throw Error("scales: this scheme's scales are uint8 codes (E8M0, UE4M3 or UE5M3)");
    sizes(scale_codes->size());
    q.scale_codes.assign(scale_codes->begin(), scale_codes->end());
  } else {
    if (!scales_f32) throw Error("scales: this scheme's scales are float32 decode scales");
    sizes(scales_f32->size());
    q.scales.assign(scales_f32->begin(), scales_f32->end());
  }
  if (is_nvfp4_rule(q.rule) || q.rule == ScaleRule::nvfp4_v2_gs) {
    if (!tensor_decode_scale)
      throw Error("tensor_scale: " + std::string(name(q.rule)) + " needs its FP32 tensor decode scale (shape (1,))");
    q.tensor_decode_scale = *tensor_decode_scale;
  }
}

std::pair<Scheme, QuantOptions> python::quant_request(
    std::string_view scheme, std::optional<std::string_view> rule, const RoundingSpec& spec, const Profile& profile,
    std::string_view axis, std::optional<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>> sr,
    const std::vector<std::pair<std::string, std::string>>& policies, const std::optional<std::string>& amax_epsilon,
    const std::optional<std::string_view>& mx_quirks, const std::optional<std::string>& transform,
    const std::optional<std::string>& tensor_scale, const std::optional<std::string_view>& scale_select,
    const std::optional<std::string>& transform_gemm, const std::optional<std::string_view>& amax_scope) {
  Scheme s = with_policies(scheme_arg(scheme, rule), policies, amax_epsilon);
  if (transform) s.transform = with_arg("transform", [&] { return parse_transform(*transform); });
  if (transform_gemm)
    s.transform_gemm = with_arg("transform_gemm", [&] { return parse_transform_gemm(*transform_gemm); });
  if (tensor_scale) {  // issue 25 item 3: exact text rounded once to binary32, as the spec key tensor-scale
    const Unpacked u = with_arg("tensor_scale", [&] { return parse_value(*tensor_scale); });
    s.tensor_scale = detail::bit_cast<float>(
        static_cast<std::uint32_t>(round_pack(formats::f32, u, {Rounding::rne, Overflow::nonsat}).code));
    if (u.negative || !(s.tensor_scale > 0.0f) || std::isinf(s.tensor_scale))
      throw Error("tensor_scale: must be a positive finite number (the FP32 tensor encode scale)");
    with_arg("scheme", [&] {
      validate_scheme(s);
      return 0;
    });
  }
  if (scale_select) {  // issue 25 item 2: as the spec key scale-select and the CLI's --scale-select
    s.scale_select = with_arg("scale_select", [&] { return parse<ScaleSelect>(*scale_select); });
    with_arg("scheme", [&] {
      validate_scheme(s);
      return 0;
    });
  }
  if (amax_scope) {  // issue 25 item 3: as the spec key amax-scope and the CLI's --amax-scope
    s.amax_scope = with_arg("amax_scope", [&] { return parse<AmaxScope>(*amax_scope); });
    with_arg("scheme", [&] {
      validate_scheme(s);
      return 0;
    });
  }
  QuantOptions o = options_arg(spec, profile, axis, sr);
  if (mx_quirks) o.mx_quirks = with_arg("mx_quirks", [&] { return parse<MxQuirks>(*mx_quirks); });
  if (const std::optional<OptionIssue> issue = check_options(s, o))  // where the option applies, as the CLI
    throw Error(policy_keyword(issue->option) + " " + issue->why);
  return {s, o};
}

namespace {

QuantizedTensor quantize_array(
    ArrayType type, const InArray& x, const std::vector<std::size_t>& shape, std::string_view scheme,
    std::optional<std::string_view> rule, const RoundingSpec& spec, const Profile& profile, std::string_view axis,
    std::optional<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>> sr,
    const std::vector<std::pair<std::string, std::string>>& policies, const std::optional<std::string>& amax_epsilon,
    const std::optional<std::string_view>& mx_quirks, unsigned threads, const std::optional<std::string>& transform,
    const std::optional<std::string>& tensor_scale, const std::optional<std::string_view>& scale_select,
    const std::optional<std::string>& transform_gemm, const std::optional<std::string_view>& amax_scope) {
  const auto [s, o] = python::quant_request(scheme, rule, spec, profile, axis, sr, policies, amax_epsilon, mx_quirks,
                                            transform, tensor_scale, scale_select, transform_gemm, amax_scope);
  const std::size_t want_item = type == ArrayType::f32 ? 4 : type == ArrayType::f64 ? 8 : 2;
  if (type == ArrayType::codes || x.itemsize() != want_item)
    throw Error("internal: quantize takes float32, float64, or float16/bfloat16 bits");
  const ArrayIn in{type, x.data(), x.size(), {}, 0};
  nb::gil_scoped_release nogil;
  return quantize(in, shape, s, o, threads);
}

using CodesArray = nb::ndarray<const std::uint8_t, nb::ro, nb::c_contig, nb::device::cpu>;
using ScalesF32 = nb::ndarray<const float, nb::ro, nb::c_contig, nb::device::cpu>;

/// The library's dequantize (element x block scale x tensor scale, exact in binary64) of codes and scales
/// given back as arrays (minifloat.torch's quantize op gives them out): the block layout is BlockQuantizer's for
/// `shape` and the scheme with these options, each array's size checked against it.
nb::object dequantize_codes(const CodesArray& codes, const std::optional<CodesArray>& scale_codes,
                            const std::optional<ScalesF32>& scales_f32, std::optional<float> tensor_decode_scale,
                            const std::vector<std::size_t>& shape, std::string_view scheme,
                            std::optional<std::string_view> rule, const Profile& profile, std::string_view axis,
                            const std::vector<std::pair<std::string, std::string>>& policies,
                            const std::optional<std::string>& amax_epsilon,
                            const std::optional<std::string_view>& mx_quirks, bool scale_ftz) {
  const Scheme s = with_policies(scheme_arg(scheme, rule), policies, amax_epsilon);
  if (s.amax_scope != AmaxScope::tensor)
    throw Error(
        "scheme: amax-scope row has one tensor scale per row; dequantize_codes takes one (accepted: "
        "amax-scope tensor; dequantize a row-scaled result with Quantized.dequantize())");
  QuantOptions o = options_arg(RoundingSpec{}, profile, axis, std::nullopt);
  if (mx_quirks) o.mx_quirks = with_arg("mx_quirks", [&] { return parse<MxQuirks>(*mx_quirks); });
  QuantizedTensor q = BlockQuantizer(shape, s, o).result();
  std::size_t n = 1;
  for (const std::size_t d : shape) n *= d;
  if (codes.size() != n)
    throw Error("codes: has " + std::to_string(codes.size()) + " elements; the scheme and shape need " +
                std::to_string(n));
  q.codes.assign(codes.data(), codes.data() + codes.size());
  if (const int bits = element_bits(q.element); bits < 8)  // a wider code has no value (decode refuses it too)
    for (std::size_t i = 0; i < q.codes.size(); ++i)
      if (q.codes[i] >> bits)
        throw Error("codes: code " + std::to_string(q.codes[i]) + " at flat index " + std::to_string(i) +
                    " is wider than the " + std::to_string(bits) + " bits of " + element_name(q.element) +
                    "; accepted: 0.." + std::to_string((1 << bits) - 1));
  python::set_scales(
      q,
      scale_codes ? std::optional(std::span<const std::uint8_t>(scale_codes->data(), scale_codes->size()))
                  : std::nullopt,
      scales_f32 ? std::optional(std::span<const float>(scales_f32->data(), scales_f32->size())) : std::nullopt,
      tensor_decode_scale);
  std::vector<double> v;
  {
    nb::gil_scoped_release nogil;
    v = dequantize(q, scale_ftz ? ScaleFtz::yes : ScaleFtz::no);
  }
  return to_numpy(v, q.shape);
}

nb::dict error_dict(const ErrorStats& e, const std::string& scheme) {
  nb::dict d;
  d["scheme"] = scheme;
  d["count"] = e.count;
  d["sqnr_db"] = e.sqnr_db();
  d["rel_frobenius"] = e.rel_frobenius();
  d["max_abs_err"] = e.max_abs_err;
  d["saturated"] = e.saturated;
  d["flushed"] = e.flushed;
  d["nonfinite_out"] = e.nonfinite_out;
  d["scale_min"] = e.scale_min;
  d["scale_max"] = e.scale_max;
  return d;
}

nb::dict errors_of(const QuantizedTensor& q, const InArray& x) {
  const std::size_t n = x.size();
  if (n != q.codes.size())
    throw Error("x: has " + std::to_string(n) + " elements; the tensor has " + std::to_string(q.codes.size()));
  ErrorStats e;
  {
    nb::gil_scoped_release nogil;
    std::vector<double> deq = dequantize(q);
    if (q.transform.rht16) {  // issue 25: the errors against x in the original domain (exact inverse, f64)
      std::vector<double> back(deq.size());
      untransform(q, deq, std::span<double>(back));
      deq = std::move(back);
    }
    e = x.itemsize() == 4 ? error_stats(std::span<const float>(static_cast<const float*>(x.data()), n), q, deq)
                          : error_stats(std::span<const double>(static_cast<const double*>(x.data()), n), q, deq);
  }
  return error_dict(e, q.scheme);
}

}  // namespace

void bind_quant(nb::module_& m) {
  nb::class_<QuantizedTensor>(m, "QuantizedTensor", "A quantized tensor (quant.hpp QuantizedTensor).")
      .def_ro("scheme", &QuantizedTensor::scheme)
      .def_prop_ro("spec", [](const QuantizedTensor& q) { return scheme_spec(parse_scheme(q.scheme)); })
      .def_prop_ro("rule", [](const QuantizedTensor& q) { return std::string(name(q.rule)); })
      .def_prop_ro("element", [](const QuantizedTensor& q) { return element_name(q.element); })
      .def_prop_ro("element_bits", [](const QuantizedTensor& q) { return element_bits(q.element); })
      .def_ro("shape", &QuantizedTensor::shape)
      .def_prop_ro("axis", [](const QuantizedTensor& q) { return std::string(name(q.axis)); })
      .def_prop_ro("transform", [](const QuantizedTensor& q) { return transform_name(q.transform); })
      .def_ro("rows", &QuantizedTensor::rows)
      .def_ro("cols", &QuantizedTensor::cols)
      .def_ro("block_rows", &QuantizedTensor::block_rows)
      .def_ro("block_cols", &QuantizedTensor::block_cols)
      .def_ro("scale_rows", &QuantizedTensor::scale_rows)
      .def_ro("scale_cols", &QuantizedTensor::scale_cols)
      .def_ro("scale_shape", &QuantizedTensor::scale_shape)
      .def_ro("tensor_encode_scale", &QuantizedTensor::tensor_encode_scale)
      .def_ro("tensor_decode_scale", &QuantizedTensor::tensor_decode_scale)
      .def_prop_ro("row_encode_scales",
                   [](const QuantizedTensor& q) {
                     return q.row_encode_scales.empty()
                                ? nb::none()
                                : to_numpy(q.row_encode_scales, std::vector<std::size_t>{q.row_encode_scales.size()});
                   })
      .def_prop_ro("row_decode_scales",
                   [](const QuantizedTensor& q) {
                     return q.row_decode_scales.empty()
                                ? nb::none()
                                : to_numpy(q.row_decode_scales, std::vector<std::size_t>{q.row_decode_scales.size()});
                   })
      .def_ro("saturated", &QuantizedTensor::saturated)
      .def_ro("flushed", &QuantizedTensor::flushed)
      .def_prop_ro("codes", [](const QuantizedTensor& q) { return to_numpy(q.codes, q.shape); })
      .def_prop_ro("scale_codes",
                   [](const QuantizedTensor& q) {
                     return q.scale_codes.empty() ? nb::none() : to_numpy(q.scale_codes, q.scale_shape);
                   })
      .def_prop_ro("scale_select",
                   [](const QuantizedTensor& q) {
                     return q.scale_select.empty() ? nb::none() : to_numpy(q.scale_select, q.scale_shape);
                   })
      .def_prop_ro(
          "scales_f32",
          [](const QuantizedTensor& q) { return q.scales.empty() ? nb::none() : to_numpy(q.scales, q.scale_shape); })
      .def(
          "scale_values",
          [](const QuantizedTensor& q) {
            std::vector<double> v(q.scale_rows * q.scale_cols);
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = block_scale_value(q, i);
            return to_numpy(v, q.scale_shape);
          },
          "The decoded block scales (E8M0: 2^(code-127); nvfp4: e4m3 value x tensor decode scale; FP32).")
      .def(
          "dequantize",
          [](const QuantizedTensor& q, bool scale_ftz) {
            std::vector<double> v;
            {
              nb::gil_scoped_release nogil;
              v = dequantize(q, scale_ftz ? ScaleFtz::yes : ScaleFtz::no);
            }
            return to_numpy(v, q.shape);
          },
          "scale_ftz"_a = false, "element x block scale (x tensor scale), the exact products in float64.")
      .def(
          "packed",
          [](const QuantizedTensor& q) {
            const int bits = element_bits(q.element);
            const std::size_t cols = q.shape.empty() ? q.codes.size() : q.shape.back();
            const std::size_t rows = cols == 0 ? 0 : q.codes.size() / cols;
            std::vector<std::uint8_t> out;
            std::size_t row_bytes = cols;
            for (std::size_t r = 0; r < rows; ++r) {
              const std::span<const std::uint8_t> row(q.codes.data() + r * cols, cols);
              std::vector<std::uint8_t> p;
              if (bits == 4) p = pack_fp4(row);
              else if (bits == 6) p = pack_fp6(row, Fp6Packing::dense);
              else p.assign(row.begin(), row.end());
              row_bytes = p.size();
              out.insert(out.end(), p.begin(), p.end());
            }
            std::vector<std::size_t> shape = q.shape.empty() ? std::vector<std::size_t>{row_bytes} : q.shape;
            shape.back() = row_bytes;
            return to_numpy(out, shape);
          },
          "Codes packed per row of the last axis, as `minifloat quantize --packed`: FP4 two per byte "
          "(element 2i in the low nibble), FP6 dense (4 codes in 3 bytes); shape [..., bytes per row]; "
          "8-bit elements unchanged (pack.hpp).")
      .def(
          "scales_in",
          [](const QuantizedTensor& q, std::string_view layout) -> nb::object {
            const LaidOutScales l = lay_out_scales(q, lookup_name(name_table(ScaleLayout{}), layout).value);
            if (l.file.descr == "|u1") return to_numpy(l.bytes, l.file.shape);
            if (l.file.descr == "<f4") return to_numpy(q.scales, q.scale_shape);
            std::vector<std::uint32_t> w(l.bytes.size() / 4);  // <u4: little-endian words
            for (std::size_t i = 0; i < w.size(); ++i)
              w[i] = l.bytes[4 * i] | (l.bytes[4 * i + 1] << 8) | (l.bytes[4 * i + 2] << 16) |
                     (static_cast<std::uint32_t>(l.bytes[4 * i + 3]) << 24);
            return to_numpy(w, l.file.shape);
          },
          "layout"_a,
          "The scales as `minifloat quantize --scale-layout LAYOUT --out-scales` writes them (scale_layout.hpp): "
          "'rowmajor' = scale_codes (or scales_f32); 'cutlass128x4' / 'flashinfer8x4' uint8 [padded rows, padded "
          "cols] of the grid [rows, K blocks] (1xk or kx1 blocks), padding 0; 'vllm4x4' uint8 [rows, cols] (both "
          "multiples of 4); 'deepgemm_packed' uint32 [ceil(cols/4), align4(rows)] (E8M0 only; .view('<i4') is "
          "DeepGEMM's int32). ValueError for an unknown name or a layout the scales cannot take.")
      .def("errors", &errors_of, "x"_a, "Error statistics (SQNR, ...) of the dequantized tensor against x.")
      .def(
          "transformed",
          [](const QuantizedTensor& q, const InArray& x) {
            std::vector<float> t;
            {
              nb::gil_scoped_release nogil;
              t = x.itemsize() == 4
                      ? transformed(q, std::span<const float>(static_cast<const float*>(x.data()), x.size()))
                      : transformed(q, std::span<const double>(static_cast<const double*>(x.data()), x.size()));
            }
            return t;
          },
          "x"_a, "The input after the transform, as quantize applied it (quant.hpp transformed): float32, C order.");
  m.def("quantize_array", &quantize_array, "type"_a, "x"_a, "shape"_a, "scheme"_a, "rule"_a.none(), "spec"_a,
        "profile"_a, "axis"_a, "sr"_a.none(), "policies"_a, "amax_epsilon"_a.none(), "mx_quirks"_a.none(), "threads"_a,
        "transform"_a.none() = std::nullopt, "tensor_scale"_a.none() = std::nullopt,
        "scale_select"_a.none() = std::nullopt, "transform_gemm"_a.none() = std::nullopt,
        "amax_scope"_a.none() = std::nullopt,
        "Quantize a flat float32/float64 array (or float16/bfloat16 bits) of `shape` with a scheme name or spec "
        "string.");
  m.def("dequantize_codes", &dequantize_codes, "codes"_a, "scale_codes"_a.none(), "scales_f32"_a.none(),
        "tensor_decode_scale"_a.none(), "shape"_a, "scheme"_a, "rule"_a.none(), "profile"_a, "axis"_a, "policies"_a,
        "amax_epsilon"_a.none(), "mx_quirks"_a.none(), "scale_ftz"_a,
        "The exact dequantized values (float64, `shape`) of uint8 codes and their scales (uint8 codes or float32 "
        "decode scales, nvfp4's tensor decode scale), the block layout of the scheme for `shape`.");
  m.def(
      "policy_keywords",
      [] {
        std::vector<std::string> v;
        for_each_policy_field([&](const auto& f, std::size_t) { v.push_back(policy_keyword(policy_key(f))); });
        return v;
      },
      "The keywords of quantize()'s block-policy fields (scheme.hpp kPolicyFields, in spec order).");
  m.def(
      "scheme_names",
      [] {
        std::vector<std::string> v;
        for (const auto& e : scheme_table().entries) v.emplace_back(e.name);
        return v;
      },
      "The named block schemes.");
}
