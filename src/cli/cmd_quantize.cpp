// SPDX-License-Identifier: Apache-2.0
// cmd_quantize.cpp: `minifloat quantize` — one tensor through a block scheme, streamed piece by piece;
// codes/scales/dequant out as one transaction.
#include "cmd_quantize.hpp"
#include "common.hpp"

#include <fmt/core.h>

#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>

#include "minifloat/convert_array.hpp"
#include "minifloat/core/round_pack.hpp"
#include "minifloat/file_io.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/pack.hpp"
#include "minifloat/scale_layout.hpp"
#include "minifloat/parse.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/safetensors.hpp"
#include "options.hpp"

namespace minifloat::cli {
namespace {

bool is_mx_name(const std::string& s) { return s.rfind("mx", 0) == 0 || s == "nvfp4"; }

/// A decimal option rounded once to binary32 (parse_value: never through a double).
float parse_f32_option(std::string_view option, const std::string& text) {
  const Unpacked u = with_option(option, [&] { return parse_value(text); });
  return detail::bit_cast<float>(
      static_cast<std::uint32_t>(round_pack(formats::f32, u, {Rounding::rne, Overflow::nonsat}).code));
}

/// The metadata of a .safetensors --out-codes file: the scheme, rule, element, block and how the scales
/// are encoded (and, for nvfp4, the FP32 tensor decode scale).
std::map<std::string, std::string> safetensors_metadata(const QuantizedTensor& r, const Scheme& scheme,
                                                        const QuantOptions& q) {
  const bool scales_u8 = !r.scale_codes.empty();
  std::map<std::string, std::string> meta{
      {"scheme", r.scheme},
      {"scheme_spec", scheme_spec(scheme)},
      {"scale_rule", std::string(scale_rule_name(r.rule))},
      {"element", r.element.kind == ElementKind::int8 ? std::string("mxint8") : format_name(r.element.format)},
      {"block", std::to_string(r.block_rows) + "x" + std::to_string(r.block_cols)},
      {"blocks_along", r.axis == BlockAxis::first ? "first axis" : "last axis"},
      // NVFP4's block scale is UE4M3 (7 bits, bit 7 of the byte zero); torchao's NVFP4 (--mx-quirks) stores a
      // float8_e4m3fn scale, whose NaN block scale 0x7f/0xff UE4M3 cannot decode.
      {"scale_encoding", is_nvfp4_rule(r.rule)   ? (q.mx_quirks != MxQuirks::none ? "e4m3fn" : "ue4m3")
                         : is_ue5m3_rule(r.rule) ? "ue5m3"
                         : scales_u8             ? "e8m0fnu"
                                                 : "f32 decode scale"},
      {"producer", "minifloat quantize"}};
  if (q.mx_quirks != MxQuirks::none) meta["mx_quirks"] = std::string(name(q.mx_quirks));
  if (is_nvfp4_rule(scheme.rule) || scheme.rule == ScaleRule::nvfp4_v2_gs)
    meta["tensor_decode_scale"] = fmt::format("{:.9g}", r.tensor_decode_scale);
  return meta;
}

/// What the summary line adds to the quantizer's counts: negatives made NaN by an element format without a
/// sign (printed for such an element, issue 28 item 4), and the NVFP4 blocks whose element multiplier TE's
/// clamp to FLT_MAX changed (printed when there are any, item 5).
struct SummaryExtras {
  bool unsigned_element = false;
  std::uint64_t negatives_nan = 0;
  std::uint64_t clamped_blocks = 0;
};

/// The command's one line on stdout: counts of elements, scales, saturated and flushed elements, and
/// for nvfp4 the tensor decode scale with its bits.
void print_summary(const QuantizedTensor& r, std::size_t elements, bool nvfp4, const SummaryExtras& extra) {
  const bool first = r.axis == BlockAxis::first;  // the tile grid in the input's axis order, as the scales
  fmt::print("{} rule {}: {} elements, {} scales ({}x{} tiles of {}x{}), saturated {}, flushed to zero {}", r.scheme,
             scale_rule_name(r.rule), elements, r.scale_rows * r.scale_cols, first ? r.scale_cols : r.scale_rows,
             first ? r.scale_rows : r.scale_cols, first ? r.block_cols : r.block_rows,
             first ? r.block_rows : r.block_cols, r.saturated, r.flushed);
  if (extra.unsigned_element)
    fmt::print(", negative to NaN {} ({} has no sign)", extra.negatives_nan, format_name(r.element.format));
  if (extra.clamped_blocks != 0)
    fmt::print(
        ", element multiplier clamped to FLT_MAX in {} block{} (te_multiply as TE; --fp32-order exact "
        "divides by the decode scale)",
        extra.clamped_blocks, extra.clamped_blocks == 1 ? "" : "s");
  if (nvfp4 && !r.row_decode_scales.empty()) {
    fmt::print(", per-row decode scales ({} rows, --out-tensor-scale)", r.row_decode_scales.size());
  } else if (nvfp4) {
    std::uint32_t b;
    std::memcpy(&b, &r.tensor_decode_scale, 4);
    fmt::print(", tensor decode scale {:.9g} (0x{:08x})", r.tensor_decode_scale, b);
  }
  fmt::print("\n");
}

/// --dequant-dtype: the names, the .npy descr written and the format the exact dequantized value rounds to
/// once (RNE, IEEE overflow to inf: convert_array with rne + nonsat). f32 and f64 are the library's own
/// dequantize spans (the product in binary64, demoted once to binary32 for f32).
struct DequantDtype {
  std::string_view name;
  std::string_view descr;
  Format format;
};
constexpr std::array<DequantDtype, 4> kDequantDtypes{{{"f32", "<f4", formats::f32},
                                                      {"f64", "<f8", formats::f64},
                                                      {"f16", "<f2", formats::f16},
                                                      {"bf16", "<V2", formats::bf16}}};

const DequantDtype& parse_dequant_dtype(const std::string& text) {
  for (const DequantDtype& d : kDequantDtypes)
    if (d.name == text) return d;
  throw Error("--dequant-dtype '" + quote_input(text) + "' is not a dequant dtype; accepted: f32, f64, f16, bf16");
}

/// The dequantized values of one piece in `d`'s dtype, appended to `w`: f64/f32 through the library's
/// dequantize spans, f16/bf16 as the exact binary64 products rounded once by convert_array.
void append_dequant(NpyWriter& w, const DequantDtype& d, const BlockQuantizer& bq, const QuantPiece& p,
                    std::span<const std::uint8_t> codes, ScaleFtz ftz, std::vector<double>& deq64,
                    std::vector<float>& deq) {
  if (d.descr == "<f4") {
    deq.resize(p.size());
    bq.dequantize(p, codes, std::span<float>(deq), ftz);
    w.append_values(std::span<const float>(deq));
    return;
  }
  deq64.resize(p.size());
  bq.dequantize(p, codes, std::span<double>(deq64), ftz);
  if (d.descr == "<f8") {
    w.append_values(std::span<const double>(deq64));
    return;
  }
  std::vector<std::uint16_t> bits(p.size());
  ConvertRequest req;
  req.to = d.format;
  req.spec = {Rounding::rne, Overflow::nonsat};
  convert_array(ArrayIn::f64(deq64), std::span<std::uint16_t>(bits), req, "--dequant-dtype");
  w.append(std::as_bytes(std::span<const std::uint16_t>(bits)));
}

/// What --out-codes is: a .safetensors file (codes, then the scales, and the metadata), an .npy of codes,
/// or an .npy of packed codes (--packed).
enum class CodesFile : std::uint8_t { safetensors, npy, packed_npy };

/// --out-codes, written piece by piece in file order.
class CodesOut {
 public:
  /// `cols`: the last axis (packing is along it); r, scheme and q give a .safetensors file its metadata.
  CodesOut(OutputSet& out, OutputId id, CodesFile file, const std::vector<std::size_t>& shape, std::size_t cols,
           const QuantizedTensor& r, const Scheme& scheme, const QuantOptions& q)
      : file_(file), ebits_(element_bits(scheme.element)) {
    const bool scales_u8 = !r.scale_codes.empty();
    if (file == CodesFile::safetensors) {
      st_ = std::make_unique<SafetensorsWriter>(
          out, id,
          std::vector<SafetensorSpec>{{"codes", "|u1", shape}, {"scales", scales_u8 ? "|u1" : "<f4", r.scale_shape}},
          safetensors_metadata(r, scheme, q));
    } else if (file == CodesFile::packed_npy) {
      const std::size_t row_bytes = ebits_ == 4 ? (cols + 1) / 2 : (cols * 6 + 7) / 8;
      std::vector<std::size_t> packed = shape;
      if (packed.empty()) packed.push_back(row_bytes);
      else packed.back() = row_bytes;
      npy_ = std::make_unique<NpyWriter>(out, id, "|u1", packed);
    } else {
      npy_ = std::make_unique<NpyWriter>(out, id, "|u1", shape);
    }
  }
  /// The codes of piece `p`.
  void append(const QuantPiece& p, std::span<const std::uint8_t> codes) {
    if (st_) {
      st_->append(std::as_bytes(codes));
    } else if (file_ == CodesFile::packed_npy) {
      // each row (or aligned part of a row: a multiple of 8 codes) on its own
      for (std::size_t rr = 0; rr < p.rows; ++rr) {
        const std::span<const std::uint8_t> row(codes.data() + rr * p.cols, p.cols);
        const std::vector<std::uint8_t> b = ebits_ == 4 ? pack_fp4(row) : pack_fp6(row, Fp6Packing::dense);
        npy_->append(std::as_bytes(std::span<const std::uint8_t>(b)));
      }
    } else {
      npy_->append(std::as_bytes(codes));
    }
  }
  /// After the last piece: a .safetensors file takes the scales (`scale_bytes`) too.
  void finish(std::span<const std::byte> scale_bytes) {
    if (st_) {
      st_->append(scale_bytes);
      st_->finish();
    } else {
      npy_->finish();
    }
  }

 private:
  CodesFile file_;
  int ebits_;
  std::unique_ptr<NpyWriter> npy_;
  std::unique_ptr<SafetensorsWriter> st_;
};

/// --tensor-scale VALUE|FILE (issue 25 item 3): a decimal (rounded once to binary32), else a .npy file holding
/// one float32 (shape (1,) or ()), the FP32 tensor encode scale; positive and finite.
float tensor_scale_option(const std::string& text) {
  const std::string accepted = "; accepted: a positive finite number, or a .npy file of one float32 (shape (1,))";
  float v = 0.0f;
  bool number = true;
  try {
    v = parse_f32_option("--tensor-scale", text);
  } catch (const Error&) {
    number = false;
  }
  if (!number) {
    const NpyArray a = with_option("--tensor-scale", [&] { return read_npy(text); });
    if (a.dtype != "<f4" || a.element_count() != 1 || a.shape.size() > 1)
      throw Error("--tensor-scale '" + quote_input(text) + "' holds " + a.dtype + " of shape " + shape_text(a.shape) +
                  accepted);
    v = npy_as_f32(a)[0];
  }
  if (!(v > 0.0f) || std::isinf(v))
    throw Error("--tensor-scale '" + quote_input(text) + "' is not a positive finite number" + accepted);
  return v;
}

/// --out-scale-select FILE (issue 25 item 2): its output, none without the option; throws when the scheme has no
/// scale-select (before any output is written).
std::optional<OutputId> scale_select_output(OutputSet& out, const QuantizeOptions& o, const Scheme& scheme) {
  if (o.out_scale_select.empty()) return std::nullopt;
  if (scheme.scale_select == ScaleSelect::none)
    throw Error("--out-scale-select needs --scale-select 4over6:mse or 4over6:mae (or the spec key scale-select=)");
  return out.add_output(o.out_scale_select, "--out-scale-select");
}

/// --scale-select and --amax-scope (issue 25 items 2, 3) into the scheme; throws for an unknown name, or amax-scope
/// row with a .safetensors --out-codes (it holds one tensor scale; the per-row scales go to --out-tensor-scale).
void scale_options(Scheme& scheme, const QuantizeOptions& o) {
  if (o.scale_select) scheme.scale_select = parse_option<ScaleSelect>("--scale-select", *o.scale_select);
  if (o.amax_scope) scheme.amax_scope = parse_option<AmaxScope>("--amax-scope", *o.amax_scope);
  const bool st_out = o.out_codes.size() >= 12 && o.out_codes.rfind(".safetensors") == o.out_codes.size() - 12;
  if (st_out && scheme.amax_scope == AmaxScope::row)
    throw Error(
        "--amax-scope row writes its per-row scales with --out-tensor-scale; a .safetensors --out-codes "
        "holds one tensor scale (accepted: a .npy --out-codes)");
}

/// --out-tensor-scale: the FP32 tensor decode scale, shape (1,); with amax-scope row one per row, shape (rows,).
void write_tensor_scale(OutputSet& out, OutputId id, const QuantizedTensor& r) {
  if (r.row_decode_scales.empty()) write_npy(out, id, make_npy_f32({1}, {r.tensor_decode_scale}));
  else write_npy(out, id, make_npy_f32({r.row_decode_scales.size()}, r.row_decode_scales));
}

/// Each block's 4over6 choice (QuantizedTensor::scale_select: 0 map-to-6, 1 map-to-4) as .npy |u1 in scale_shape.
void write_scale_select(OutputSet& out, OutputId id, const QuantizedTensor& r) {
  NpyWriter w(out, id, "|u1", r.scale_shape);
  w.append(std::as_bytes(std::span<const std::uint8_t>(r.scale_select)));
  w.finish();
}

/// --dequant-domain (issue 25 item 1): whether --out-dequant holds the original domain; throws for an unknown
/// domain, or `original` without a transform.
bool dequant_domain_original(const std::string& domain, const Scheme& scheme) {
  if (domain != "transformed" && domain != "original")
    throw Error("--dequant-domain '" + quote_input(domain) + "' is not a domain; accepted: transformed, original");
  if (domain == "original" && !scheme.transform.rht16)
    throw Error("--dequant-domain original applies with a transform (--transform or the spec key transform=)");
  return domain == "original";
}

/// --dequant-domain original: the piece's dequantized values (exact in binary64) through the exact inverse
/// transform (untransform), rounded once to the file's type (f64 for an f64 source, else f32).
void append_untransformed(NpyWriter& w, const BlockQuantizer& bq, const QuantPiece& p,
                          std::span<const std::uint8_t> codes, bool f64, ScaleFtz ftz) {
  std::vector<double> deq(p.size());
  bq.dequantize(p, codes, std::span<double>(deq), ftz);
  if (f64) {
    std::vector<double> back(p.size());
    untransform(bq.result(), deq, std::span<double>(back));
    w.append_values(std::span<const double>(back));
  } else {
    std::vector<float> back(p.size());
    untransform(bq.result(), deq, std::span<float>(back));
    w.append_values(std::span<const float>(back));
  }
}

}  // namespace

void add_quantize_command(CLI::App& app, QuantizeOptions& o) {
  std::string scheme_names;
  for (const auto& e : scheme_table().entries) (scheme_names += scheme_names.empty() ? "" : ", ") += e.name;
  auto* c =
      app.add_subcommand("quantize", "Quantize one tensor with a block scheme (MX, NVFP4, scaled FP8, or a spec)");
  c->add_option("--scheme", o.scheme,
                "Block scheme: " + scheme_names +
                    ", or a spec ELEMENT/ROWSxCOLS/SCALE:RULE[/KEY=VALUE...] such as "
                    "e2m3fn/1x16/e8m0fnu:rceil (`minifloat names scheme`)")
      ->required();
  c->add_option("--scale-rule", o.scale_rule,
                "Scale rule of the scheme's scale family (default: the scheme's): " + choices<ScaleRule>());
  c->add_option("--round", o.round, "Element rounding: " + choices<Rounding>("rne"));
  c->add_option("--overflow", o.overflow, "Element overflow: " + choices<Overflow>("satfinite"));
  c->add_option("--sr-variant", o.sr_variant, "With --round sr: " + choices<SrVariant>("exact"));
  c->add_option("--sr-bits", o.sr_bits, kSrBitsHelp);
  c->add_flag("--ftz", o.ftz, kFtzHelp);
  c->add_flag("--daz", o.daz, kDazHelp);
  c->add_option("--seed", o.seed, "With --round sr (required): Philox seed; element i reads sr_bits(seed, 0, 0, i)")
      ->type_name("UINT64")
      ->check(uint64_text);
  c->add_option("--profile", o.profile, "Vendor profile: " + choices(profile_table(), "ocp"));
  c->add_option("--element", o.element, "Element format replacing the scheme's (fp8_* schemes and specs; e.g. e5m2)");
  c->add_option("--axis", o.axis,
                "Axis the blocks run along: " + choices<BlockAxis>("last") +
                    "; scales keep the input's axis order: (40, 5) with --axis first in blocks of 32 gives scales "
                    "(2, 5), as the spec ELEMENT/32x1/... does");
  for_each_policy_field([&](const auto& f, std::size_t i) {
    using E = std::remove_cvref_t<decltype(BlockPolicy{}.*f.member)>;
    c->add_option("--" + std::string(policy_key(f)), o.policy[i],
                  std::string(f.help) + choices<E>(name(BlockPolicy{}.*f.member)));
  });
  c->add_option("--amax-epsilon", o.amax_epsilon,
                "amax below this is raised to it (a decimal >= 0, rounded once to f32)");
  c->add_option("--mx-quirks", o.mx_quirks,
                "A peer's MX/NVFP4 quantizer on purpose (quant.hpp MxQuirks): " + choices<MxQuirks>("none"));
  c->add_flag("--scale-ftz", o.scale_ftz,
              "With --out-dequant: dequantize as an FTZ/DAZ consumer, subnormal scales read 0 (D17)");
  c->add_flag("--source-via-f32", o.source_via_f32,
              "An f64 input is rounded to f32 (RNE) first, as ml_dtypes and PyTorch casts do (default: each element "
              "rounds once from its f64 value; the ml_dtypes profile implies this flag)");
  c->add_flag("--integers-as-values", o.integers_as_values,
              "Read an integer input whose values are exact in binary32 (" + integer_value_dtypes() +
                  ", U8 I8 U16) as numbers (default: refused, integers are usually codes); <u4 and <u8 (e.g. FP32 bit "
                  "patterns) are refused either way");
  c->add_option("--in", o.in, "Input .npy (or .safetensors with --tensor)")->required();
  c->add_option("--tensor", o.tensor, "Tensor name in a .safetensors input");
  c->add_option("--out-codes", o.out_codes,
                "Output .npy of element codes (uint8), or a .safetensors file holding codes, scales and metadata")
      ->required();
  c->add_option("--out-scales", o.out_scales, "Output .npy of block scales");
  c->add_option("--scale-layout", o.scale_layout,
                "Where --out-scales puts each scale (default rowmajor): " + accepted_names(name_table(ScaleLayout{})) +
                    "; every layout but rowmajor lays out the grid [rows, K blocks] of 1xk / kx1 blocks (docs/cli.md)");
  c->add_option("--out-dequant", o.out_dequant,
                "Output .npy of dequantized values (float32; float64 for an f64 source)");
  c->add_option("--dequant-dtype", o.dequant_dtype,
                "With --out-dequant: its dtype, the exact dequantized value rounded once (RNE) to f32, f64, f16 "
                "(<f2) or bf16 (<V2, as ml_dtypes writes it) (default: f64 for an f64 source, else f32)");
  c->add_option("--out-tensor-scale", o.out_tensor_scale,
                "nvfp4: output .npy (float32, shape (1,)) of the FP32 per-tensor decode scale fl32(1/S_enc); with "
                "--amax-scope row shape (rows,), one per row");
  c->add_option("--threads", o.threads,
                "Threads per piece, 0..1024 (default 0: all cores); the output bytes do not depend on it");
  c->add_option("--transform", o.transform,
                "Transform before quantization along the block axis (spec key transform=; core/hadamard.hpp): none, "
                "rht16:te, rht16:torchao (bf16 output), rht16:0xHHHH (a 16-bit sign mask); the axis length must be a "
                "multiple of 16");
  c->add_option("--transform-gemm", o.transform_gemm,
                "With --transform: its arithmetic (spec key transform-gemm=): exact (default: exact, then one rounding "
                "to f32) or a tensor-core preset of `dot` (x rounded into its operand format, x*diag(s)*H16/4 on the "
                "model, C = +0)");
  c->add_option("--tensor-scale", o.tensor_scale,
                "nvfp4: the FP32 tensor encode scale S_enc given (spec key tensor-scale=; TE global_encode_scale, "
                "FlashInfer global_sf = 448*6/amax) instead of fl32(2688/amax): a number or a .npy of one float32; "
                "one pass");
  c->add_option("--scale-select", o.scale_select,
                "nvfp4 (spec key scale-select=; core/four_over_six.hpp, TE 4over6): " + choices<ScaleSelect>("none") +
                    "; each block mapped to 6 and to 4, the smaller error kept, S_enc = 1536/amax");
  c->add_option("--out-scale-select", o.out_scale_select,
                "With --scale-select 4over6:*: output .npy |u1 of each block's choice (0 map-to-6, 1 map-to-4), in "
                "the rowmajor scales' shape");
  c->add_option("--amax-scope", o.amax_scope,
                "nvfp4 1xk (spec key amax-scope=): " + choices<AmaxScope>("tensor") +
                    "; row: one FP32 encode scale per row from the row's amax (TE row_scaled_nvfp4; axis first: per "
                    "column), written by --out-tensor-scale");
  c->add_option("--dequant-domain", o.dequant_domain,
                "With --transform and --out-dequant: transformed (default: the dequantized transformed values) or "
                "original (their exact inverse transform, rounded once to the output's float type)");
  c->add_flag("--packed", o.packed,
              "Pack each row of the last axis: FP4 two per byte (element 2i in the low nibble), FP6 4 codes in 3 "
              "bytes; shape [..., bytes per row]");
}

namespace {
/// The scheme of --scheme with every scheme option applied (--scale-rule, --element, the block policies,
/// --amax-epsilon, --transform, --tensor-scale, --scale-select, --transform-gemm), validated.
Scheme scheme_of(const QuantizeOptions& o) {
  Scheme scheme = with_option("--scheme", [&] { return parse_scheme(o.scheme); });
  const Scheme given = scheme;
  const std::string given_name = scheme_name(given);
  const bool named = find_name(scheme_table(), o.scheme) != nullptr;
  if (o.scale_rule) {
    const ScaleRule r = parse_option<ScaleRule>("--scale-rule", *o.scale_rule);
    try {
      scheme = with_scale_rule(scheme, r, given_name);
    } catch (const Error& e) {
      throw Error(std::string("--scale-rule ") + e.what());
    }
  }
  if (o.element) {
    if (scheme.element.kind != ElementKind::floating || (named && is_mx_name(given_name)))
      throw Error("--element applies to the fp8_* schemes and to specs with a floating-point element; " + given_name +
                  " has a fixed element format (write a spec to change it, e.g. " + scheme_spec(scheme) +
                  " with another ELEMENT)");
    scheme.element.format = with_option("--element", [&] { return parse_format(*o.element); });
  }
  for_each_policy_field([&](const auto& f, std::size_t i) {
    using E = std::remove_cvref_t<decltype(BlockPolicy{}.*f.member)>;
    if (o.policy[i]) scheme.policy.*f.member = parse_option<E>("--" + std::string(policy_key(f)), *o.policy[i]);
  });
  if (o.amax_epsilon) {
    const float eps = parse_f32_option("--amax-epsilon", *o.amax_epsilon);
    if (!(eps >= 0.0f) || std::isinf(eps) || o.amax_epsilon->find('-') == 0)
      throw Error("--amax-epsilon '" + quote_input(*o.amax_epsilon) + "' must be a finite number >= 0");
    scheme.policy.amax_epsilon = eps;
  }
  if (o.transform) scheme.transform = with_option("--transform", [&] { return parse_transform(*o.transform); });
  if (o.tensor_scale) scheme.tensor_scale = tensor_scale_option(*o.tensor_scale);
  scale_options(scheme, o);
  if (o.transform_gemm)
    scheme.transform_gemm = with_option("--transform-gemm", [&] { return parse_transform_gemm(*o.transform_gemm); });
  validate_scheme(scheme);
  return scheme;
}
}  // namespace

int run_quantize(const QuantizeOptions& o) {
  // ---- 1. every option and combination, before any work -------------------------------------
  Scheme scheme = scheme_of(o);
  const bool dequant_original = dequant_domain_original(o.dequant_domain, scheme);

  QuantOptions q;
  q.rounding.rounding = parse_option<Rounding>("--round", o.round);
  q.rounding.overflow = parse_option<Overflow>("--overflow", o.overflow);
  SrEncodeFlags srf;
  srf.rounding = q.rounding.rounding;
  srf.sr_variant = o.sr_variant;
  srf.sr_bits = o.sr_bits;
  srf.seed = o.seed;
  const SrEncodePlan sr = validate_sr_encode_flags(srf);
  q.rounding = {q.rounding.rounding, q.rounding.overflow, sr.variant, sr.sr_bits, o.ftz, o.daz};  // RoundingSpec order
  q.sr_seed = sr.seed;
  q.profile = parse_option("--profile", profile_table(), o.profile).value;
  if (o.source_via_f32) q.profile.source_via_f32 = true;
  q.axis = parse_option<BlockAxis>("--axis", o.axis);
  if (o.mx_quirks) q.mx_quirks = parse_option<MxQuirks>("--mx-quirks", *o.mx_quirks);
  if (const std::optional<OptionIssue> issue =
          check_options(scheme, q))  // where the option applies: one line naming it
    throw Error("--" + issue->option + " " + issue->why);
  const auto threads = static_cast<unsigned>(parse_int_option("--threads", o.threads, kQuantThreads));

  const int ebits = element_bits(scheme.element);
  const bool st_out = o.out_codes.size() >= 12 && o.out_codes.rfind(".safetensors") == o.out_codes.size() - 12;
  if (o.packed) {
    if (st_out) throw Error("--packed writes .npy; use a .npy --out-codes or drop --packed");
    if (q.axis == BlockAxis::first)
      throw Error("--packed packs along the last axis; it cannot be combined with --axis first");
    if (ebits != 4 && ebits != 6)
      throw Error("--packed applies to 4- and 6-bit elements; " + scheme_name(scheme) + " has " +
                  std::to_string(ebits) + "-bit codes");
  }
  const bool nvfp4 = is_nvfp4_rule(scheme.rule) || scheme.rule == ScaleRule::nvfp4_v2_gs;
  if (!o.out_tensor_scale.empty() && !nvfp4)
    throw Error("--out-tensor-scale applies to nvfp4 only (the nvfp4 and nvfp4_v2_gs rules' FP32 tensor scale)");
  if (nvfp4 && !o.out_scales.empty() && o.out_tensor_scale.empty() &&
      q.mx_quirks != MxQuirks::torchao_0_18_no_tensor_scale)
    throw Error(
        "nvfp4 has a second-level FP32 tensor scale: give --out-tensor-scale FILE too, so the files dequantize "
        "on their own (element x block scale x tensor scale)");
  const auto layout = parse_option<ScaleLayout>("--scale-layout", o.scale_layout.value_or("rowmajor"));
  if (layout != ScaleLayout::rowmajor && o.out_scales.empty())
    throw Error("--scale-layout applies to --out-scales (a .safetensors --out-codes holds its scales rowmajor)");
  if (o.scale_ftz && o.out_dequant.empty())
    throw Error("--scale-ftz applies to --out-dequant (how the dequantized values read the scales)");
  if (o.dequant_dtype && o.out_dequant.empty())
    throw Error("--dequant-dtype applies to --out-dequant (the dtype of the dequantized values)");
  const DequantDtype* dequant_dtype = o.dequant_dtype ? &parse_dequant_dtype(*o.dequant_dtype) : nullptr;
  if (o.dequant_dtype && dequant_original)
    throw Error(
        "--dequant-dtype applies to --dequant-domain transformed; with --dequant-domain original "
        "--out-dequant holds the inverse transform rounded once to f32 (f64 for an f64 source)");

  const auto tensors = locate_tensors("quantize", o.in, o.tensor, o.integers_as_values, true);
  if (tensors.size() != 1)
    throw Error("--in '" + o.in + "' holds " + std::to_string(tensors.size()) +
                " tensors; choose one with --tensor NAME");
  const TensorLocation& in = tensors[0];
  // One rule with Python's quantize(): a 0-d or an empty array is refused, naming what is accepted.
  if (in.shape.empty())
    throw Error("--in '" + o.in + "' holds a 0-d array; accepted: arrays of 1 or more dimensions (reshape it to (1,))");
  if (in.element_count() == 0)
    throw Error("--in '" + o.in + "' holds an empty array (shape " + shape_text(in.shape) +
                "); accepted: arrays with at least one element");
  const bool f64 = in.dtype == "<f8";
  if (o.source_via_f32 && !f64)
    throw Error("--source-via-f32 applies to f64 (<f8, F64) inputs; '" + o.in + "' holds " + in.dtype +
                ", exact in f32 already");
  if (o.integers_as_values && !is_integer_dtype(in.dtype))
    throw Error("--integers-as-values applies to integer inputs (" + integer_value_dtypes() + "); '" + o.in +
                "' holds " + in.dtype);
  if (q.mx_quirks != MxQuirks::none) {
    if (f64 && !q.profile.source_via_f32)
      throw Error("--mx-quirks " + std::string(name(q.mx_quirks)) +
                  " reproduces a binary32 quantizer: give an f32 (or f16/bf16) "
                  "input, or --source-via-f32 for an f64 one");
  }
  if (in.dtype == "<V2" || in.dtype == "|V2") q.source = ArrayType::bf16;  // QuantOptions::source (te_2 only)
  if (in.dtype == "<f2") q.source = ArrayType::f16;
  BlockQuantizer bq(in.shape, scheme, q);
  const QuantizedTensor& r = bq.result();
  if (auto p = scale_layout_problem(r, layout)) throw Error("--scale-layout " + *p);

  // ---- 2. every output, through one transaction ----------------------------------------------
  OutputSet out;
  out.add_input(o.in, "--in");
  const OutputId id_codes = out.add_output(o.out_codes, "--out-codes");
  std::optional<OutputId> id_scales, id_tscale, id_deq, id_select = scale_select_output(out, o, scheme);
  if (!o.out_scales.empty()) id_scales = out.add_output(o.out_scales, "--out-scales");
  if (!o.out_tensor_scale.empty()) id_tscale = out.add_output(o.out_tensor_scale, "--out-tensor-scale");
  if (!o.out_dequant.empty()) id_deq = out.add_output(o.out_dequant, "--out-dequant");

  // ---- 3. the work: pieces in file order ---------------------------------------------------
  const QuantPlan plan = bq.plan(kPieceElements);
  const TensorReader rd(in);
  std::vector<std::byte> scratch;
  std::vector<float> xf;
  std::vector<double> xd;
  auto load = [&](const QuantPiece& p) {
    const std::size_t first = p.offset(plan.file_cols);
    if (f64) {
      xd.resize(p.size());
      rd.read(first, std::span<double>(xd), scratch);
    } else {
      xf.resize(p.size());
      rd.read(first, std::span<float>(xf), scratch);
    }
  };
  const std::size_t np = plan.count();
  if (plan.first_pass)
    for (std::size_t k = 0; k < np; ++k) {
      const QuantPiece p = plan.piece(k);
      load(p);
      if (f64) bq.observe(p, std::span<const double>(xd), threads);
      else bq.observe(p, std::span<const float>(xf), threads);
    }
  bq.end_first_pass();  // the tensor scale is known from here on (the .safetensors metadata holds it)

  const bool scales_u8 = !r.scale_codes.empty();
  const CodesFile codes_file = st_out ? CodesFile::safetensors : o.packed ? CodesFile::packed_npy : CodesFile::npy;
  CodesOut w_codes(out, id_codes, codes_file, in.shape, plan.file_cols, r, scheme, q);
  std::unique_ptr<NpyWriter> w_deq;
  // The dequantized values in the source's precision: an f64 source gets <f8 (its values, e.g. 448·2^124,
  // may not fit float32, which would turn them into inf silently).
  if (id_deq && !dequant_dtype) dequant_dtype = &kDequantDtypes[f64 ? 1 : 0];
  if (id_deq) w_deq = std::make_unique<NpyWriter>(out, *id_deq, std::string(dequant_dtype->descr), in.shape);

  SummaryExtras extra;
  extra.unsigned_element = scheme.element.kind == ElementKind::floating && !scheme.element.format.is_signed;
  std::vector<std::uint8_t> codes;
  std::vector<float> deq;
  std::vector<double> deq64;
  for (std::size_t k = 0; k < np; ++k) {
    const QuantPiece p = plan.piece(k);
    load(p);
    codes.resize(p.size());
    if (f64) bq.quantize(p, std::span<const double>(xd), codes, threads);
    else bq.quantize(p, std::span<const float>(xf), codes, threads);
    if (extra.unsigned_element)
      extra.negatives_nan += f64 ? negatives_made_nan(scheme.element, std::span<const double>(xd), codes)
                                 : negatives_made_nan(scheme.element, std::span<const float>(xf), codes);
    w_codes.append(p, codes);
    if (w_deq) {
      const ScaleFtz ftz = o.scale_ftz ? ScaleFtz::yes : ScaleFtz::no;
      if (dequant_original) append_untransformed(*w_deq, bq, p, codes, f64, ftz);
      else append_dequant(*w_deq, *dequant_dtype, bq, p, codes, ftz, deq64, deq);
    }
  }
  const std::span<const std::byte> scale_bytes = scales_u8 ? std::as_bytes(std::span<const std::uint8_t>(r.scale_codes))
                                                           : std::as_bytes(std::span<const float>(r.scales));
  w_codes.finish(scale_bytes);
  if (w_deq) w_deq->finish();
  if (id_scales) {
    const LaidOutScales laid = lay_out_scales(r, layout);
    NpyWriter w(out, *id_scales, laid.file.descr, laid.file.shape);
    w.append(std::as_bytes(std::span<const std::uint8_t>(laid.bytes)));
    w.finish();
  }
  if (id_tscale) write_tensor_scale(out, *id_tscale, r);
  if (id_select) write_scale_select(out, *id_select, r);
  out.commit();

  if (q.mx_quirks == MxQuirks::none) extra.clamped_blocks = nvfp4_clamped_blocks(r, scheme.policy.fp32_order);
  print_summary(r, in.element_count(), nvfp4, extra);
  return 0;
}

}  // namespace minifloat::cli
