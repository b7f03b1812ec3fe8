// SPDX-License-Identifier: Apache-2.0
// cmd_train.hpp: `minifloat train` — simulated low-precision training studies.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace minifloat::cli {

struct TrainOptions {
  std::string model = "mlp-digits";
  std::string recipes = "all";
  int seeds = 1;
  int steps = 0;
  int threads = 0;
  std::string out;
  std::string data;
  bool no_progress = false;
  bool gates = false;
  std::string gemm;
};

void add_train_command(CLI::App& app, TrainOptions& opts);
/// Runs the study and prints summary.md; with --gates also one PASS/FAIL line per acceptance
/// criterion (training-sim.md §4.7) and returns 1 when one fails. Throws minifloat::Error on bad input.
int run_train(const TrainOptions& opts);

}  // namespace minifloat::cli
