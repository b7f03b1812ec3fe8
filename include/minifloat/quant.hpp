// SPDX-License-Identifier: Apache-2.0
// quant.hpp: the tensor quantizer — any block scheme (scheme.hpp: MX, NVFP4, scaled FP8 per tensor /
// row / channel / 1×128 / 128×128, user specs) on whole arrays or streamed piece by piece, and the
// dequantization. Beside it: error_stats.hpp (error statistics), delayed_scaling.hpp (Transformer
// Engine delayed scaling), mx_dot.hpp (the OCP MX dot product and GEMM). The tile step every loop
// runs is the core's (core/tile_step.hpp).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/block_scale.hpp"
#include "core/format.hpp"
#include "core/profile.hpp"
#include "core/tile_step.hpp"
#include "convert_array.hpp"
#include "convert_span.hpp"
#include "core/rounding.hpp"
#include "error.hpp"
#include "registry.hpp"
#include "scheme.hpp"

namespace minifloat {

/// The axis the blocks of a quantization run along (CLI `--axis`; QuantOptions::axis).
enum class BlockAxis : std::uint8_t {
  last,   ///< blocks along the last axis (the default)
  first,  ///< blocks along axis 0: the tensor is viewed as [shape[0], rest] and transposed; the
          ///< scales keep the input's axis order ([n, ...] → [tiles, ...]: QuantizedTensor)
};
/// "block-axis": last first (src/registry.cpp).
const NameTable<BlockAxis>& name_table(BlockAxis);

/// A peer library's MX or NVFP4 quantizer reproduced on purpose, where it differs from OCP MX v1.0 or from
/// NVIDIA/TE's NVFP4 (QuantOptions::mx_quirks, CLI `--mx-quirks` of quantize and probe gen; registry kind
/// "mx-quirks"). Default `none`: the definitions of scheme.hpp and core/block_scale.hpp.
/// `torchao_0_18`: torchao 0.18 `to_mx` (prototype/mx_formats/mx_tensor.py, eager/CPU path) for binary32
/// inputs, E8M0 rules ocp_floor (FLOOR), ceil, even and rceil and floating elements:
///  - FLOOR/CEIL/EVEN: the biased exponent comes from amax's FP32 bits (EVEN: bits + 2^(22−m), sign and
///    exponent kept), minus emax_elem, clamped to [−127, 128], +127; a NaN amax gives 0xff. The
///    divisor is that code's FP32 bits (code << 23) clamped up to 2^−126: code 0x00 divides by 2^−126,
///    not 2^−127; an Inf block gets the finite scale 128 − emax_elem (e4m3fn 0xf7) and a NaN block
///    divides by +Inf (finite elements ±0). y = fl32(x / divisor), FP8 elements clamped to ±max.
///  - RCEIL: descale = fl32(amax / max); code = clamp(ceil(fl32(log2 descale)), −127, 127) + 127
///    (log2 correctly rounded to FP32), NaN → 0xff, Inf → 0xfe; multiplier 2^(127 − code), except
///    code 0xfe from an Inf → 2^−127 and code 0x00 → 1.0 (sic); y = fl32(x · multiplier) clamped to ±max.
///  - NaN: a RCEIL NaN block multiplies by its +NaN descale (every element +NaN); elsewhere a NaN element
///    stays NaN, quieted with its payload kept.
///  - then y → element by `rounding` under `profile` (use the `torch` profile for torch's casts); a NaN
///    into FP4/FP6 takes torchao's `_f32_to_floatx_unpacked` bit path (no NaN case: +qNaN → e2m1 0x3).
///  NVFP4 (the nvfp4 rule with e2m1fn elements in 1×16 tiles): torchao 0.18 `nvfp4_quantize`
///  (prototype/mx_formats/nvfp4_tensor.py, CPU eager) with per_tensor_scale =
///  `per_tensor_amax_to_scale(torch.max(torch.abs(x)))` (what its inference workflow passes); every
///  operation is a binary32 RNE operation, in this order (TE's order is in core/block_scale.hpp):
///  - tensor: G = max|x| (a NaN anywhere gives G = NaN, bits 0xffffffff as torch.max returns it);
///    per-tensor decode scale pts = fl32(G / 2688) (QuantizedTensor::tensor_decode_scale;
///    tensor_encode_scale = fl32(1 / pts));
///  - block: A = max|x| over the 16 (+NaN when one is NaN); s = fl32(fl32(A / 6) / pts), clamped to
///    [2^−6, 448] (E4M3_EPS = finfo(e4m3fn).tiny: block scales below the smallest normal E4M3 are
///    clamped UP to 2^−6, never subnormal), then e4m3fn RNE (a NaN s gives 0x7f or, negative, 0xff);
///  - elements: r = fl32(fl32(1 / pts) / e4m3(s)); y = fl32(r · x) clamped to ±6, then → e2m1fn by
///    `rounding` (a NaN y takes the `_f32_to_floatx_unpacked` bit path above);
///  - NaN operands follow x86 SSE as torch's CPU kernels run them: a quotient keeps its dividend's
///    NaN, else its divisor's (quieted); r · x keeps r's NaN over x's; 0/0, Inf/Inf, 0·Inf give the
///    default NaN 0xffc00000; e4m3 NaN decodes to ±0x7ff00000 (torch's cast). So a zero tensor
///    (pts = 0) gets NaN scales 0xff and −NaN elements 0xc, a tensor holding Inf gets 0/Inf = ±0
///    elsewhere.
///  Verified against torchao 0.18 by tests/check/peers/torchao_test.py (label peers).
/// `torchao_0_18_no_tensor_scale`: NVFP4 only, torchao 0.18 `nvfp4_quantize` with per_tensor_scale
///  None (single-level): s = fl32(A / 6) clamped to [2^−6, 448] → e4m3fn; r = fl32(1 / e4m3(s));
///  y = fl32(r · x) clamped to ±6 → e2m1fn; tensor scales 1.
/// `te_2`: TransformerEngine 2.x's PyTorch reference quantizers (TE d0067d0), where they differ from TE's
///  CUDA kernels (the default follows recipe_common.cuh:14-49 and core_nvfp4.cuh:82-95), for binary32 inputs:
///  - FP32 current scaling (rules fp32_amax, fp32_pow2; e4m3fn / e5m2 elements; fp8_tensor, fp8_row,
///    fp8_channel, fp8_1x128, fp8_128x128): tests/pytorch/references/quantize_scale_calc.py:9-60 (=
///    custom_recipes/reference_current_scaling.py:155-198) and blockwise_quantizer_reference.py:114-167.
///    A = max|x| over the tile, +NaN when it holds a NaN; A = max(A, amax-epsilon) keeping the NaN;
///    scale = fl32(max / A), +Inf → FLT_MAX; fp32_pow2: 2^(frexp exponent − 1), torch.frexp's exponent of
///    a NaN being 0 (scale 0.5, **scale_inv 2.0**), an Inf A → 0; A = 0 → 1; scale_inv = fl32(1 / scale).
///    So an **Inf tile** gets scale 0 and **scale_inv +Inf** (the kernel: 1 and 1), its finite elements
///    x · 0 = ±0 and its Inf elements Inf · 0 = the default NaN (code 0xff); a **NaN tile** (fp32_amax)
///    scale_inv +NaN and every element NaN (the kernel's fmaxf ignores the NaN). Elements
///    y = fl32(x · scale) (the scale's NaN over x's), clamped to ±max, → element by `rounding`; a NaN y
///    gives 0x7f with its sign (torch's cast).
///  - NVFP4 (the nvfp4 rule, e2m1fn, 1×16 or 16×16): custom_recipes/reference_nvfp4.py:651-777 and
///    cast_to_fp4x2 (:49-71). Tensor: S = fl32(2688 / G), G = max|x| (NaN when one is), min(S, FLT_MAX)
///    keeping a NaN, 0 → 1; decode fl32(1 / S): an **all-zero tensor's decode scale is 1/FLT_MAX** (S =
///    FLT_MAX; the kernel: 1), **a NaN anywhere makes S, the decode scale and every block scale NaN**
///    (codes 0x7f: torch's vectorised CPU minimum gives 0xff on full vectors, so the sign is torch's, not
///    TE's) and every element code 0 (the kernel's fminf drops the NaN). Blocks as the default;
///    elements y = fl32(x · min(fl32(1 / fl32(e4m3 · S_dec)), FLT_MAX)) clamped to ±6, RNE, except **−0 →
///    code 0** and a NaN → code 0 (no comparison of cast_to_fp4x2 holds).
///  Not for scale-select, a given tensor-scale or a non-default block policy (other than amax-epsilon).
///  Checked against TE's reference_nvfp4.py by tests/peers/nvfp4_peers_test.py (ctest peers.nvfp4).
///  FP32 rules: an encode scale fp8_max / amax that overflows to +Inf becomes the INPUT type's max
///  (quantize_scale_calc.py:35 `torch.finfo(x_dtype).max`; the CUDA kernels' value_for_inf,
///  recipe_common.cuh:67): FLT_MAX for f32, **bf16's max 0x7f7f0000 for a bf16 input** (QuantOptions::source;
///  scale_inv fl32(1/that) = 0x00202020 instead of 0x00200000), 65504 for f16 (never reached: an f16 amax
///  is 0 or at least 2^-24). fp32_pow2 gives 2^127 from either (frexp).
/// Throws Error (quantize, BlockQuantizer) for another rule or tile, an int8 element, an NVFP4 element
/// other than e2m1fn, or an f64 source (unless the profile's source_via_f32).
enum class MxQuirks : std::uint8_t { none, torchao_0_18, torchao_0_18_no_tensor_scale, te_2 };
/// "mx-quirks": none torchao_0_18 torchao_0_18_no_tensor_scale te_2 (src/quant/names.cpp).
const NameTable<MxQuirks>& name_table(MxQuirks);

/// Choices of one quantization that are not part of the scheme (defaults: RNE + satfinite, the
/// ocp profile, blocks along the last axis).
struct QuantOptions {
  RoundingSpec rounding{Rounding::rne, Overflow::satfinite};  ///< element rounding (SR allowed)
  /// The element rounding's profile. Its `source_via_f32` applies to f64 sources: when set, every
  /// f64 value is first rounded to binary32 (RNE), as ml_dtypes and PyTorch casts do (D11);
  /// otherwise an f64 value enters every formula exactly.
  Profile profile = profiles::ocp;
  BlockAxis axis = BlockAxis::last;
  /// Stochastic rounding bits: element i (flat C-order index of the input) reads
  /// sr_bits(sr_seed, sr_stream, sr_step, i, variant) (random.hpp).
  std::uint64_t sr_seed = 0;
  std::uint32_t sr_stream = 0;
  std::uint32_t sr_step = 0;
  MxQuirks mx_quirks = MxQuirks::none;  ///< a peer's MX/NVFP4 quantizer on purpose (see MxQuirks); scalar path only
  /// The value type of the input array before it was widened to binary32 (ArrayType::f32, f16 or bf16; set by
  /// quantize(ArrayIn), the CLI and Python from the array's dtype). Read only by MxQuirks::te_2: TE's
  /// value_for_inf, the input type's max for an FP32 encode scale that overflows (see MxQuirks).
  ArrayType source = ArrayType::f32;
  friend bool operator==(const QuantOptions&, const QuantOptions&) = default;
};

/// Why QuantOptions do not apply to a scheme, as data: the option (spelled as the CLI and Python
/// spell it without dashes: `mx-quirks`, `sr_bits`) and the reason, so that no front end reads an
/// error message's text. BlockQuantizer's constructor throws Error("quantize: " + option + " " + why).
struct OptionIssue {
  std::string option;
  std::string why;
};
/// The options' check against a valid scheme (validate_scheme): nullopt when they apply. Refused: SR
/// with sr_bits outside 1..32; mx-quirks torchao_0_18 outside floating elements with ocp_floor, ceil,
/// even or rceil and nvfp4 e2m1fn 1x16; torchao_0_18_no_tensor_scale outside that nvfp4; either
/// quirk with a block policy other than the default; te_2 outside the FP32 rules (e4m3fn/e5m2 elements)
/// and nvfp4 (e2m1fn, 1x16 or 16x16), or with a block policy other than the default and amax-epsilon.
std::optional<OptionIssue> check_options(const Scheme& scheme, const QuantOptions& opt);
/// True when every QuantOptions field but the element rounding (`rounding`), `profile`, `axis`, the SR stream
/// (`sr_seed`, `sr_stream`, `sr_step`) and `source` holds its default: the fields a second implementation of
/// the block quantizer runs (the SIMD fast path's whitelist, the CUDA bodies' plan_blocks), so that any other
/// field — `mx_quirks` today, a field added later — sends it back to the engine or is refused, never ignored.
/// `source` (the input dtype) is read only under MxQuirks::te_2, which this already excludes.
bool only_element_options(const QuantOptions& opt);

/// A quantized tensor. Codes are one per element, right-aligned in a byte, in the input's
/// C order (use pack.hpp for packed layouts). [rows, cols], block_rows × block_cols and
/// [scale_rows, scale_cols] describe the quantization view (BlockAxis::first: the file view
/// transposed, so `cols` is shape[0]). Scales keep the input's axis order for either axis: they
/// are row-major over the tile grid of the file view, [scale_rows, scale_cols] for BlockAxis::last
/// and [scale_cols, scale_rows] for BlockAxis::first (block_scale_value's tile index is that
/// position). `scale_shape` is the shape they are written with:
///  - a 0-d input gives 0-d scales; a 1-D input of n elements gives (scale_cols,) — (33,) in
///    blocks of 32 gives (2,);
///  - with 1×k tiles (block_rows 1) the input's shape with the blocked axis replaced by its tile
///    count: [..., n] → [..., scale_cols]; BlockAxis::first: [n, ...] → [scale_cols, ...], e.g.
///    (40, 5) in blocks of 32 → (2, 5), as the spec ELEMENT/32x1/... along the last axis gives,
///    and (40, 3, 4) → (2, 3, 4);
///  - otherwise the 2-D tile grid, [scale_rows, scale_cols] (BlockAxis::first: [scale_cols, scale_rows]).
/// An empty input ((2, 0), (0, 5)) has the same shapes with the empty extents (0 tiles along an
/// empty axis, 1 tile along a full one).
struct QuantizedTensor {
  std::string scheme;  ///< scheme_name() of the scheme used
  ScaleRule rule = ScaleRule::ocp_floor;
  ElementType element;
  std::vector<std::size_t> shape;
  BlockAxis axis = BlockAxis::last;
  std::size_t rows = 0, cols = 0, block_rows = 0, block_cols = 0, scale_rows = 0, scale_cols = 0;
  std::vector<std::size_t> scale_shape;
  std::vector<std::uint8_t> codes;
  std::vector<std::uint8_t> scale_codes;  ///< E8M0 codes (E8M0 rules) or E4M3 codes (nvfp4)
  std::vector<float> scales;              ///< FP32 decode scales (FP32 rules)
  /// Scheme::scale_select 4over6 (issue 25 item 2): per tile, in scale_codes' order and scale_shape, 0 =
  /// map-to-6, 1 = map-to-4 (a NaN block: 0); empty without scale-select.
  std::vector<std::uint8_t> scale_select;
  float tensor_encode_scale = 1.0f;  ///< nvfp4: S_enc
  float tensor_decode_scale = 1.0f;  ///< nvfp4: fl32(1/S_enc)
  std::uint64_t saturated = 0;       ///< elements whose rounded magnitude exceeded the element max
  std::uint64_t flushed = 0;         ///< nonzero finite inputs that became ±0
  /// The transform the codes were taken after (Scheme::transform): with rht16 the codes and scales are
  /// those of the transformed tensor (core/hadamard.hpp), and dequantize() gives transformed values;
  /// untransform() maps them back.
  BlockTransform transform{};
  /// Scheme::transform_gemm: the transform's arithmetic (nullptr = exact then one rounding to binary32).
  /// untransform() stays exact whatever it is.
  const TfdpaModel* transform_gemm = nullptr;
  /// Scheme::amax_scope row (issue 25 item 3): per row of the [rows, cols] view (`rows` entries; with
  /// BlockAxis::first the input's columns), the FP32 encode scale S_enc[r] = fl32(2688 / row amax) (TE
  /// row_scaled_nvfp4) and the decode scale fl32(1/S_enc[r]) a block of row r is dequantized with; then
  /// tensor_encode_scale and tensor_decode_scale stay 1. Empty with amax-scope tensor.
  std::vector<float> row_encode_scales, row_decode_scales;
};

/// Quantize `x` (C order, `shape`) with `scheme` (validate_scheme). Binary32 inputs follow every
/// recipe's binary32 formula as written; an f64 input is never rounded to binary32 first (unless
/// opt.profile.source_via_f32): amax is its exact maximum, E8M0 elements round once from x/2^e,
/// and the FP32/NVFP4 formulas take x and amax exactly (see Fp32ScaleOrder, fp32_scale,
/// nvfp4_block_scale_code). Throws Error when x.size() does not match the shape, the scheme is
/// invalid, or sr_bits is outside 1..32 with Rounding::sr. The whole-array form of BlockQuantizer
/// (ArrayPath::simd where BlockQuantizer::element_path allows it); `threads` as BlockQuantizer::quantize.
QuantizedTensor quantize(std::span<const float> x, const std::vector<std::size_t>& shape, const Scheme& scheme,
                         const QuantOptions& opt = {}, unsigned threads = 0);
QuantizedTensor quantize(std::span<const double> x, const std::vector<std::size_t>& shape, const Scheme& scheme,
                         const QuantOptions& opt = {}, unsigned threads = 0);
/// The same from any float array of the array door (convert_array.hpp): ArrayType::f32 and f64 as
/// above; f16 and bf16 bits are widened exactly to binary32 piece by piece (BlockQuantizer::plan
/// pieces of at most 2^20 elements, no whole-array copy), so the codes, scales and counts are those
/// of quantize() on the widened binary32 array. ArrayType::codes throws Error.
QuantizedTensor quantize(const ArrayIn& x, const std::vector<std::size_t>& shape, const Scheme& scheme,
                         const QuantOptions& opt = {}, unsigned threads = 0);

/// A rectangle of a tensor in its file (C) order: file rows [row, row + rows) × columns
/// [col, col + cols) of the [file_rows, file_cols] view (BlockAxis::last: [rows, cols] of the
/// quantization view; BlockAxis::first: [shape[0], rest], i.e. its transpose). A piece is always
/// contiguous in the file: either whole rows (col 0, cols = file_cols) or part of one row.
struct QuantPiece {
  std::size_t row = 0, col = 0, rows = 0, cols = 0;
  std::size_t size() const noexcept { return rows * cols; }
  /// Flat C-order index of the piece's first element.
  std::size_t offset(std::size_t file_cols) const noexcept { return row * file_cols + col; }
};

/// How a tensor is cut into pieces of at most a given number of elements (BlockQuantizer::plan).
struct QuantPlan {
  std::size_t file_rows = 0, file_cols = 0;
  std::size_t piece_rows = 0;  ///< rows per piece (the last may have fewer); 1 with partial rows
  std::size_t piece_cols = 0;  ///< columns per piece (the last of a row may have fewer)
  /// Whether every piece must first go through BlockQuantizer::observe (a statistic over more than
  /// one piece: NVFP4's tensor amax, a tile that spans pieces).
  bool first_pass = false;
  std::size_t count() const noexcept;
  /// Piece k (0 ≤ k < count()), in file order.
  QuantPiece piece(std::size_t k) const noexcept;
};

namespace quant_detail {
template <class T>
class PieceRun;  // src/quant/tile_loops.cpp: the loops of one BlockQuantizer::quantize call
}  // namespace quant_detail

/// The streaming block quantizer: quantizes a tensor piece by piece, in file order, holding only
/// the scales (one per tile) and, with a first pass, one statistic per tile — never the tensor.
/// quantize() above is this engine applied to one piece that is the whole tensor.
///   BlockQuantizer bq(shape, scheme, opt);
///   const QuantPlan plan = bq.plan(1 << 21);
///   if (plan.first_pass) for (k …) bq.observe(plan.piece(k), values_of(piece));
///   for (k …) { bq.quantize(plan.piece(k), values_of(piece), codes);  write codes; }
///   const QuantizedTensor& q = bq.result();   // scales, tensor scales, counts (no codes)
/// Values are the piece's elements in file order (float or double; a source of another type
/// converts to float exactly: f16, bf16, integers). One BlockQuantizer takes one value type.
class BlockQuantizer {
 public:
  /// Throws Error for an invalid scheme (validate_scheme), SR bits outside 1..32, or a shape whose
  /// element count overflows. `path` = ArrayPath::engine forces the scalar reference loops (the
  /// oracle of tests/simd/simd_quant_test.cpp); ArrayPath::simd takes the fast path where
  /// element_path() allows it.
  BlockQuantizer(const std::vector<std::size_t>& shape, const Scheme& scheme, const QuantOptions& opt = {},
                 ArrayPath path = ArrayPath::simd);

  /// The element path of binary32 values (f64 values always take ArrayPath::engine, unless
  /// profile.source_via_f32 makes them binary32 first). ArrayPath::simd — src/simd/quant_simd.cpp:
  /// tile amax, NaN and Inf by an integer max; elements scaled in binary32 and encoded by the Highway
  /// kernels of convert_span's whitelist — by a positive whitelist:
  ///  - the path asked for is simd; the element is floating or int8 (mxint8: the table of simd::KeyKind::mxint8,
  ///    per Mxint8Min); the rule is on fast_path_whitelisted's
  ///    list (src/quant/block_quantizer.cpp; every rule of core/block_scale.hpp but nvfp4_ceil);
  ///  - (element format, rounding, overflow, profile) is on encode_path's whitelist (convert_span.hpp;
  ///    Rounding::sr → engine; int8: a mode, overflow and profile of those lists); every other field of QuantOptions, RoundingSpec and BlockPolicy than
  ///    those named in src/quant/block_quantizer.cpp's fast_path_whitelisted holds its default (an option added later
  ///    goes to the engine until it is specialised and tested);
  /// and then, per tile and run (the explicit rule, tested): NaN-block tiles write the NaN code as
  /// the engine does; tiles flushed by SubnormalAmax::flush_block and FP32/NVFP4 tiles with
  /// Fp32ScaleOrder::exact take the engine; E8M0 tiles take SIMD only when every x · 2^−e is exact
  /// in binary32 (each finite nonzero product normal; else the tile runs the engine), FP32 and NVFP4
  /// tiles with the te_multiply / divide order compute fl32(x · s) or fl32(x / s) as the reference
  /// does and encode it; NVFP4 with scale-select 4over6 takes it too (rne: simd::fused_rows_4over6, TE's error
  /// summed in the engine's order; other modes and special blocks the engine's 4over6 step), and amax-scope row
  /// (each row's S_enc). Codes, scales, 4over6 choices, row scales and counts are byte-identical to the engine's.
  ArrayPath element_path() const noexcept { return path_; }

  /// Pieces of at most `max_elements` elements (≥ 1) where that is possible: whole rows, as many
  /// as fit in a multiple of the tile height; else parts of a row (multiples of the tile width and
  /// of 8 columns, so FP4/FP6 packing stays byte-aligned). A tile that does not fit in a piece —
  /// or NVFP4's tensor amax — asks for the first pass; so does a piece that must exceed
  /// max_elements to hold a whole tile width (the piece then holds 8·⌊max/8⌋ columns).
  QuantPlan plan(std::size_t max_elements) const;
  /// First pass (when plan().first_pass): take the statistics of one piece. Pieces may come in
  /// any order but each exactly once, all before the first quantize(). `threads` as quantize's
  /// (0 = all cores): a binary32 piece whose tiles are all whole (only the tensor amax to take) is split
  /// over threads; the statistics are order-free (max, or), so the same for any count.
  void observe(const QuantPiece& p, std::span<const float> values, unsigned threads = 0);
  void observe(const QuantPiece& p, std::span<const double> values, unsigned threads = 0);
  /// End of the first pass: fixes the statistics over the whole tensor (NVFP4's tensor scales in
  /// result(), from the exact tensor amax). Called by the first quantize() if not before; call it
  /// yourself to read the tensor scale before quantizing (a file header that holds it).
  void end_first_pass();
  /// Quantize one piece: `codes` (p.size() bytes) gets the element codes in file order; the
  /// scales of the piece's tiles and the counts are updated. Without a first pass every piece
  /// must hold whole tiles (plan() pieces do). Throws Error on a size mismatch or a piece that
  /// cuts a tile without a first pass. `threads` (0 = all cores, the default; parallel_for.hpp): the
  /// piece is split by rows (or by columns when it has fewer rows than threads) over at most that many
  /// std::threads, one per 2^15 elements at most; codes, scales and counts are byte-identical for
  /// every thread count.
  void quantize(const QuantPiece& p, std::span<const float> values, std::span<std::uint8_t> codes,
                unsigned threads = 0);
  void quantize(const QuantPiece& p, std::span<const double> values, std::span<std::uint8_t> codes,
                unsigned threads = 0);
  /// Dequantize the codes of a quantized piece: element × block scale (× tensor scale), the exact
  /// product rounded once to double (exact for every named scheme) or to float.
  void dequantize(const QuantPiece& p, std::span<const std::uint8_t> codes, std::span<double> out,
                  ScaleFtz scale_ftz = ScaleFtz::no) const;
  void dequantize(const QuantPiece& p, std::span<const std::uint8_t> codes, std::span<float> out,
                  ScaleFtz scale_ftz = ScaleFtz::no) const;

  /// The result so far: everything but `codes` (empty). Scales are final once every piece is quantized.
  const QuantizedTensor& result() const noexcept { return q_; }
  QuantizedTensor& result() noexcept { return q_; }
  const Scheme& scheme() const noexcept { return scheme_; }

 private:
  template <class T>
  friend class quant_detail::PieceRun;
  using Stat = TileStat<double>;  ///< a tile's statistic (core/tile_step.hpp), exact for both value types
  template <class T>
  void observe_impl(const QuantPiece& p, std::span<const T> values, unsigned threads);
  template <class T>
  void quantize_impl(const QuantPiece& p, std::span<const T> values, std::span<std::uint8_t> codes, unsigned threads);
  template <class T>
  void dequantize_impl(const QuantPiece& p, std::span<const std::uint8_t> codes, std::span<T> out, ScaleFtz ftz) const;
  std::size_t scale_index(std::size_t ta, std::size_t tb) const noexcept;

  Scheme scheme_;
  QuantOptions opt_;
  ArrayPath path_ = ArrayPath::engine;
  QuantizedTensor q_;
  std::size_t file_rows_ = 0, file_cols_ = 0, tile_rows_ = 1, tile_cols_ = 1;  ///< in file order
  std::vector<Stat> stats_;                                                    ///< first pass: one per tile
  bool observed_ = false;
  double global_amax_ = 0;   ///< NVFP4: over the tensor, NaN ignored
  bool global_nan_ = false;  ///< NVFP4: a NaN anywhere in the tensor (MxQuirks torchao: G = NaN)
  bool global_done_ = false;
  std::array<double, 256> element_lut_{};  ///< element_value of each code (0 above a floating format's width)
  /// Scheme::amax_scope row: the amax of each row of the [rows, cols] view, NaN ignored
  std::vector<double> row_amax_;
  /// The path asked for (the constructor's `path`): the transform's (Scheme::transform, binary32 values) — the
  /// SIMD transform (src/simd/hadamard_simd.hpp) gives rht16_group's bits, so it needs no element whitelist
  ArrayPath transform_path_ = ArrayPath::engine;
};

/// Dequantize (exact products in double: element × scale [× tensor scale]). ScaleFtz::yes (D17)
/// reads FP32-subnormal scales as 0. NaN scales give NaN elements.
std::vector<double> dequantize(const QuantizedTensor& q, ScaleFtz scale_ftz = ScaleFtz::no);

/// The inverse of q.transform (issue 25 item 1, `--dequant-domain original`): `in` holds transformed values
/// in the input's C order (dequantize(q), or BlockQuantizer::dequantize of a piece) as whole groups — along
/// the last axis a multiple of 16 values, along axis first whole rows of the file view, 16 at a time —
/// and `out` gets, per group, x = y · Mᵀ computed exactly from the binary64 values and rounded once to
/// binary64 or binary32 (core/hadamard.hpp rht16_group, inverse; no bf16 output rounding). Transform
/// none copies (rounding to float). Throws Error when the sizes differ or cut a group.
void untransform(const QuantizedTensor& q, std::span<const double> in, std::span<double> out);
/// The forward transform as quantize applied it (q.transform with q.transform_gemm's arithmetic): `in` is the
/// input in C order (q's shape), the result the binary32 values the codes quantize (C order). Transform none
/// copies (rounding once to binary32). Throws Error when the size differs from q's.
std::vector<float> transformed(const QuantizedTensor& q, std::span<const float> in);
std::vector<float> transformed(const QuantizedTensor& q, std::span<const double> in);
void untransform(const QuantizedTensor& q, std::span<const double> in, std::span<float> out);

/// How many elements of an element format without a sign bit (ue4m3, e8m0fnu, unsigned P3109 …: the
/// element's format has is_signed false) are NaN codes from a negative number x < 0 (not NaN): such a
/// format has no code for a negative, so the element rounding makes it NaN — counted here rather than
/// refused (`quantize`'s summary prints "negative to NaN N"; `report` counts every NaN output in % NaN).
/// 0 for a signed element or an int8 element. `x` and `codes` are the same elements (a piece or the
/// whole tensor, C order); throws Error when their sizes differ.
std::uint64_t negatives_made_nan(ElementType element, std::span<const float> x, std::span<const std::uint8_t> codes);
std::uint64_t negatives_made_nan(ElementType element, std::span<const double> x, std::span<const std::uint8_t> codes);

/// How many NVFP4 blocks of `q` (rule nvfp4, MxQuirks::none) have an element multiplier
/// 1/fl32(s_dec_e4m3 · fl32(1/S_enc)) above FLT_MAX: Fp32ScaleOrder::te_multiply clamps it to FLT_MAX, as
/// TE's fminf does (nvfp4_element_encode_scale), so their elements are x · FLT_MAX, not x / decode scale
/// (a block amax below about 1.8e-38: x = 1.2e-38 alone gives 4.0, not 6.0); Fp32ScaleOrder::exact divides
/// by the decode scale exactly and clamps nothing (0). Blocks with a zero or NaN scale are not counted.
/// 0 for other rules.
std::uint64_t nvfp4_clamped_blocks(const QuantizedTensor& q, Fp32ScaleOrder order);

/// The decode value of tile (i, j)'s scale (E8M0: 2^(code−127); nvfp4: e4m3 value × tensor decode; FP32).
double block_scale_value(const QuantizedTensor& q, std::size_t tile_index, ScaleFtz scale_ftz = ScaleFtz::no);

}  // namespace minifloat
