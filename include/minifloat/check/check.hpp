// SPDX-License-Identifier: Apache-2.0
// check.hpp: check anybody's conversion kernel bit for bit. Generate adversarial inputs in named
// classes from the format tables (codes, midpoints, overflow thresholds), run the user's kernel on
// them (a scalar callable or a batched one over spans, so a GPU launcher fits), compare the codes
// bit for bit with the one rounding engine, shrink each failing class to its simplest failing
// input (one kernel call per shrink round), and diagnose what the kernel does instead by scoring
// its outputs against a panel of alternative semantics (other modes, policies, profiles, double
// rounding, flush-to-zero, NaN codes). Part of the checker, minifloat::check (above the compiled
// library minifloat::minifloat, which knows nothing of it); the
// RapidCheck generators and the GoogleTest macro live in check_testing.hpp (target
// minifloat::check_testing), so this header depends on neither.
//
// Design: ../shared/cuda-notes.md §B (harness), TestFloat-3's generator and report lines, trap
// list of ../shared/spec-digest.md §11 (the bug classes the diagnosis names).
//
//   using namespace minifloat;
//   check::Target t{.from = formats::f32, .to = formats::e4m3fn,
//                   .spec = {.rounding = Rounding::rne, .overflow = Overflow::satfinite}};
//   check::Report r = check::check([](std::uint64_t in, std::uint64_t) { return my_cast(in); }, t);
//   std::cout << r;   // exit-style: r.ok()
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../core/format.hpp"
#include "../core/profile.hpp"
#include "../core/round_pack.hpp"
#include "../core/rounding.hpp"
#include "../error.hpp"
#include "../registry.hpp"

namespace minifloat::check {

/// What the kernel claims to compute: element-wise conversion of `from` values (given as raw bits
/// of `from`, right-aligned in a std::uint64_t: an f32 input is its 32-bit pattern) into codes of
/// `to`, rounded once by `spec` under `profile` — exactly `convert(from, input, to, spec, profile,
/// rbits)` (core/convert.hpp). `from` is usually f32, f64, f16 or bf16; any format of at most 64
/// bits is accepted (its codes are the inputs). `to` has at most 16 bits (the code table).
/// For Rounding::sr the kernel receives the random word `rbits` of each case (SrVariant: all 64
/// bits for `exact`, the low `spec.sr_bits` for A/B/C, bit 0 for `equal`).
/// How the kernel stores its output codes.
enum class Packing : std::uint8_t {
  none,       ///< one code per output word (right-aligned)
  fp4x2,      ///< two 4-bit codes per byte, case 2j in the low nibble and case 2j+1 in the high one (OCP MX
              ///< v1.0 §5.3, CUDA __nv_fp4x2_storage_t, torch float4_e2m1fn_x2): a batched kernel writes
              ///< out[j] = the byte of cases 2j, 2j+1 (out[n/2…] unused); the checker pads to an even count
  fp6_dense,  ///< four 6-bit codes (e2m3fn, e3m2fn) in 3 bytes, pack.hpp Fp6Packing::dense: a little-endian
              ///< bit stream, case i in stream bits [6i, 6i + 6), byte j holds stream bits [8j, 8j + 8)
              ///< ({0x01, 0x02, 0x03, 0x04} → {0x81, 0x30, 0x10}); a batched kernel writes out[j] = byte j
              ///< (out[3n/4…] unused); the checker pads to a multiple of 4 cases. (FP6 one code per byte,
              ///< Fp6Packing::one_per_byte, is Packing::none.)
};

/// "probe-packing": none fp4x2 fp6_dense (defined in check_block.cpp; CLI `probe gen --packing`).
const NameTable<Packing>& name_table(Packing);
/// Cases per storage group (none 1, fp4x2 2, fp6_dense 4), the bytes of one group (1, 1, 3) and the
/// code width a packing needs (0: any; fp4x2 4, fp6_dense 6).
std::size_t packing_group(Packing p) noexcept;
std::size_t packing_group_bytes(Packing p) noexcept;
int packing_code_bits(Packing p) noexcept;
/// Which bit order pack_codes writes: the packing's own, or the wrong one a kernel may use instead —
/// fp4x2: the two nibbles exchanged (case 2j high, T16); fp6_dense: an MSB-first bit stream (case 4g
/// in the top 6 bits of byte 3g: bytes a<<2|b>>4, b<<4|c>>2, c<<6|d).
enum class PackOrder : std::uint8_t { specified, swapped };
/// `codes` (a multiple of packing_group(p); each code within packing_code_bits(p), else Error) in the
/// storage form of `p`: ceil(n / group) · group_bytes bytes. Packing::none copies.
std::vector<std::uint8_t> pack_codes(Packing p, std::span<const std::uint8_t> codes,
                                     PackOrder order = PackOrder::specified);
/// Inverse of pack_codes(p, …, specified): `count` codes from ceil(count / group) · group_bytes bytes
/// (else Error).
std::vector<std::uint8_t> unpack_codes(Packing p, std::span<const std::uint8_t> bytes, std::size_t count);

struct Target {
  Format from = formats::f32;
  Format to = formats::e4m3fn;
  RoundingSpec spec{};
  Profile profile = profiles::ocp;
  Packing packing = Packing::none;  ///< fp4x2 needs a 4-bit `to` and a batched kernel
  friend bool operator==(const Target&, const Target&) = default;
};
/// "f32 -> e4m3fn rne satfinite (ocp)" (SR: "sr A/8"). The profile prints by name or "custom".
std::string describe(const Target& t);
/// Throws Error naming the problem when `t` cannot be checked: an invalid format, `to` wider than
/// 16 bits, `from` wider than 64, sr_bits outside 1..32.
void validate(const Target& t);

/// The named input classes (registry kind "probe-class"; `minifloat names probe-class`). The
/// generator emits them in this order, each ordered by simplicity (see `simplicity`).
enum class CaseClass : std::uint8_t {
  exact,               ///< every representable target value, exactly, in the source type
  midpoint,            ///< a rounding midpoint between consecutive target values (exact in the source)
  near_midpoint,       ///< ±1…ulps source ulps around a midpoint (both neighbours if it is unrepresentable)
  overflow_threshold,  ///< every overflow threshold (per mode and policy) and max finite, ±1…ulps source ulps
  subnormal_edge,      ///< min subnormal / 2, min subnormal, min normal, ±1…ulps source ulps
  zero,                ///< ±0
  inf,                 ///< ±Inf (where the source has them)
  nan,                 ///< NaNs with both signs, quiet and signalling, payload patterns
  out_of_range,        ///< far beyond max finite, far below half the min subnormal
  exponent_pattern,    ///< TestFloat-3: exponents across the target range × significand patterns
  sr_switch,           ///< SR: random words at, below and above each input's switch point, 0 and all ones
  exhaustive,          ///< every code of a 16-bit source (f16, bf16) not in an earlier class
  random,              ///< uniform source bits, and uniform values inside the target's range
};
const NameTable<CaseClass>& name_table(CaseClass);

/// One input: the source bits, the random word (0 unless SR) and the class it was generated for.
struct Case {
  std::uint64_t input = 0;
  std::uint64_t rbits = 0;
  CaseClass cls = CaseClass::random;
  friend constexpr bool operator==(const Case&, const Case&) = default;
};

struct GenOptions {
  std::uint64_t seed = 1;                    ///< for the random classes and sub-sampling (SplitMix64)
  std::size_t count = std::size_t{1} << 20;  ///< cases wanted (the boundary classes may give fewer;
                                             ///< exhaustive 16-bit sources give at least 65536)
  int ulps = 8;                              ///< neighbours on either side of each midpoint/threshold, 1..64
  double boundary_share = 0.75;              ///< at most this share of `count` for the table-derived classes
                                             ///< (evenly sub-sampled when they are more), the rest random
  enum class Exhaustive16 : std::uint8_t { yes, no } exhaustive_16bit_sources = Exhaustive16::yes;
};

/// Every case for `t`: the classes above, in enum order, each sorted by `simplicity`, duplicates
/// (same input and rbits) kept only in their first class. Deterministic in (t, options).
/// Throws Error for an invalid target or options (ulps outside 1..64, boundary_share outside [0, 1]).
std::vector<Case> generate(const Target& t, const GenOptions& options = {});

/// The class an arbitrary input falls in (the first that holds, in the order nan, inf, zero,
/// exact, midpoint, overflow_threshold, subnormal_edge, near_midpoint, out_of_range, random),
/// with `ulps` source ulps of slack; used for files made elsewhere (`compare --in`) and to keep a
/// shrunk input in its class.
CaseClass classify_input(const Target& t, std::uint64_t input, int ulps = 8);

/// The code the target gives for `c` and its flags: convert(t.from, c.input, t.to, t.spec, t.profile, c.rbits).
RoundResult expected(const Target& t, const Case& c);

/// Simplicity key (smaller is simpler; cuda-notes §B2): |unbiased exponent| of the source, popcount
/// of its significand field, positive before negative, popcount of rbits; ties by the bits themselves.
std::uint64_t simplicity(const Target& t, const Case& c);

/// How two codes are compared.
enum class NanCompare : std::uint8_t {
  bits,     ///< bit for bit: a NaN with another sign or payload is a mismatch (the default)
  any_nan,  ///< any NaN code matches any NaN code (TestFloat without -checkNaNs)
};
/// "nan-compare": bits any (defined in check.cpp; CLI `probe check --nan`, Python `check(nan=…)`).
const NameTable<NanCompare>& name_table(NanCompare);

/// One failing class's shrunk reproducer, TestFloat style.
struct Mismatch {
  Case c;
  std::uint64_t got = 0;
  std::uint64_t expected = 0;
  Flags expected_flags = flag_none;
  std::uint64_t class_failures = 0;  ///< failing cases of this class among those tested
  std::string why;                   ///< e.g. "tie 448|480 -> even", "2^-10 above midpoint 1.0625 (1|1.125)"
  std::string reproduce;             ///< a `minifloat encode …` command printing `expected`
};

/// One alternative semantics scored against the kernel's outputs.
struct Alternative {
  std::string name;       ///< e.g. "rne via bf16", "satfinite", "profile nvidia", "ftz inputs"
  std::string bug_class;  ///< the trap it stands for (spec-digest §11), e.g. "double rounding (T11)"
  std::uint64_t agree = 0, of = 0;
};
struct Diagnosis {
  std::vector<Alternative> ranked;  ///< best first (ties keep panel order: the target itself first)
  std::string text;  ///< one line: "agrees with \"rne via bf16\" on 100% of 1048576 cases (double rounding, T11)"
};
/// Sort `d.ranked` best first (stable: ties keep panel order, the target itself first) and write `d.text`:
/// "agrees with \"NAME\" on P% of N UNIT (bug class); the target on Q%" (the last part when NAME is not `target`,
/// the name of the target's own alternative: "the target", or a dot target's model name). `unit` is "cases" or
/// "blocks". Shared by every checker target (defined with the shared report step, src/check/report.cpp).
/// A failing kernel (the target agrees on fewer than all) is never offered the target: it ranks after every
/// alternative, and when no alternative agrees on more than the target the text says so: "no alternative
/// explains the failures; the closest, \"NAME\", agrees on P% of N UNIT (bug class); the target on Q%".
void rank_diagnosis(Diagnosis& d, std::string_view unit, std::string_view target = "the target");

struct Report {
  Target target;
  std::uint64_t tested = 0, failed = 0;
  std::vector<Mismatch> minimal;   ///< one shrunk reproducer per failing class, in class order
  Diagnosis diagnosis;             ///< empty `ranked` when diagnosis was off
  std::uint64_t kernel_calls = 0;  ///< batches run (the first pass and every shrink round)
  bool ok() const noexcept { return failed == 0; }
  /// The TestFloat-style report: a header line "check <target>: N cases, K failing classes", one line
  /// per minimal mismatch "[class] f32 0x… (value) => 0x.. (value) expected 0x.. (value)  why", the
  /// diagnosis line and one "reproduce:" line per mismatch. A passing report is one "... pass" line
  /// plus the diagnosis.
  std::string text() const;
  /// The same as one JSON object, indent 2: target{from, to, round, overflow, sr_variant, sr_bits, profile},
  /// tested, failed, ok, kernel_calls, minimal[]{class, input, input_value, rbits, got, expected, expected_flags,
  /// class_failures, why, reproduce}, diagnosis{text, ranked[]{name, bug_class, agree, of}}.
  std::string json() const;
};
std::ostream& operator<<(std::ostream& os, const Report& r);

struct Options {
  GenOptions gen{};
  std::size_t batch = std::size_t{1} << 20;  ///< cases per kernel call (≥ 1)
  enum class Shrink : std::uint8_t { yes, no } shrink = Shrink::yes;
  enum class Diagnose : std::uint8_t { yes, no } diagnose = Diagnose::yes;
  NanCompare nan_compare = NanCompare::bits;
  int max_shrink_rounds = 64;  ///< kernel calls spent on shrinking at most
};

/// The batched kernel form: fill `out[i]` with the code the kernel gives for `in[i]` (host
/// memory; a GPU launcher copies in, launches, copies back). Codes right-aligned, high bits zero.
using BatchKernel = std::function<void(std::span<const Case> in, std::span<std::uint64_t> out)>;

/// Generate (options.gen), run `kernel` in batches of options.batch, compare, shrink, diagnose.
/// Throws Error for an invalid target or options; exceptions of the kernel propagate.
Report check_batch(const BatchKernel& kernel, const Target& t, const Options& options = {});

/// Score outputs obtained elsewhere (`probe check`): `got[i]` is the kernel's code for
/// `cases[i]`. Without `rerun` the minimal case of each class is its simplest failing case; with
/// `rerun` (the kernel again, e.g. a user's command on candidate files) it is shrunk further.
/// Throws Error when the spans differ in length.
Report evaluate(const Target& t, std::span<const Case> cases, std::span<const std::uint64_t> got,
                const Options& options = {}, const BatchKernel& rerun = {});

/// Adapt any kernel: a BatchKernel-compatible callable is used as is; a scalar
/// `code(std::uint64_t input, std::uint64_t rbits)` or `code(std::uint64_t input)` is called per case.
template <class Kernel>
BatchKernel as_batch(Kernel&& k) {
  using K = std::decay_t<Kernel>;
  if constexpr (std::is_invocable_v<K&, std::span<const Case>, std::span<std::uint64_t>>) {
    return BatchKernel(std::forward<Kernel>(k));
  } else if constexpr (std::is_invocable_r_v<std::uint64_t, K&, std::uint64_t, std::uint64_t>) {
    return [k = K(std::forward<Kernel>(k))](std::span<const Case> in, std::span<std::uint64_t> out) mutable {
      for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<std::uint64_t>(k(in[i].input, in[i].rbits));
    };
  } else {
    static_assert(std::is_invocable_r_v<std::uint64_t, K&, std::uint64_t>,
                  "a kernel is void(span<const Case>, span<uint64_t>), code(input, rbits) or code(input)");
    return [k = K(std::forward<Kernel>(k))](std::span<const Case> in, std::span<std::uint64_t> out) mutable {
      for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<std::uint64_t>(k(in[i].input));
    };
  }
}

/// check_batch on any kernel form (see as_batch).
template <class Kernel>
Report check(Kernel&& kernel, const Target& t, const Options& options = {}) {
  return check_batch(as_batch(std::forward<Kernel>(kernel)), t, options);
}

}  // namespace minifloat::check
