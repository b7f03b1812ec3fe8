// SPDX-License-Identifier: Apache-2.0
// cmd_train.cpp: `minifloat train --model NAME --recipes all|LIST --seeds N [--steps N]
// [--threads N] [--data PATH] [--gemm MODEL] [--gates] --out DIR`.
#include "cmd_train.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

#include "minifloat/accumulate.hpp"
#include "minifloat/error.hpp"
#include "minifloat/train/study.hpp"
#include "options.hpp"

namespace minifloat::cli {
namespace {

constexpr IntRange kSeeds{1, 1000}, kSteps{0, 1000000}, kThreads{0, 1024};

/// One line per entry of `t` ("  name  summary") for the command's help footer.
template <class V>
std::string help_lines(const NameTable<V>& t) {
  std::size_t w = 0;
  for (const auto& e : t.entries) w = std::max(w, e.name.size());
  std::string s;
  for (const auto& e : t.entries)
    s += "  " + std::string(e.name) + std::string(w - e.name.size() + 2, ' ') + std::string(e.summary) + "\n";
  return s;
}

}  // namespace

void add_train_command(CLI::App& app, TrainOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "train", "Simulated FP8/MX/NVFP4 training of a small real model, every recipe side by side with FP32");
  sub->add_option("--model", o.model,
                  "training model: " + choices<train::TrainModel>("mlp-digits") + " (listed below)");
  sub->add_option("--recipes", o.recipes, "all (default), or a comma-separated list of the recipes listed below");
  sub->add_option("--seeds", o.seeds, "seeds per recipe (0..N-1), 1..1000 (default 1)");
  sub->add_option("--steps", o.steps,
                  "optimizer steps, 0..1000000 (default 0: the model's own, e.g. 660 for mlp-digits)");
  sub->add_option("--threads", o.threads,
                  "runs in parallel, 0..1024 (default 0: all cores); results do not depend on it");
  sub->add_option("--data", o.data, "data file (digits.csv.gz) or folder (fortunes); default: the Debian package's");
  sub->add_option("--out", o.out,
                  "output folder (created when its parent folder exists; new, empty or a previous run's, which the new "
                  "run replaces whole): <model>/<recipe>/seed<k>.csv, summary.csv, summary.md, loss.svg (and "
                  "loss.png), written together only when every run finished")
      ->required();
  sub->add_option("--gemm", o.gemm,
                  "accumulation model of every Linear GEMM of every recipe, the FP32 baseline included, so the gap "
                  "isolates the operand formats: " +
                      choices(dot_model_table()) + " (`minifloat names accumulation`); default: FP64 accumulation, L0");
  sub->add_flag("--no-progress", o.no_progress, "no progress bar on stderr");
  sub->add_flag("--gates", o.gates,
                "check the acceptance criteria (training-sim.md §4.7 in the project notes; PASS/FAIL/WARN per line); "
                "exit 1 if one fails; an error when no criterion applies to the model and recipes");
  sub->footer("Training models:\n" + help_lines(name_table(train::TrainModel{})) + "Recipes:\n" +
              help_lines(train::recipe_table()));
}

int run_train(const TrainOptions& o) {
  train::StudyConfig cfg;
  cfg.model = parse_option<train::TrainModel>("--model", o.model);
  cfg.recipes = with_option("--recipes", [&] { return train::parse_recipes(o.recipes); });
  cfg.seeds = static_cast<int>(parse_int_option("--seeds", o.seeds, kSeeds));
  cfg.steps = static_cast<int>(parse_int_option("--steps", o.steps, kSteps));
  cfg.threads = static_cast<int>(parse_int_option("--threads", o.threads, kThreads));
  if (!o.gemm.empty()) with_option("--gemm", [&] { return parse_dot_model(o.gemm); });
  cfg.out = o.out;
  cfg.data = o.data;
  cfg.progress = !o.no_progress;
  cfg.gemm = o.gemm;
  if (o.gates && train::applicable_gates(cfg).empty())
    throw Error("--gates: no acceptance criterion of training-sim.md §4.7 applies to --model " +
                std::string(name(cfg.model)) + " with --recipes " + quote_input(o.recipes) +
                " (each compares a recipe with its FP32 baseline run alongside: fp32, or fp32-lr0.01 for the "
                "weight-storage recipes; mlp-fashion has none); add the baseline and a recipe, or drop --gates");
  const auto runs = train::run_study(cfg);
  if (const std::string w = train::few_seeds_warning(cfg); !w.empty()) std::cerr << "minifloat: " << w << "\n";
  std::ifstream md(std::filesystem::absolute(cfg.out) / "summary.md");  // `--out .` was replaced whole
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
