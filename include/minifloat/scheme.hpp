// SPDX-License-Identifier: Apache-2.0
// scheme.hpp: block schemes as data — a scheme is (element type, block shape, scale rule — which
// fixes the scale format —, special-block policies); the named schemes (MX, NVFP4, scaled FP8) are
// entries of one table, and any other scheme is written as a spec string. Names and specs go
// through the name registry (registry.hpp): `minifloat names scheme` lists both.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/block_scale.hpp"
#include "core/four_over_six.hpp"
#include "core/hadamard.hpp"
#include "core/tfdpa.hpp"
#include "error.hpp"
#include "registry.hpp"

namespace minifloat {

/// A block scheme. A tensor is viewed as a matrix [rows, cols] with cols = its last dimension
/// (rows = the product of the others; with BlockAxis::first the view is [rest, shape[0]]); a block
/// is a tile of block_rows × block_cols elements (0 = the whole dimension), tiles start at (0, 0)
/// and the last ones may be partial (the amax is taken over the elements present, as if
/// zero-padded: DeepSeek-V3 README_WEIGHTS). The scale rule fixes the scale format, its family
/// (family(rule); rules_in(family) lists them): an E8M0 rule stores e8m0fnu codes, an FP32 rule FP32
/// decode scales, nvfp4 ue4m3 codes (as e4m3fn bytes, bit 7 zero) under an FP32 per-tensor scale, the
/// UE5M3 rules (nvfp4_v2, nvfp4_v2_gs: auto-round) ue5m3 codes (nvfp4_v2_gs under an FP32 per-tensor scale).
///
/// The named schemes (scheme_table(), in this order):
///
/// | name              | element | tile      | scale                 | rule         | source |
/// |-------------------|---------|-----------|-----------------------|--------------|--------|
/// | mxfp8_e4m3        | e4m3fn  | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | mxfp8_e5m2        | e5m2    | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | mxfp6_e2m3        | e2m3fn  | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | mxfp6_e3m2        | e3m2fn  | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | mxfp4             | e2m1fn  | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | mxint8            | int8    | 1×32      | E8M0                  | ocp_floor    | OCP MX v1.0 |
/// | nvfp4             | e2m1fn  | 1×16      | E4M3 + FP32 per tensor| nvfp4        | NVIDIA / TE NVFP4BlockScaling |
/// | nvfp4_16x16       | e2m1fn  | 16×16     | E4M3 + FP32 per tensor| nvfp4        | TE NVFP4BlockScaling 2-D weight tiles (nvfp4_2d_quantization) |
/// | fp8_tensor        | e4m3fn  | all×all   | FP32                  | fp32_amax    | TE Float8CurrentScaling |
/// | fp8_row           | e4m3fn  | 1×all     | FP32                  | fp32_amax    | per token (activations) / per output channel (weights [out, in]) |
/// | fp8_channel       | e4m3fn  | all×1     | FP32                  | fp32_amax    | per column (per channel of a [tokens, channels] activation) |
/// | fp8_1x128         | e4m3fn  | 1×128     | FP32                  | fp32_amax    | DeepSeek-V3 activations, TE Float8BlockScaling 1-D |
/// | fp8_128x128       | e4m3fn  | 128×128   | FP32                  | fp32_amax    | DeepSeek-V3 weights, TE Float8BlockScaling 2-D |
/// | fp8_1x128_ue8m0   | e4m3fn  | 1×128     | E8M0                  | rceil        | DeepSeek-V3.1 `scale_fmt="ue8m0"`, InfiR2 |
/// | fp8_128x128_ue8m0 | e4m3fn  | 128×128   | E8M0                  | rceil        | DeepSeek-V3.1, InfiR2 `bf16_cast_fp8.py` |
/// | nvfp4_ue5m3       | e2m1fn  | 1×16      | UE5M3 + FP32 per tensor| nvfp4_v2_gs | auto-round `nvfp4_v2_with_global_scale` (nvfp.py:220) |
///
/// **Spec strings** (parse_scheme; ASCII case is ignored except inside `custom:` formats):
///
///     SCHEME  = ELEMENT "/" BLOCK "/" SCALE { "/" POLICY }
///     ELEMENT = a format name parse_format accepts, of at most 8 bits (e4m3fn, e2m3fn,
///               Binary8p3se, custom:E,M,BIAS,…), or "mxint8" (OCP MX INT8: k · 2^−6)
///     BLOCK   = DIM "x" DIM          rows × columns of a tile; DIM = a positive integer or "all"
///     SCALE   = "e8m0fnu:" RULE      RULE of the E8M0 family (rules_in(ScaleFamily::e8m0))
///             | "f32:" RULE          RULE of the FP32 family (rules_in(ScaleFamily::fp32))
///             | "ue4m3:nvfp4"        NVFP4 two-level scaling (needs a floating-point element)
///             | "ue5m3:" RULE        RULE of the UE5M3 family: nvfp4_v2 (no tensor scale) or nvfp4_v2_gs
///                                  (auto-round; a floating-point element; zero-block and fp32-order default)
///     POLICY  = KEY "=" VALUE        at most once per key, any order:
///               zero-block=standard|min_scale|unit_scale|nan   nan-block=whole_block_nan|element_only
///               inf-block=nan_scale|max_scale                  subnormal-amax=keep|flush_block
///               mxint8-min=twos_complement|symmetric           fp32-order=te_multiply|divide|exact
///               amax-epsilon=DECIMAL (≥ 0, finite; rounded once to binary32)
///               transform=none|rht16:te|rht16:torchao|rht16:0xHHHH   (Scheme::transform, parse_transform)
///               tensor-scale=DECIMAL (nvfp4: the given FP32 tensor encode scale; > 0, finite; Scheme::tensor_scale)
///               scale-select=none|4over6:mse|4over6:mae (nvfp4 1x16, Scheme::scale_select)
///               transform-gemm=exact|PRESET (with a transform: Scheme::transform_gemm, parse_transform_gemm)
///               amax-scope=tensor|row (nvfp4 1xk: one FP32 tensor scale, or one per row; Scheme::amax_scope)
///
/// Examples: `e2m3fn/1x16/e8m0fnu:rceil` (an MX-style FP6 scheme with blocks of 16 and RCEIL
/// scales), `e4m3fn/1x128/f32:fp32_amax/fp32-order=divide/amax-epsilon=0.0001` (DeepSeek-V3
/// act_quant), `e2m1fn/1x32/e8m0fnu:ocp_floor` (= mxfp4). scheme_name() gives the table name of
/// a scheme equal to a named one, else its canonical spec: the canonical element name, `all` or
/// the number for each DIM, then only the policies that differ from BlockPolicy{} in the order
/// above (amax-epsilon in the shortest decimal that reads back to the same binary32). Every
/// scheme_name() and scheme_spec() parses back to the same scheme.
/// Where the nvfp4 rule's FP32 encode scale takes its amax (Scheme::amax_scope): the whole tensor (the
/// default), or each row — the slice along the non-block axis, q.rows of them: with BlockAxis::last a row of
/// the [rows, cols] view, with BlockAxis::first a column of the input (TE reference_nvfp4.py:875-889: the
/// columnwise copy's rows are the input's columns). Per row r, TE's order with that row's amax a_r
/// (reference_nvfp4.py:709-730, core_nvfp4.cuh:82-95 and quantize_transpose_nvfp4.cuh:711-738):
/// S_enc[r] = min(fl32(2688 / a_r), FLT_MAX), 1 for a_r 0 or a result 0; S_dec[r] = fl32(1 / S_enc[r]); the
/// block code e4m3(fl32(amax_b · fl32(S_enc[r] · fl32(1/6)))); elements × min(fl32(1 / fl32(sf · S_dec[r])),
/// FLT_MAX); decode value element · sf · S_dec[r].
enum class AmaxScope : std::uint8_t { tensor, row };

struct Scheme {
  ElementType element = elements::e4m3fn;
  std::size_t block_rows = 1;   ///< 0 = all rows
  std::size_t block_cols = 32;  ///< 0 = all columns
  ScaleRule rule = ScaleRule::ocp_floor;
  BlockPolicy policy{};
  /// The transform applied to the input before quantization (core/hadamard.hpp; issue 25 item 1): the
  /// 16-point RHT along the block axis; spec key `transform`, CLI `--transform`, Python `transform=`.
  BlockTransform transform{};
  /// nvfp4 (issue 25 item 3): the FP32 tensor ENCODE scale S_enc given (TE global_encode_scale, FlashInfer's
  /// `global_sf` = 448·6/amax, static/calibrated scales) instead of fl32(2688 / tensor amax); 0 = from the
  /// amax (the default). Positive and finite; the tensor decode scale is fl32(1/S_enc) as always, and the
  /// quantization takes one pass (QuantPlan::first_pass false for 1×k tiles). Spec key `tensor-scale`, CLI
  /// `--tensor-scale VALUE|FILE`, Python `tensor_scale=`.
  float tensor_scale = 0.0f;
  /// nvfp4 (issue 25 item 2): how each block picks its scale, ScaleSelect::none (the rule's) or 4over6
  /// (core/four_over_six.hpp: map-to-6 or map-to-4, the smaller MSE/MAE error, TE's S_enc = 1536/amax).
  /// Spec key `scale-select=none|4over6:mse|4over6:mae`, CLI `--scale-select`, Python `scale_select=`.
  ScaleSelect scale_select = ScaleSelect::none;
  /// The arithmetic of the transform (issue 25 item 1): nullptr = exact, then one rounding to binary32 (the
  /// default); else a tensor-core preset (core/tfdpa.hpp mma_models::all, the models of `dot`): each group of 16
  /// is a 16×16 GEMM x·M on that model, x rounded into the preset's first operand format (rne, satfinite: `dot`'s
  /// default operand rounding), M = diag(s)·H16/4 (±0.25, exact in every operand format), C = +0, the result
  /// in the preset's destination (f32, or f16 then widened exactly), then the transform's output rounding.
  /// Spec key `transform-gemm`, CLI `--transform-gemm`, Python `transform_gemm=`.
  const TfdpaModel* transform_gemm = nullptr;
  /// nvfp4 and nvfp4_ceil with 1×k tiles (issue 25 item 3): the amax the FP32 encode scale S_enc is taken
  /// from, AmaxScope::tensor (the default: one S_enc) or AmaxScope::row (one S_enc per row: TE
  /// row_scaled_nvfp4, QuantizedTensor::row_encode_scales). Spec key `amax-scope=tensor|row`, CLI
  /// `--amax-scope`, Python `amax_scope=`.
  AmaxScope amax_scope = AmaxScope::tensor;
  friend constexpr bool operator==(const Scheme&, const Scheme&) = default;
};

/// A transform's spelling (spec key `transform`, CLI `--transform`, Python `transform=`), ASCII case
/// ignored: `none`; `rht16:te` (TE's sign mask 0xd7e8, output binary32: TE reference_nvfp4.py:335-447);
/// `rht16:torchao` (the same mask, output rounded to bfloat16: torchao nvfp4_reference.py:218-228);
/// `rht16:0xHHHH` (a user sign mask of 1 to 4 hex digits, bit i set: s_i = −1; output binary32).
/// Throws NameError naming the text and what is accepted.
BlockTransform parse_transform(std::string_view text);
/// The canonical spelling: none, rht16:te, rht16:torchao, rht16:0xhhhh (4 lowercase digits); a bf16
/// output with another mask than TE's (not reachable from the spelling) prints as rht16:0xhhhh:bf16
/// and parses back.
std::string transform_name(const BlockTransform& t);
/// `--transform-gemm` / spec key `transform-gemm`: `exact` (nullptr) or a tensor-core preset name
/// (tensor_core_table(), accumulate.hpp). Throws NameError naming the text and the accepted names.
const TfdpaModel* parse_transform_gemm(std::string_view text);
/// The spelling of Scheme::transform_gemm: exact or the preset's name.
std::string transform_gemm_name(const TfdpaModel* m);

/// One enum field of BlockPolicy. Its name table (name_table(E{}), registry.hpp) gives its spec key and
/// CLI option (the table's id: "zero-block" → `zero-block=…`, `--zero-block`) and its value names.
template <class E>
struct PolicyField {
  E BlockPolicy::*member;
  std::string_view help;       ///< the CLI help's words before the accepted names ("D7: ")
  bool fast_path;              ///< the block quantizer's SIMD fast path is written and tested for every value
  std::string_view diagnosis;  ///< the block checker's bug class for a kernel that follows another value
};
/// The enum fields of BlockPolicy, in spec order: one list for parse_scheme, scheme_spec, the fast
/// path's whitelist (src/quant/block_quantizer.cpp), the CLI's quantize options and the block checker's
/// alternatives (check_block.cpp). amax-epsilon, a number, is handled beside them.
inline constexpr auto kPolicyFields = std::tuple{
    PolicyField<ZeroBlock>{&BlockPolicy::zero, "D7: ", true, "another all-zero block rule (D7, T9, T20)"},
    PolicyField<NanInBlock>{&BlockPolicy::nan, "D8: ", true, "another NaN-in-block rule (D8, T18)"},
    PolicyField<InfInBlock>{&BlockPolicy::inf, "", true, "another Inf-in-block rule"},
    PolicyField<SubnormalAmax>{&BlockPolicy::subnormal, "", true, "FP32-subnormal amax handled otherwise (T15)"},
    PolicyField<Mxint8Min>{&BlockPolicy::mxint8_min, "D10 (mxint8 elements): ", true,
                           "another MXINT8 minimum: -128 kept or clamped to -127 (D10)"},
    PolicyField<Fp32ScaleOrder>{&BlockPolicy::fp32_order, "FP32 scale operation order (FP32 rules and nvfp4): ", true,
                                "another order of the FP32 scale operations"},
};
/// The number of kPolicyFields.
inline constexpr std::size_t kPolicyFieldCount = std::tuple_size_v<decltype(kPolicyFields)>;
/// fn(field, i) for each of kPolicyFields, in order (i = 0, 1, …).
template <class Fn>
void for_each_policy_field(Fn&& fn) {
  std::apply(
      [&](const auto&... f) {
        std::size_t i = 0;
        (fn(f, i++), ...);
      },
      kPolicyFields);
}
/// The spec key and CLI option name (without "--") of a policy field: its name table's id.
template <class E>
std::string_view policy_key(const PolicyField<E>&) {
  return name_table(E{}).id;
}

/// "scheme": the named schemes above, and the spec-string pattern.
const NameTable<Scheme>& scheme_table();
/// The names of ScaleSelect (spec key `scale-select`): none, 4over6:mse, 4over6:mae.
const NameTable<ScaleSelect>& name_table(ScaleSelect);
/// The names of AmaxScope (spec key `amax-scope`): tensor, row.
const NameTable<AmaxScope>& name_table(AmaxScope);
/// The named scheme `name` (case-insensitive); throws NameError listing the names and the pattern.
const Scheme& find_scheme(std::string_view name);
/// A scheme by name or spec string (grammar above); validated (validate_scheme). Throws NameError
/// for an unknown name or a malformed spec (one line naming the part that is wrong and what is
/// accepted), Error for a combination validate_scheme refuses.
Scheme parse_scheme(std::string_view text);
/// The rules of a scale family, in the order of the rule names (`minifloat names scale-rule`).
std::vector<ScaleRule> rules_in(ScaleFamily f);
/// The family's name as the messages and help texts write it: "E8M0", "FP32", "NVFP4".
std::string_view family_label(ScaleFamily f);
/// `s` with scale rule `r` (not validated: the caller may change more first). Throws Error when r is of another scale family than
/// s.rule (another scale format is another scheme), naming both families, the rules of s's family
/// and the spec of the scheme meant; `shown_as` is how the caller's user named s.
Scheme with_scale_rule(const Scheme& s, ScaleRule r, std::string_view shown_as);
/// The canonical spec string of `s` (always a spec, even for a named scheme).
std::string scheme_spec(const Scheme& s);
/// The table name of `s` when it equals a named scheme, else scheme_spec(s).
std::string scheme_name(const Scheme& s);

/// Throws Error (one line) unless every part of `s` applies to the others:
///  - a floating element is a valid format of at most 8 bits (codes are stored one per byte);
///  - nvfp4 needs a floating-point element; its zero blocks follow its own formula (zero-block
///    standard only);
///  - fp32-order divide needs fp32_amax; te_multiply/divide/exact only mean something for the FP32
///    rules and nvfp4 (E8M0 rules: te_multiply, the default, only);
///  - mxint8-min applies to the mxint8 element only;
///  - amax-epsilon is finite and ≥ 0;
///  - tensor-scale applies to nvfp4 only and is a positive finite binary32 (0: from the tensor amax);
///  - scale-select 4over6 applies to the nvfp4 rule with 1x16 tiles, e2m1fn elements, the default
///    policies and no tensor-scale (TE's 4over6 computes its own S_enc);
///  - amax-scope row applies to the nvfp4 and nvfp4_ceil rules with 1xk tiles, not with tensor-scale (a
///    given tensor scale has no amax) nor scale-select (not in the engine yet).
void validate_scheme(const Scheme& s);

}  // namespace minifloat
