// SPDX-License-Identifier: Apache-2.0
// cuda/mma_probe.hpp: the host side of device-check stage S5, the tensor-core probes (issue 10 item 4;
// ../shared/training-sim.md §1.4-1.6). Plain C++, testable without a GPU (tests/cuda cuda-host).
//
// The probes are tiles (cuda/mma_fragments.hpp) whose dot product at row 0, column 0 answers one open
// question about the FP8 MMA instructions; every other dot of a probe tile is zero products plus C = +0.
// Their inputs are built here from exact values; what each hypothesis predicts is computed here from the
// T-FDPA models of core/tfdpa.hpp (no answer is written down). A hypothesis is a preset (hopper-fp8,
// ada-fp8, blackwell-fp8, …) or a preset with one parameter changed, or with C entering differently:
//   in_alignment  C is one more term of the group (core/tfdpa.hpp, MMA-Sim `nv_fused_dot_add`)
//   ignored       d = tfdpa(products, +0): what the H100 vector files match (mma-vectors/README.md)
//   added_after   d = round_out(tfdpa(products, +0) + C), the sum taken with 52 fraction bits
// What the probes cannot separate (computed by the models, see the cuda-host test): with FP32 or FP16
// accumulators every nonzero term's nominal exponent is ≥ emin(dest) (−126 / −14), so a zero-term
// exponent at or below it (−126, −133, −149) gives the same results; the "zero-term exponent" probes
// show only that zero lanes do not raise E. One FP8 instruction with an FP32 accumulator cannot exceed
// FP32's range (C ≤ max, the products are truncated below it), so "finite overflow" is observable with
// the f16 destination only (Inf vs satfinite's ±max).
// mma_evaluate() compares what the device computed with every hypothesis: per question, the
// hypotheses that reproduce all its probes bit for bit; over random tiles, each hypothesis' mismatches.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../core/format.hpp"
#include "../core/tfdpa.hpp"
#include "mma_fragments.hpp"

namespace minifloat::cuda {

/// How C enters a hypothesis' dot product (header comment).
enum class MmaCEntry : std::uint8_t { in_alignment, ignored, added_after };

/// One candidate behaviour of an instruction.
struct MmaHypothesis {
  std::string name;  ///< "hopper-fp8", "hopper-fp8[C=+0]", "hopper-fp8[zero_exponent=-133]", …
  TfdpaModel model;
  MmaCEntry c_entry;
};

/// The hypotheses for an FP8 MMA with destination `dest` (formats::f32 or formats::f16).
std::vector<MmaHypothesis> mma_hypotheses(Format dest);
/// The hypothesis named `name` of mma_hypotheses(dest); throws minifloat::Error listing the names.
const MmaHypothesis& mma_hypothesis(Format dest, std::string_view name);

/// One probe tile and the question it answers.
struct MmaProbe {
  std::string question;  ///< "C in the alignment", "zero-term exponent", …
  std::string name;      ///< what its dot at (0, 0) is, in values ("U*U - U*U + 2^-3")
  MmaTile tile;
};

/// The probes for operands of format `operand` (e4m3fn or e5m2) and accumulator `dest` (f32 or f16);
/// throws minifloat::Error for another format.
std::vector<MmaProbe> mma_probes(Format operand, Format dest);
/// `n` random tiles from `seed`: even tiles raw random operand bytes (NaN codes included) and raw random
/// C bits, odd tiles finite operands and C of magnitude 2^-20..2^20 or zero.
std::vector<MmaTile> mma_random_tiles(Format operand, Format dest, std::size_t n, std::uint64_t seed);

/// d[r·8 + n] (r < 64) = the dot of row r of A and column n of B plus C[r][n] under `h`.
void mma_model_tile(const MmaHypothesis& h, Format operand, const MmaTile& t, std::uint32_t* d);

/// What the device's results say (mma_evaluate).
struct MmaFinding {
  std::string question;
  std::size_t probes = 0;
  std::vector<std::string> supported;  ///< hypotheses that reproduce every probe of the question
};
struct MmaReport {
  std::size_t probe_tiles = 0, random_tiles = 0;
  std::vector<MmaFinding> findings;                                      ///< one per question, in probe order
  std::vector<std::pair<std::string, std::uint64_t>> random_mismatches;  ///< per hypothesis: dots of the random tiles
  std::string primary;                   ///< the hypothesis the stage counts mismatches against ("" = none)
  std::uint64_t primary_mismatches = 0;  ///< dots (probes and random) where the device differs from it
  std::vector<std::string> first;        ///< first of them: "probe NAME (r,n): device 0x… model 0x…"
};
/// Evaluate the device results `probe_d` (64·8 per probe tile, tile order) and `random_d` (likewise) of
/// one instruction against every hypothesis of mma_hypotheses(dest); `primary` names the hypothesis
/// whose mismatches count ("" for none). Runs on `threads` CPU threads (0 = all cores).
MmaReport mma_evaluate(Format operand, Format dest, const std::vector<MmaProbe>& probes, const std::uint32_t* probe_d,
                       const std::vector<MmaTile>& random, const std::uint32_t* random_d, std::string_view primary,
                       unsigned threads);

/// The instruction on the host from its fragments: every lane's A, B and C registers packed
/// (cuda/mma_fragments.hpp), the tile rebuilt from the 32 lanes' registers of each 16-row slice, each
/// dot computed by `h`, and the D registers of each lane unpacked into d (64·8). It equals
/// mma_model_tile exactly when the packing and unpacking are inverse bijections (the cuda-host test).
void mma_emulate_from_fragments(const MmaHypothesis& h, Format operand, const MmaTile& t, std::uint32_t* d);

}  // namespace minifloat::cuda
