// SPDX-License-Identifier: Apache-2.0
// check_block.hpp: check anybody's block-quantization kernel (MX, NVFP4, scaled FP8, any scheme of
// scheme.hpp) bit for bit: element codes AND block scales. Generates f32 blocks in named classes
// (amax where the scale rules differ, one NaN/Inf element, all-zero and subnormal-amax blocks,
// elements on scaled midpoints, random tensors), runs the kernel (batched over blocks, so a GPU
// launcher fits), compares with the library's quantizer (quant.hpp: round_pack for the elements,
// the exact scale rules of core/block_scale.hpp), shrinks each failing class to its simplest
// failing block, and diagnoses the kernel against a panel of other scale rules, special-block
// policies, FP32 op orders, element roundings and nibble orders. Part of the checker (minifloat::check); the elementwise
// checker is check.hpp (its Packing, Alternative and Diagnosis are reused here).
//
//   using namespace minifloat;
//   check::BlockTarget t{.scheme = find_scheme("mxfp8_e4m3")};
//   check::BlockReport r = check::check_blocks(my_launcher, t);   // r.ok(), std::cout << r.text()
//
// Design: ../shared/cuda-notes.md §B; scale-rule facts spec-digest §2.3, traps T14, T16, T18, T20.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../quant.hpp"
#include "../scheme.hpp"
#include "check.hpp"

namespace minifloat::check {

/// What the block kernel claims to compute: quantize(block, {k}, scheme, {rounding, profile})
/// (quant.hpp) on every block of k = scheme.block_cols binary32 values, each block on its own —
/// for NVFP4 each block is a tensor of its own (its FP32 per-tensor scale comes from that block's
/// amax). Only 1×k tiles (block_rows 1, block_cols ≥ 1) are accepted; deterministic rounding
/// only (no SR).
/// Outputs per block: k element codes (Packing::none: one per byte; Packing::fp4x2: k/2 bytes,
/// element 2j in the low nibble, needs a 4-bit element and an even k; Packing::fp6_dense: 3k/4 bytes,
/// four codes per 3 bytes LSB-first, needs a 6-bit element and k a multiple of 4) and one scale word:
///  - E8M0 rules (ScaleFamily::e8m0): the e8m0fnu code (X = 2^(code − 127), 0xff NaN);
///  - nvfp4: the ue4m3 block-scale code (an e4m3fn byte, bit 7 zero);
///  - FP32 rules (ScaleFamily::fp32): the binary32 bits of the decode scale.
struct BlockTarget {
  Scheme scheme{};
  RoundingSpec rounding{Rounding::rne, Overflow::satfinite};  ///< element rounding
  Profile profile = profiles::ocp;
  Packing packing = Packing::none;
  MxQuirks mx_quirks = MxQuirks::none;  ///< a peer's MX quantizer (quant.hpp), e.g. torchao_0_18
  friend bool operator==(const BlockTarget&, const BlockTarget&) = default;
};
/// "mxfp8_e4m3 (f32 blocks of 32, rne satfinite, ocp)".
std::string describe(const BlockTarget& t);
/// Throws Error naming what is accepted: a tile other than 1×k, an invalid scheme, Rounding::sr,
/// fp4x2 packing with an element that is not 4 bits wide or an odd block size, fp6_dense packing
/// with an element that is not 6 bits wide or a block size that is not a multiple of 4.
void validate(const BlockTarget& t);
/// k, the elements per block.
std::size_t block_size(const BlockTarget& t);
/// Bytes of element codes per block in the kernel's storage form (k, k/2 for fp4x2, 3k/4 for fp6_dense).
std::size_t code_bytes_per_block(const BlockTarget& t);

/// The named block classes (registry kind "block-class"; `minifloat names block-class`), generated
/// in this order, each ordered by simplicity (block_simplicity).
enum class BlockClass : std::uint8_t {
  scale_edge,       ///< amax at and ±1 f32 ulp around the places where the scale rules differ:
                    ///< max_elem·2^e (rceil), 2^E (ceil), (2 − 2^−(m+1))·2^E (even), (max + ½ulp)·2^e (tosa)
  special,          ///< one NaN (quiet/signalling, both signs), +Inf or −Inf element in a finite block
  zero,             ///< all-zero blocks (+0, −0, mixed)
  subnormal_amax,   ///< amax an FP32 subnormal, 2^−126 and its neighbours
  scaled_midpoint,  ///< elements on (and ±1 ulp around) midpoints of the element grid times the block scale
  random,           ///< random tensors: scaled normal-like values, and uniform finite f32 bits
};
const NameTable<BlockClass>& name_table(BlockClass);

/// Generated blocks: block i is values[i·block, (i+1)·block), of class classes[i].
struct BlockCases {
  std::size_t block = 0;
  std::vector<float> values;
  std::vector<BlockClass> classes;
  std::size_t size() const noexcept { return classes.size(); }
  std::span<const float> at(std::size_t i) const { return std::span<const float>(values).subspan(i * block, block); }
};

struct BlockGenOptions {
  std::uint64_t seed = 1;    ///< SplitMix64 seed of the random parts
  std::size_t count = 4096;  ///< blocks wanted (the boundary classes take at most 3/4, evenly sub-sampled)
};
/// Every generated block for `t`, deterministic in (t, options). Throws Error for an invalid target.
BlockCases generate_blocks(const BlockTarget& t, const BlockGenOptions& options = {});

/// What the target gives for one block: element codes (one per byte, unpacked) and the scale word.
struct BlockResult {
  std::vector<std::uint8_t> codes;
  std::uint64_t scale = 0;
  friend bool operator==(const BlockResult&, const BlockResult&) = default;
};
BlockResult expected_block(const BlockTarget& t, std::span<const float> block);

/// Simplicity key of a block (smaller is simpler), summed over its nonzero elements: their count,
/// then |unbiased exponent| (subnormals count 126), significand length (bits after the point up to
/// the last 1), positions, negative signs.
std::uint64_t block_simplicity(std::span<const float> block);

/// One failing class's simplest failing block.
struct BlockMismatch {
  BlockClass cls = BlockClass::random;
  std::vector<float> block;
  BlockResult got, expected;  ///< got.codes unpacked from the kernel's storage (fp4x2: low nibble first)
  std::uint64_t class_failures = 0;
  std::string
      why;  ///< e.g. "scale: amax 460 = 1.02679*448*2^0; rceil takes the smallest e with 448*2^e >= amax; got = ocp_floor's"
};

/// Scheme::scale_select 4over6 (issue 25 item 2): one block's choice, 0 map-to-6 or 1 map-to-4 (the
/// QuantizedTensor::scale_select of quant.hpp), its two candidate ue4m3 scale codes and the two errors
/// (core/four_over_six.hpp: fourover6_error_step over the block in order, MSE or MAE as the scheme says).
struct ChoiceDetail {
  std::uint8_t choice = 0;
  std::uint8_t map6 = 0, map4 = 0;
  float err6 = 0.0f, err4 = 0.0f;
};
/// The reference's choice for one block of a 4over6 target: `choice` is the engine's (quantize), the codes
/// and errors from the core steps the engine runs (the block its own tensor, S_enc from its amax). Throws
/// Error for a target without scale-select 4over6.
ChoiceDetail expected_choice(const BlockTarget& t, std::span<const float> block);

/// `probe check --got-choices` (issue 25 item 2): the kernel's per-block choices against the reference's.
struct ChoiceFinding {
  std::uint64_t tested = 0, failed = 0;  ///< blocks
  std::size_t first = 0;                 ///< the first mismatching block's index (when failed > 0)
  std::uint8_t got = 0;                  ///< its choice in the kernel's file
  ChoiceDetail expected{};               ///< the reference's choice, candidates and errors for it
  std::vector<float> block;              ///< its values
};
/// Compares `got` (one 0/1 per block) with `expected` (the reference's, e.g. probe gen's
/// expected_choices.npy) and details the first mismatch (expected_choice). Throws Error when the sizes
/// differ from cases.size() or the target has no scale-select 4over6.
ChoiceFinding evaluate_choices(const BlockTarget& t, const BlockCases& cases, std::span<const std::uint8_t> got,
                               std::span<const std::uint8_t> expected);

struct BlockReport {
  BlockTarget target;
  std::uint64_t tested = 0, failed = 0;  ///< blocks
  std::vector<BlockMismatch> minimal;    ///< one per failing class, in class order
  Diagnosis diagnosis;                   ///< panel scored over whole blocks (codes and scale)
  std::uint64_t kernel_calls = 0;
  std::optional<ChoiceFinding> choices;  ///< with `probe check --got-choices` only (its own finding)
  bool ok() const noexcept { return failed == 0 && (!choices || choices->failed == 0); }
  /// "check-blocks <target>: N blocks, K failing classes", then per mismatch a line
  /// "[class] block: i:0x… (value) …, rest +0" and a line "  scale got 0x.. (v) expected 0x.. (v);
  /// element i got 0x.. (v) expected 0x.. (v) …  why", then the diagnosis line. A pass is one line + diagnosis.
  /// With `choices`, one more line after them: "4over6 choices: N blocks, pass" or "..., F failing; first block
  /// I: got map-to-4 (1) expected map-to-6 (0); candidates map-to-6 0x.. (v) err E, map-to-4 0x.. (v) err E".
  std::string text() const;
  /// The same as one JSON object, indent 1: target (describe), scheme, tested, failed, kernel_calls,
  /// minimal[]{class, class_failures, block_f32_bits[] ("0x…"), got_scale, expected_scale, got_codes[],
  /// expected_codes[], why}, diagnosis{text, ranked[]{name, bug_class, agree, of}}; with `choices` a last field
  /// choices{tested, failed[, first{block, got, expected, map6_code, map4_code, map6_err, map4_err,
  /// block_f32_bits[]}]} (errors as binary32 bits "0x…").
  std::string json() const;
};

struct BlockOptions {
  BlockGenOptions gen{};
  std::size_t batch = 1 << 16;  ///< blocks per kernel call (≥ 1)
  Options::Shrink shrink = Options::Shrink::yes;
  Options::Diagnose diagnose = Options::Diagnose::yes;
  int max_shrink_rounds = 256;  ///< kernel calls spent on shrinking at most
};

/// The kernel: `in` holds n blocks of k = block_size() f32 values; fill `codes` (n ·
/// code_bytes_per_block() bytes, the kernel's storage form) and `scales` (n scale words, see BlockTarget).
using BlockKernel =
    std::function<void(std::span<const float> in, std::span<std::uint8_t> codes, std::span<std::uint64_t> scales)>;

/// Generate, run `kernel` in batches, compare codes and scales bit for bit, shrink (one kernel call
/// per shrink round), diagnose. Throws Error for an invalid target; kernel exceptions propagate.
BlockReport check_blocks(const BlockKernel& kernel, const BlockTarget& t, const BlockOptions& options = {});
/// Score outputs made elsewhere (`probe check --got --got-scales`): codes in the kernel's storage form
/// (cases.size() · code_bytes_per_block bytes), one scale word per block. With `rerun` the minimal
/// block of each class is shrunk further. Throws Error when the sizes do not match.
BlockReport evaluate_blocks(const BlockTarget& t, const BlockCases& cases, std::span<const std::uint8_t> got_codes,
                            std::span<const std::uint64_t> got_scales, const BlockOptions& options = {},
                            const BlockKernel& rerun = {});

}  // namespace minifloat::check
