// SPDX-License-Identifier: Apache-2.0
// cmd_train.cpp: `minifloat train --model mlp-digits|char-lm --recipes all|LIST --seeds N
// [--steps N] [--threads N] [--data PATH] --out DIR`.
#include "cmd_train.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

#include "minifloat/error.hpp"
#include "minifloat/train/study.hpp"

namespace minifloat::cli {

void add_train_command(CLI::App& app, TrainOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "train", "Simulated FP8/MX/NVFP4 training of a small real model, every recipe side by side with FP32");
  sub->add_option("--model", o.model, "mlp-digits (M1, scikit-learn digits) or char-lm (M3a, fortunes text)")
      ->capture_default_str();
  sub->add_option("--recipes", o.recipes, "all, or a comma-separated list (fp32,fp8-current,...)")->capture_default_str();
  sub->add_option("--seeds", o.seeds, "seeds per recipe (0..N-1)")->capture_default_str();
  sub->add_option("--steps", o.steps, "optimizer steps (0: the model's default: 660 for mlp-digits, 300 for char-lm)");
  sub->add_option("--threads", o.threads, "runs in parallel (0: all cores); results do not depend on it");
  sub->add_option("--data", o.data, "data file (digits.csv.gz) or folder (fortunes); default: the Debian package's");
  sub->add_option("--out", o.out, "output folder (per-run CSVs, summary.csv, summary.md, loss.svg)")->required();
  sub->add_option("--gemm", o.gemm,
                  "accumulation model of every Linear GEMM of every recipe, the FP32 baseline included, so the gap "
                  "isolates the operand formats (exact, fp32, pairwise, kahan, blocked128, hopper-fp8, "
                  "hopper-fp8+blocked128, ...; default: FP64 accumulation, L0)");
  sub->add_flag("--no-progress", o.no_progress, "no progress bar on stderr");
  sub->add_flag("--gates", o.gates, "check the acceptance criteria (training-sim.md §4.7 in the project notes; PASS/FAIL/WARN per line); exit 1 if one fails");
}

int run_train(const TrainOptions& o) {
  train::StudyConfig cfg;
  cfg.model = o.model;
  cfg.recipes = train::parse_recipes(o.recipes);
  if (o.seeds < 1 || o.seeds > 1000) throw Error("--seeds must be 1..1000, got " + std::to_string(o.seeds));
  if (o.steps < 0 || o.steps > 1000000)
    throw Error("--steps must be 0 (the model's default) .. 1000000, got " + std::to_string(o.steps));
  if (o.threads < 0) throw Error("--threads must be ≥ 0, got " + std::to_string(o.threads));
  cfg.seeds = o.seeds;
  cfg.steps = o.steps;
  cfg.threads = o.threads;
  cfg.out = o.out;
  cfg.data = o.data;
  cfg.progress = !o.no_progress;
  cfg.gemm = o.gemm;
  const auto runs = train::run_study(cfg);
  std::ifstream md(cfg.out / "summary.md");
  std::cout << md.rdbuf();
  std::cout << "\nwrote " << (cfg.out / "summary.csv").string() << ", summary.md, loss.svg and per-run CSVs\n";
  if (!o.gates) return 0;
  int failed = 0;
  std::cout << "\n";
  for (const auto& g : train::check_gates(cfg, runs)) {
    std::cout << (g.pass ? "PASS " : g.calibration ? "WARN " : "FAIL ") << g.id << ": " << g.detail << "\n";
    failed += !g.pass && !g.calibration;
  }
  return failed ? 1 : 0;
}

}  // namespace minifloat::cli
