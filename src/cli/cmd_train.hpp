// SPDX-License-Identifier: Apache-2.0
// cmd_train.hpp: `minifloat train` — simulated low-precision training studies.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace minifloat::cli {

/// The options as given (integers as text, so a range error quotes what the user typed).
struct TrainOptions {
  std::string model = "mlp-digits";
  std::string recipes = "all";
  std::string seeds = "1";    ///< 1..1000
  std::string steps = "0";    ///< 0..1000000 (0: the model's default)
  std::string threads = "0";  ///< 0..1024 (0: all cores)
  std::string out;
  std::string data;
  bool no_progress = false;
  bool gates = false;
  std::string gemm;
};

void add_train_command(CLI::App& app, TrainOptions& opts);
/// Validates every option (and, with --gates, that a criterion applies) before any run, runs the
/// study and prints summary.md; with --gates also one PASS/FAIL/WARN line per acceptance criterion
/// (training-sim.md §4.7) and returns 1 when one fails. Throws minifloat::Error on bad input.
int run_train(const TrainOptions& opts);

}  // namespace minifloat::cli
