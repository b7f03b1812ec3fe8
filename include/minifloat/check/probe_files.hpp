// SPDX-License-Identifier: Apache-2.0
// probe_files.hpp: the readers of a probe folder (what `probe check` reads): the manifest.json that
// `probe gen` writes and the kernel's --got array, for elementwise targets (check.hpp), dot targets
// (check_dot.hpp) and block targets (check_block.hpp: --got codes and --got-scales). Part of the checker
// (minifloat::check); each has a libFuzzer target (fuzz/fuzz_probe_manifest.cpp,
// fuzz/fuzz_probe_got.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../npy.hpp"
#include "../scale_layout.hpp"
#include "check.hpp"
#include "check_block.hpp"
#include "check_dot.hpp"

namespace minifloat::check {

/// What a probe folder checks: an elementwise conversion (check.hpp), a dot product or a GEMM (check_dot.hpp),
/// a block quantizer (check_block.hpp).
enum class ProbeKind : std::uint8_t { convert, dot, block, gemm };
/// "probe-kind": elementwise dot block gemm (defined in probe_files.cpp; manifest.json's "target"."kind" names
/// dot and gemm, an elementwise target has no "kind", a block target is a "block_target").
const NameTable<ProbeKind>& name_table(ProbeKind);

/// The target a probe folder was generated for (manifest.json, format_version 1).
struct ProbeManifest {
  using Kind = ProbeKind;
  Kind kind = Kind::convert;
  Target
      target{};  ///< kind convert: {"target": {"from", "to", "round", "overflow", "sr_variant", "sr_bits", "profile"[, "packing"]}}
  DotTarget
      dot{};  ///< kind dot: {"target": {"kind": "dot", "a", "b", "k", "model"}}; kind gemm: the same with "kind": "gemm"
  std::size_t m = 0, n = 0;  ///< kind gemm: {"target": {…, "m", "n"}} (1..1024 each; D is m×n, K is dot.k)
  BlockTarget
      block{};  ///< kind block: {"block_target": {"scheme", "round", "overflow", "profile", "packing"[, "mx_quirks"][, "block"]}}
                ///< ("block", when present, must equal the scheme's block size); "ftz"/"daz": true or false,
                ///< optional (RoundingSpec::ftz/daz, in "target" too; absent = false, as probe gen writes them)
  int ulps = 8;  ///< "ulps" (convert; 1..64, default 8)
};

/// Parse manifest.json text. Throws ParseError, one line starting with `what`, for text that is not a
/// JSON object, a missing or ill-typed field, an unknown name, or a target check cannot run
/// (validate()).
ProbeManifest parse_probe_manifest(std::string_view text, const std::string& what);

/// The kernel's codes of an elementwise target from a --got array of n elements: |u1 |i1 |V1 <V1 (≤ 8
/// bits), <u2 <V2 <f2 (≤ 16 bits), <u4, <u8; the element width must hold `to`'s codes. With
/// Packing::fp4x2, ceil(n/2) |u1 bytes of two e2m1 codes each (element 2i in the low nibble), with
/// Packing::fp6_dense ceil(n/4)·3 |u1 bytes (4 six-bit codes each, LSB-first), are unpacked to n codes. Throws Error (one line naming `what`) for another dtype, a narrower element or
/// another count.
std::vector<std::uint64_t> got_codes(const NpyArray& got, Format to, std::size_t n, const std::string& what,
                                     Packing packing = Packing::none);
/// The kernel's element codes of a block target for n blocks, in its storage form: n ·
/// code_bytes_per_block(t) bytes of |u1 <u1 |V1 <V1 (shape [n, bytes] or flat). Throws Error (one line
/// naming `what`) for another dtype or another count.
std::vector<std::uint8_t> got_block_codes(const NpyArray& got, const BlockTarget& t, std::size_t n,
                                          const std::string& what);
/// The kernel's scale words of a block target, one per block: |u1 <u1 |V1 <V1 codes (E8M0 and ue4m3
/// rules), <f4 or <u4 binary32 bits (FP32 rules), any shape of n elements, in `layout` (scale_layout.hpp)
/// over the probe's scale grid [n blocks, 1] (one block per row of inputs.npy): rowmajor is the n
/// words; cutlass128x4 / flashinfer8x4 the padded bytes (|u1); deepgemm_packed its <u4 words (E8M0 only);
/// vllm4x4 needs 4 K blocks a row and does not apply. Throws Error as above, and for a layout the
/// target's scales cannot take (FP32 scales: rowmajor only).
std::vector<std::uint64_t> got_block_scales(const NpyArray& got, const BlockTarget& t, std::size_t n,
                                            const std::string& what, ScaleLayout layout);
/// A 4over6 block target's per-block choices (issue 25 item 2; `quantize --out-scale-select` and `probe gen`'s
/// expected_choices.npy): |u1 (or <u1, |b1) of n elements, any shape, each 0 (map-to-6) or 1 (map-to-4). Throws
/// Error naming `what` for another dtype or size, a value other than 0 and 1, or a target without scale-select.
std::vector<std::uint8_t> got_block_choices(const NpyArray& got, const BlockTarget& t, std::size_t n,
                                            const std::string& what);
/// The layouts other than `declared` in which `got` holds exactly the `expected` scale codes of a block
/// probe (grid [n, 1]): "the scales are right but in layout X" (the silent corruption of vllm#50084).
/// Empty when none does, or for FP32 scales.
std::vector<ScaleLayout> layouts_holding(const NpyArray& got, const BlockTarget& t,
                                         std::span<const std::uint64_t> expected, ScaleLayout declared);
/// The kernel's results of a dot target: n elements of <f4 or <u4 (f32 result) / <f2 or <u2 (f16
/// result), any shape. Throws Error as got_codes.
std::vector<std::uint64_t> got_results(const NpyArray& got, const DotTarget& t, std::size_t n, const std::string& what);

}  // namespace minifloat::check
