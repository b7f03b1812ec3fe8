// SPDX-License-Identifier: Apache-2.0
// train/study.hpp: simulated low-precision training runs (models × recipes × seeds) and their
// outputs: per-run CSV, summary.csv / summary.md, an SVG loss plot. Design: training-sim.md §4.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "recipe.hpp"

namespace minifloat::train {

/// The training models (StudyConfig::model; see StudyConfig for each).
enum class TrainModel : std::uint8_t { mlp_digits, char_lm, mlp_fashion, char_lm_large };
/// "train-model" (registry.hpp NameTable): mlp-digits char-lm mlp-fashion char-lm-large.
const NameTable<TrainModel>& name_table(TrainModel);

/// Models with hand-written forward and backward passes.
///  - `mlp-digits` (M1): MLP 64→128→10, ReLU, He init; scikit-learn digits (Debian python3-sklearn),
///    inputs /16, fixed shuffle 1437 train / 360 test; SGD momentum 0.9, lr 0.1, batch 128, 660 steps.
///  - `char-lm` (M3a): decoder-only character transformer, 2 layers, 4 heads, d = 64, context 64,
///    pre-LN, GELU; Debian `fortunes` text, 90/10 split; AdamW lr 1e-3 cosine, batch 16, 300 steps.
///  - opt-in long runs: `mlp-fashion` (M2: 784→256→256→10 on Fashion-MNIST, Debian
///    dataset-fashion-mnist, lr 0.05, 3 epochs) and `char-lm-large` (M3b: 4 layers, d = 128,
///    batch 12, 2000 steps).
/// Every Linear layer runs fprop/dgrad/wgrad with operands quantized along that GEMM's contraction
/// axis by the recipe; embeddings, LM head, LayerNorm, softmax and attention stay FP32.
struct StudyConfig {
  TrainModel model = TrainModel::mlp_digits;
  std::vector<Recipe> recipes;
  int seeds = 1;
  int steps = 0;         ///< 0: the model's default
  int threads = 0;       ///< runs in parallel; 0: hardware concurrency. Results do not depend on it.
  int stats_every = 20;  ///< quantization statistics and validation loss every N steps
  std::filesystem::path out;
  std::filesystem::path data;  ///< data file/folder; empty: the Debian package's default path
  bool progress = true;        ///< progress bar on stderr
  /// Accumulation model of every Linear GEMM of every recipe, the FP32 baseline included, so the
  /// gap vs FP32 isolates the operand formats (accumulate.hpp names: exact, fp32,
  /// pairwise, kahan, blocked128, hopper-fp8, hopper-fp8+blocked128, …); empty: L0, FP32 products
  /// accumulated in FP64 (training-sim.md §4.1). Throws NameError for unknown names.
  std::string gemm;
};

/// One finished run.
struct RunSummary {
  std::string recipe;
  int seed = 0;
  double final_train_loss = 0;  ///< mean train loss over the last 10 % of steps
  /// Loss on the held-out split at the end (M1: the 360 digits not trained on; M3a/b: the fixed
  /// validation batches): `val_loss` in every CSV, the quantity the summary ranks and gaps by.
  double val_loss = 0;
  double val_accuracy = -1;  ///< classification accuracy on the held-out split (M1), −1 when not applicable
  double grad_flush = 0;     ///< fraction of nonzero G entries quantized to zero (whole run)
  bool diverged = false;     ///< NaN/Inf loss, or loss > 2× its running minimum at the end
  double seconds = 0;
  std::vector<double> loss_curve;  ///< train loss per step
  std::vector<int> val_steps;      ///< the steps with a held-out loss (every stats_every-th and the last)
  std::vector<double> val_curve;   ///< the held-out loss at val_steps (the per-run CSV's val_loss)
};

/// The warning for a study whose ranking of recipes rests on fewer than 3 seeds each (empty when
/// there are at least 3, or a single recipe): `run_study` puts it in summary.md, `train` on stderr.
std::string few_seeds_warning(const StudyConfig& cfg);

/// Run the study; writes `out/<model>/<recipe>/seed<k>.csv`, `out/summary.csv`, `out/summary.md`,
/// `out/loss.svg` (and `out/loss.png` when rsvg-convert is installed) as one transaction
/// (file_io.hpp OutputSet): the model, data, accumulation model and every output are checked before
/// the first step (the folders are created then); the files replace the old ones only when every
/// run finished, and an error or a signal leaves the old ones as they were (and removes the folders
/// it created). `out` is new, empty or a previous run's: the new run replaces that run whole (its
/// other seeds, recipes and models go at the commit); a folder holding anything else (a file or
/// folder no train run writes) is refused before any work with an IoError naming it. Throws
/// minifloat::Error for unknown models, missing data or an output that cannot be written.
///
/// Columns: the per-run CSV has step, lr, train_loss, val_loss (every stats_every-th step and the
/// last; else empty), grad_norm, nan_inf_count and per operand class x/w/g amax, scale, underflow_pct,
/// saturated_pct, sqnr_db (empty when the operand had no quantization error: the FP32 recipe).
/// summary.csv: model, recipe, seeds, val_loss_mean, val_loss_std (empty for one seed),
/// gap_vs_fp32_pct, train_loss_mean, train_gap_vs_fp32_pct, val_accuracy_mean, grad_flush_mean,
/// diverged, seconds_mean. loss.svg: train and held-out loss per recipe (seed band min–max for 2+
/// seeds; FP32 black, on top) and each recipe's held-out loss gap to FP32 in percent.
std::vector<RunSummary> run_study(const StudyConfig& cfg);

/// The figure run_study writes as loss.svg, drawn from `runs` (any order; each run's recipe is named in
/// cfg.recipes, which gives the legend order, and cfg.model and cfg.seeds the title): for front ends that run
/// the recipes themselves (minifloat.torch's example, examples/torch_recipe.py). Throws Error for a run whose
/// recipe is not in cfg.recipes.
std::string loss_figure_svg(const StudyConfig& cfg, const std::vector<RunSummary>& runs);

/// One acceptance criterion of training-sim.md §4.7, evaluated on a finished study.
struct Gate {
  std::string id;  ///< "4.7.3 fp8-current" …
  bool pass = false;
  std::string detail;  ///< measured value vs threshold
  /// A calibration criterion whose absolute threshold was measured on another data split
  /// (training-sim.md §4.6 prototype): reported as WARN, not counted as a failure.
  bool calibration = false;
};
/// The criteria that the study's recipes allow: M1 items 2–6, M3a item 9 (means over seeds,
/// gaps against the FP32 recipe at the same learning rate). Recipes absent from the study are skipped.
std::vector<Gate> check_gates(const StudyConfig& cfg, const std::vector<RunSummary>& runs);
/// The ids of the criteria check_gates evaluates for `cfg`'s model and recipes (known before any
/// run; empty when none applies: `train --gates` refuses that instead of printing nothing).
std::vector<std::string> applicable_gates(const StudyConfig& cfg);

/// The kinds the training layer names, for `minifloat names`: recipe (recipe_table()) and
/// train-model.
std::vector<NameListing> name_listings();

}  // namespace minifloat::train
