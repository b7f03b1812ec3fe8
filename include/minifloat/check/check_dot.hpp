// SPDX-License-Identifier: Apache-2.0
// check_dot.hpp: check anybody's dot-product / GEMM kernel bit for bit against an accumulation model
// (accumulate.hpp: exact, f32 FMA chain, pairwise, Kahan, blocked promotion, the tensor-core T-FDPA
// presets of core/tfdpa.hpp). Generate dot products in named classes taken from the tensor-core
// probes (cancellation, alignment shifts around the model's F, zero terms, signed zeros, C magnitude
// against the products, NaN/Inf, accumulator overflow), run the user's kernel, compare the output
// bits, shrink each failing class to its simplest failing dot product (fewest nonzero terms, then
// simplest values; one kernel call per shrink round), and diagnose the kernel against a panel of
// other models (every preset, the f32 chain, alignment rounding, F ± 1, output rounding, group
// size) and C rules (C read as +0). Part of the checker (minifloat::check), beside
// check.hpp whose Diagnosis/Alternative/NanCompare it reuses.
//
// Design: ../shared/cuda-notes.md §B (harness), training-sim.md §1.2 (T-FDPA), the probe families of
// MMA-Sim arXiv 2511.10909 and Khattak & Mikaitis arXiv 2512.07004 (the classes below).
//
//   check::DotTarget t{.a = formats::e4m3fn, .b = formats::e4m3fn, .k = 32,
//                      .model = parse_dot_model("hopper-fp8")};
//   check::DotReport r = check::check_dot(my_batched_dot, t);   // void(span<const DotCase>, span<uint64_t>)
//   std::cout << r.text();
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "../accumulate.hpp"
#include "../core/format.hpp"
#include "../registry.hpp"
#include "check.hpp"

namespace minifloat::check {

/// What the kernel claims to compute: d = Σ_{i<k} a_i·b_i + c under `model` (accumulate.hpp `dot`):
/// a_i codes of `a`, b_i codes of `b`, c an f32 code (the C operand; a tensor-core preset with an
/// FP16 destination reads it rounded RNE to f16, as `dot` does), d a code of result_format(t).
struct DotTarget {
  Format a = formats::e4m3fn;
  Format b = formats::e4m3fn;
  std::size_t k = 32;  ///< terms per dot product, 1..4096
  DotModel model = parse_dot_model("hopper-fp8");
};
/// The format of d: the tensor-core model's `dest` for the tfdpa kind (f32 or f16), else f32.
Format result_format(const DotTarget& t);
/// "dot k=32 e4m3fn x e4m3fn + f32 c -> f32 under hopper-fp8".
std::string describe(const DotTarget& t);
/// Throws Error naming the problem: k outside 1..4096, an invalid or wider-than-16-bit operand format, a
/// model name with a byte outside printable ASCII (the reports and report.json write the name as is).
void validate(const DotTarget& t);

/// The named dot-product classes (registry kind "dot-class"; `minifloat names dot-class`), generated
/// in this order.
enum class DotClass : std::uint8_t {
  zero_terms,    ///< all lanes zero but 0..3 (zero products of nonzero operands included), c 0 or small
  signed_zero,   ///< every product ±0, c ±0; and exact cancellations to zero (the sign of a zero sum)
  cancellation,  ///< products that cancel exactly (x·y and −x·y, or c = −x·y) beside small survivors
  alignment,     ///< one large term and terms 2^−(F−3) … 2^−(F+3) below it (F = the model's fraction bits)
  c_magnitude,   ///< c far above the products, far below them, and at alignment shifts from them
  nan_inf,       ///< a NaN lane, NaN or ±Inf c, Inf·0, +Inf and −Inf products (where the formats have them)
  overflow,      ///< the sum at the overflow of the result: c near ±max with same-sign products, max·max lanes
  random,        ///< uniform finite codes in every lane, c of the products' magnitude or 0
};
const NameTable<DotClass>& name_table(DotClass);

/// One dot product: k codes of a and of b, the f32 code of c, and its class.
struct DotCase {
  std::vector<std::uint64_t> a, b;
  std::uint64_t c = 0;
  DotClass cls = DotClass::random;
  friend bool operator==(const DotCase&, const DotCase&) = default;
};

struct DotGenOptions {
  std::uint64_t seed = 1;    ///< SplitMix64 seed of every class
  std::size_t count = 4096;  ///< dot products wanted (split evenly over the classes; ≥ 1)
};

/// Every case for `t`, classes in enum order, deterministic in (t, options). Throws Error for an
/// invalid target or count 0.
std::vector<DotCase> generate(const DotTarget& t, const DotGenOptions& options = {});

/// The code the target gives for `c` (accumulate.hpp dot(t.model, t.a, c.a, t.b, c.b, c.c)).
RoundResult expected(const DotTarget& t, const DotCase& c);

/// Simplicity key (smaller is simpler): nonzero terms (lanes with a nonzero product operand pair,
/// plus c ≠ 0) first, then the significand popcount of every nonzero operand, then |exponents|.
std::uint64_t simplicity(const DotTarget& t, const DotCase& c);

struct DotMismatch {
  DotCase c;
  std::uint64_t got = 0, expected = 0;
  std::uint64_t class_failures = 0;
  std::string why;        ///< the exact Σ (as a double) and the model's rounding, e.g. "exact 1.0000000596 -> rtz"
  std::string reproduce;  ///< a `minifloat dot …` command (with the two-line a.npy/b.npy writer) giving `expected`
};

struct DotReport {
  DotTarget target;
  std::uint64_t tested = 0, failed = 0;
  std::vector<DotMismatch> minimal;  ///< one shrunk reproducer per failing class, in class order
  Diagnosis diagnosis;               ///< empty `ranked` when diagnosis was off
  std::uint64_t kernel_calls = 0;
  bool ok() const noexcept { return failed == 0; }
  /// Header "FAIL [classes] check <target>: N of M cases differ in K classes" (or "... pass"), one
  /// line per minimal case "[class] k terms: a*b@lane + … + c => got (value) expected (value)  why",
  /// the diagnosis line and one "reproduce:" line per mismatch.
  std::string text() const;
  /// The same as one JSON object on one line: target{kind, a, b, k, model, result}, tested, failed, kernel_calls,
  /// minimal[]{class, a[], b[], c, got, expected (codes as numbers), class_failures, why, reproduce},
  /// diagnosis{text, ranked[]{name, bug_class, agree, of}}.
  std::string json() const;
};

struct DotOptions {
  DotGenOptions gen{};
  std::size_t batch = 4096;  ///< dot products per kernel call (≥ 1)
  Options::Shrink shrink = Options::Shrink::yes;
  Options::Diagnose diagnose = Options::Diagnose::yes;
  NanCompare nan_compare = NanCompare::bits;
  int max_shrink_rounds = 64;
};

/// The batched dot kernel: out[i] = the kernel's d code for in[i] (host memory).
using DotKernel = std::function<void(std::span<const DotCase> in, std::span<std::uint64_t> out)>;

/// Generate, run `kernel` in batches, compare bit for bit (NaN per options), shrink, diagnose.
/// Throws Error for an invalid target/options; the kernel's exceptions propagate.
DotReport check_dot(const DotKernel& kernel, const DotTarget& t, const DotOptions& options = {});
/// Score outputs produced elsewhere (`probe check` of a `probe gen --model` folder); `rerun` (may be
/// empty) shrinks further. Throws Error when the spans differ in length or a case has k ≠ t.k lanes.
DotReport evaluate_dot(const DotTarget& t, std::span<const DotCase> cases, std::span<const std::uint64_t> got,
                       const DotOptions& options = {}, const DotKernel& rerun = {});

/// A GEMM kernel D = A·B + C, row-major: A m×k codes of t.a, B k×n codes of t.b, C m×n f32 codes; it
/// writes the m×n result codes to D (host memory; a GPU launcher copies in, launches, copies back).
using GemmKernel =
    std::function<void(std::size_t m, std::size_t n, std::size_t k, std::span<const std::uint64_t> A,
                       std::span<const std::uint64_t> B, std::span<const std::uint64_t> C, std::span<std::uint64_t> D)>;
/// A small-GEMM kernel in the dot form: each batch of (at most `tile`, 1..1024) cases becomes one m×m
/// GEMM with row i of A = case i's a, column i of B = case i's b, C[i][i] = case i's c (other entries of
/// C +0; the other rows and columns are the other cases'), and case i's result is D[i][i]. So every
/// output element of the tile is computed, and the diagonal is checked. Throws Error for a tile of 0
/// or above 1024.
DotKernel gemm_as_dot(GemmKernel gemm, std::size_t tile = 32);

}  // namespace minifloat::check
