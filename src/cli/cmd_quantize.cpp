// SPDX-License-Identifier: Apache-2.0
// cmd_quantize.cpp: `minifloat quantize` — one tensor through a block scheme, codes/scales/dequant out.
#include "cmd_quantize.hpp"
#include "cmd_sr_encode.hpp"

#include <fmt/core.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "cmd_report.hpp"
#include "options.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/pack.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/safetensors.hpp"

namespace minifloat::cli {

void add_quantize_command(CLI::App& app, QuantizeOptions& o) {
  std::string scheme_names;
  for (const auto& sc : schemes()) (scheme_names += scheme_names.empty() ? "" : ", ") += sc.name;
  auto* c = app.add_subcommand("quantize", "Quantize one tensor with a block scheme (MX, NVFP4, scaled FP8)");
  c->add_option("--scheme", o.scheme, "Block scheme: " + scheme_names + " (`minifloat names scheme`)")->required();
  c->add_option("--scale-rule", o.scale_rule, "Scale rule (default: the scheme's): " + choices<ScaleRule>());
  c->add_option("--round", o.round, "Element rounding: " + choices<Rounding>("rne"));
  c->add_option("--overflow", o.overflow, "Element overflow: " + choices<Overflow>("satfinite"));
  c->add_option("--sr-variant", o.sr_variant, "With --round sr: " + choices<SrVariant>("exact"));
  c->add_option("--sr-bits", o.sr_bits, "Random bits for SR variants A/B/C (1..32)");
  c->add_option("--seed", o.seed, "Philox seed for --round sr (element i reads sr_bits(seed, 0, 0, i))")
      ->check(uint64_text);
  c->add_option("--profile", o.profile, "Vendor profile: " + choices(profile_table(), "ocp"));
  c->add_option("--element", o.element, "Element format for fp8_* schemes (e.g. e5m2)");
  c->add_option("--axis", o.axis, "Axis the blocks run along: " + choices<BlockAxis>("last"));
  c->add_option("--zero-block", o.zero_block, "D7: " + choices<ZeroBlock>("standard"));
  c->add_option("--nan-block", o.nan_block, "D8: " + choices<NanInBlock>("whole_block_nan"));
  c->add_option("--inf-block", o.inf_block, choices<InfInBlock>("nan_scale"));
  c->add_option("--subnormal-amax", o.subnormal_amax, choices<SubnormalAmax>("keep"));
  c->add_option("--mxint8-min", o.mxint8_min, "D10: " + choices<Mxint8Min>("twos_complement"));
  c->add_option("--fp32-order", o.fp32_order, "FP32 scale operation order: " + choices<Fp32ScaleOrder>("te_multiply"));
  c->add_option("--amax-epsilon", o.amax_epsilon, "amax below this is raised to it");
  c->add_flag("--scale-ftz", o.scale_ftz, "Dequantize as an FTZ/DAZ consumer: subnormal scales read 0 (D17)");
  c->add_option("--in", o.in, "Input .npy (or .safetensors with --tensor)")->required();
  c->add_option("--tensor", o.tensor, "Tensor name in a .safetensors input");
  c->add_option("--out-codes", o.out_codes, "Output .npy of element codes (uint8), or a .safetensors file holding codes, scales and metadata")->required();
  c->add_option("--out-scales", o.out_scales, "Output .npy of block scales");
  c->add_option("--out-dequant", o.out_dequant, "Output .npy of dequantized values (float32)");
  c->add_option("--out-tensor-scale", o.out_tensor_scale,
                "nvfp4: output .npy (float32, shape (1,)) of the FP32 per-tensor decode scale fl32(1/S_enc)");
  c->add_flag("--packed", o.packed, "Pack each row of the last axis: FP4 two per byte (element 2i in the low nibble), FP6 4 codes in 3 bytes; shape [..., bytes per row]");
}

int run_quantize(const QuantizeOptions& o) {
  const Scheme& scheme = find_scheme(o.scheme);
  QuantOptions q;
  if (!o.scale_rule.empty()) q.rule = parse_option<ScaleRule>("--scale-rule", o.scale_rule);
  q.rounding.rounding = parse_option<Rounding>("--round", o.round);
  q.rounding.overflow = parse_option<Overflow>("--overflow", o.overflow);
  if (q.rounding.rounding == Rounding::sr) {
    q.rounding.sr_variant = parse_option<SrVariant>("--sr-variant", o.sr_variant);
    if (o.sr_bits < 1 || o.sr_bits > 32) throw Error("--sr-bits " + std::to_string(o.sr_bits) + " is out of range; accepted: 1..32");
    q.rounding.sr_bits = static_cast<std::uint8_t>(o.sr_bits);
    if (!o.seed) throw Error("--round sr needs --seed S (an unsigned 64-bit integer) so the output is reproducible");
    q.sr_seed = *o.seed;
  } else if (o.seed) {
    throw Error("--seed applies only to --round sr");
  }
  q.profile = parse_option("--profile", profile_table(), o.profile).value;
  if (!o.element.empty()) {
    if (scheme.name.rfind("fp8_", 0) != 0)
      throw Error("--element applies to the fp8_* schemes only; " + scheme.name + " has a fixed element format");
    q.element = with_option("--element", [&] { return parse_format(o.element); });
  }
  q.along_first_axis = parse_option<BlockAxis>("--axis", o.axis) == BlockAxis::first;
  q.policy.zero = parse_option<ZeroBlock>("--zero-block", o.zero_block);
  q.policy.nan = parse_option<NanInBlock>("--nan-block", o.nan_block);
  q.policy.inf = parse_option<InfInBlock>("--inf-block", o.inf_block);
  q.policy.subnormal = parse_option<SubnormalAmax>("--subnormal-amax", o.subnormal_amax);
  q.policy.mxint8_min = parse_option<Mxint8Min>("--mxint8-min", o.mxint8_min);
  q.policy.fp32_order = parse_option<Fp32ScaleOrder>("--fp32-order", o.fp32_order);
  if (!(o.amax_epsilon >= 0.0f) || std::isinf(o.amax_epsilon)) throw Error("--amax-epsilon must be a finite number >= 0");
  q.policy.amax_epsilon = o.amax_epsilon;

  const auto tensors = load_tensors(o.in, o.tensor, true);
  if (tensors.size() != 1)
    throw Error("--in '" + o.in + "' holds " + std::to_string(tensors.size()) + " tensors; choose one with --tensor NAME");
  const NpyArray& in = tensors[0].second;
  const std::vector<float> x = npy_as_f32(in);
  const QuantizedTensor r = quantize(x, in.shape, scheme, q);

  const int ebits = element_bits(r.element);
  const bool st_out = o.out_codes.size() >= 12 && o.out_codes.rfind(".safetensors") == o.out_codes.size() - 12;
  if (st_out) {  // one file: codes, scales and the metadata needed to decode them
    if (o.packed) throw Error("--packed writes .npy; use a .npy --out-codes or drop --packed");
    std::vector<std::pair<std::string, NpyArray>> t;
    t.emplace_back("codes", make_npy_u8(in.shape, r.codes));
    if (!r.scale_codes.empty()) t.emplace_back("scales", make_npy_u8({r.scale_rows, r.scale_cols}, r.scale_codes));
    else t.emplace_back("scales", make_npy_f32({r.scale_rows, r.scale_cols}, r.scales));
    std::map<std::string, std::string> meta{
        {"scheme", scheme.name},
        {"scale_rule", std::string(scale_rule_name(r.rule))},
        {"element", r.element.kind == ElementKind::int8 ? std::string("mxint8") : format_name(r.element.format)},
        {"block", std::to_string(r.block_rows) + "x" + std::to_string(r.block_cols)},
        {"blocks_along", r.transposed ? "first axis" : "last axis"},
        {"scale_encoding", r.rule == ScaleRule::nvfp4 ? "e4m3fn"
                           : r.scale_codes.empty()    ? "f32 decode scale"
                                                      : "e8m0fnu"},
        {"producer", "minifloat quantize"}};
    if (r.rule == ScaleRule::nvfp4) meta["tensor_decode_scale"] = fmt::format("{:.9g}", r.tensor_decode_scale);
    write_safetensors(o.out_codes, t, meta);
  } else if (o.packed) {  // each row of the last axis packed on its own: shape [..., bytes per row]
    if (q.along_first_axis)
      throw Error("--packed packs along the last axis; it cannot be combined with --axis first");
    if (ebits != 4 && ebits != 6)
      throw Error("--packed applies to 4- and 6-bit elements; " + scheme.name + " has " + std::to_string(ebits) + "-bit codes");
    const std::size_t cols = in.shape.empty() ? 1 : in.shape.back();
    const std::size_t rows = cols ? r.codes.size() / cols : 0;
    std::vector<std::uint8_t> p;
    std::size_t row_bytes = ebits == 4 ? (cols + 1) / 2 : (cols * 6 + 7) / 8;
    for (std::size_t i = 0; i < rows; ++i) {
      const std::span<const std::uint8_t> row(r.codes.data() + i * cols, cols);
      const std::vector<std::uint8_t> b = ebits == 4 ? pack_fp4(row) : pack_fp6(row, Fp6Packing::dense);
      row_bytes = b.size();
      p.insert(p.end(), b.begin(), b.end());
    }
    std::vector<std::size_t> shape = in.shape;
    if (shape.empty()) shape.push_back(row_bytes);
    else shape.back() = row_bytes;
    write_npy(o.out_codes, make_npy_u8(shape, p));
  } else {
    write_npy(o.out_codes, make_npy_u8(in.shape, r.codes));
  }
  if (r.rule == ScaleRule::nvfp4 && !o.out_scales.empty() && o.out_tensor_scale.empty())
    throw Error("nvfp4 has a second-level FP32 tensor scale: give --out-tensor-scale FILE too, so the files dequantize "
                "on their own (element x block scale x tensor scale)");
  if (!o.out_tensor_scale.empty()) {
    if (r.rule != ScaleRule::nvfp4) throw Error("--out-tensor-scale applies to nvfp4 only");
    write_npy(o.out_tensor_scale, make_npy_f32({1}, {r.tensor_decode_scale}));
  }
  if (!o.out_scales.empty()) {
    if (!r.scale_codes.empty()) write_npy(o.out_scales, make_npy_u8({r.scale_rows, r.scale_cols}, r.scale_codes));
    else write_npy(o.out_scales, make_npy_f32({r.scale_rows, r.scale_cols}, r.scales));
  }
  if (!o.out_dequant.empty()) {
    const std::vector<double> d = dequantize(r, o.scale_ftz ? ScaleFtz::yes : ScaleFtz::no);
    std::vector<float> f(d.begin(), d.end());
    write_npy(o.out_dequant, make_npy_f32(in.shape, f));
  }
  fmt::print("{} rule {}: {} elements, {} scales ({}x{} tiles of {}x{}), saturated {}, flushed to zero {}", scheme.name,
             scale_rule_name(r.rule), r.codes.size(), r.scale_rows * r.scale_cols, r.scale_rows, r.scale_cols,
             r.block_rows, r.block_cols, r.saturated, r.flushed);
  if (r.rule == ScaleRule::nvfp4) {
    std::uint32_t b;
    std::memcpy(&b, &r.tensor_decode_scale, 4);
    fmt::print(", tensor decode scale {:.9g} (0x{:08x})", r.tensor_decode_scale, b);
  }
  fmt::print("\n");
  return 0;
}

}  // namespace minifloat::cli
