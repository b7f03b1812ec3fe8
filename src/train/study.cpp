// SPDX-License-Identifier: Apache-2.0
// train/study.cpp: runs models × recipes × seeds in parallel (each run single-threaded and
// deterministic) and writes the CSVs, the summary and the SVG loss plot.
#include "minifloat/train/study.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "minifloat/error.hpp"
#include "minifloat/file_io.hpp"
#include "minifloat/parallel_for.hpp"
#include "models.hpp"

extern char** environ;

namespace minifloat::train {
namespace {

std::string num(double v, int prec = 9) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", prec, v);
  return b;
}

constexpr NameEntry<TrainModel> kModels[] = {
    {TrainModel::mlp_digits, "mlp-digits", "M1: MLP 64-128-10 on the scikit-learn digits, SGD momentum, 660 steps"},
    {TrainModel::char_lm, "char-lm",
     "M3a: 2-layer character transformer (d = 64) on Debian fortunes, AdamW, 300 steps"},
    {TrainModel::mlp_fashion, "mlp-fashion", "M2 (opt-in long run): MLP 784-256-256-10 on Fashion-MNIST, 3 epochs"},
    {TrainModel::char_lm_large, "char-lm-large",
     "M3b (opt-in long run): 4-layer character transformer (d = 128), 2000 steps"},
};

std::unique_ptr<detail::Model> make_model(TrainModel model, std::uint64_t seed, const std::filesystem::path& data) {
  switch (model) {
    case TrainModel::mlp_digits: return detail::make_mlp_digits(seed, data);
    case TrainModel::char_lm: return detail::make_char_lm(seed, data);
    case TrainModel::mlp_fashion: return detail::make_mlp_fashion(seed, data);
    case TrainModel::char_lm_large: return detail::make_char_lm_large(seed, data);
  }
  throw Error("unknown model");
}

struct Progress {
  std::atomic<long> done{0};
  long total = 0;
  bool enabled = true;
  std::mutex mu;
  void tick() {
    const long d = ++done;
    if (!enabled || (d % 20 != 0 && d != total)) return;
    std::lock_guard<std::mutex> lock(mu);
    const int width = 40;
    const int filled = static_cast<int>(width * d / std::max(1L, total));
    std::fprintf(stderr, "\r  training [%s%s] %ld/%ld steps",
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), '.').c_str(), d, total);
    if (d == total) std::fprintf(stderr, "\n");
  }
};

const char* kClass[3] = {"x", "w", "g"};

RunSummary run_one(const StudyConfig& cfg, const Recipe& recipe, int seed, Progress& progress, OutputSet& outputs,
                   OutputId csv_out) {
  const auto t0 = std::chrono::steady_clock::now();
  auto model = make_model(cfg.model, static_cast<std::uint64_t>(seed), cfg.data);
  const int steps = cfg.steps > 0 ? cfg.steps : model->default_steps();
  const double lr0 = recipe.lr > 0 ? recipe.lr : model->default_lr();
  Quantizer q(recipe, static_cast<std::uint64_t>(seed));
  std::optional<DotModel> gemm_model;
  if (!cfg.gemm.empty()) gemm_model = parse_dot_model(cfg.gemm);
  const DotModel* gm = gemm_model ? &*gemm_model : nullptr;
  RunSummary s;
  s.recipe = recipe.name;
  s.seed = seed;
  std::ostringstream csv;
  csv << "step,lr,train_loss,val_loss,grad_norm,nan_inf_count";
  for (const char* c : kClass)
    csv << ',' << c << "_amax," << c << "_scale," << c << "_underflow_pct," << c << "_saturated_pct," << c
        << "_sqnr_db";
  csv << '\n';
  QuantStats g_total;
  int nan_inf = 0;
  for (int step = 0; step < steps; ++step) {
    detail::QCtx ctx{&q, static_cast<std::uint32_t>(step), static_cast<std::uint64_t>(seed), {}, true, gm};
    double gn = 0;
    const double lr = lr0;  // models apply their own schedule (see Model::train_step)
    const double loss = model->forward_backward(step, ctx);
    double g2 = 0;
    for (detail::Param* p : model->params())
      for (float g : p->g.v) g2 += static_cast<double>(g) * g;
    gn = std::sqrt(g2);
    model->update(step, steps, lr);
    for (detail::Param* p : model->params())
      detail::store_weights(*p, recipe.weights, static_cast<std::uint64_t>(seed), static_cast<std::uint32_t>(step));
    if (!std::isfinite(loss) || !std::isfinite(gn)) ++nan_inf;
    g_total.add(ctx.stats[2]);
    s.loss_curve.push_back(loss);
    const bool report = step % cfg.stats_every == 0 || step == steps - 1;
    csv << step << ',' << num(lr) << ',' << num(loss) << ',';
    if (report) {
      Quantizer qe = q;  // evaluation must not disturb delayed-scaling histories
      detail::QCtx ectx{&qe, static_cast<std::uint32_t>(step), static_cast<std::uint64_t>(seed), {}, false, gm};
      const double val = model->evaluate(ectx).loss;
      csv << num(val);
      s.val_steps.push_back(step);
      s.val_curve.push_back(val);
    }
    csv << ',' << num(gn) << ',' << nan_inf;
    for (int c = 0; c < 3; ++c) {
      const QuantStats& qs = ctx.stats[c];
      if (report && qs.count)
        csv << ',' << num(qs.amax) << ',' << num(qs.scale) << ','
            << num(qs.nonzero ? 100.0 * static_cast<double>(qs.flushed) / static_cast<double>(qs.nonzero) : 0) << ','
            << num(100.0 * static_cast<double>(qs.saturated) / static_cast<double>(qs.count)) << ','
            << (qs.noise > 0 ? num(qs.sqnr_db(), 6) : std::string());  // exact: no finite SQNR, empty
      else csv << ",,,,,";
    }
    csv << '\n';
    progress.tick();
  }
  Quantizer qe = q;
  detail::QCtx ectx{&qe, static_cast<std::uint32_t>(steps), static_cast<std::uint64_t>(seed), {}, false, gm};
  const detail::EvalResult ev = model->evaluate(ectx);
  s.val_loss = ev.loss;
  s.val_accuracy = ev.accuracy;
  const std::size_t tail = std::max<std::size_t>(1, s.loss_curve.size() / 10);
  double sum = 0, run_min = INFINITY;
  for (std::size_t i = s.loss_curve.size() - tail; i < s.loss_curve.size(); ++i) sum += s.loss_curve[i];
  s.final_train_loss = sum / static_cast<double>(tail);
  for (std::size_t i = 0; i + 10 <= s.loss_curve.size(); ++i) {
    double m = 0;
    for (std::size_t k = i; k < i + 10; ++k) m += s.loss_curve[k];
    run_min = std::min(run_min, m / 10);
  }
  s.diverged = nan_inf > 0 || !std::isfinite(s.final_train_loss) || !std::isfinite(s.val_loss) ||
               (s.final_train_loss > 2 * run_min && s.final_train_loss - run_min > 0.1);
  s.grad_flush = g_total.nonzero ? static_cast<double>(g_total.flushed) / static_cast<double>(g_total.nonzero) : 0;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  outputs.write(csv_out, csv.str());  // renamed into place with every other output at the end
  return s;
}

/// True for an FP32 baseline recipe (no quantized operand, FP32 weights, no noise).
bool is_fp32(const Recipe& r) {
  using K = OperandQuant::Kind;
  return r.x.kind == K::none && r.w.kind == K::none && r.g.kind == K::none && !r.gaussws &&
         r.weights == WeightStorage::fp32;
}

struct Job {
  std::size_t recipe;
  int seed;
};

// ---- the figure (loss.svg): two panels, losses and the gap to FP32 ------------------------------

/// Round ticks covering [lo, hi]: multiples of a step of 1, 2 or 5 × 10^k (at least `min_step`),
/// about `want` of them.
std::vector<double> round_ticks(double lo, double hi, int want, double min_step) {
  const double raw = std::max((hi > lo ? hi - lo : 1.0) / want, min_step);
  const double e = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * e;
  for (double m : {1.0, 2.0, 5.0})
    if (m * e >= raw * (1 - 1e-12)) {
      step = m * e;
      break;
    }
  std::vector<double> t;
  for (long k = static_cast<long>(std::floor(lo / step + 1e-9)); static_cast<double>(k) * step <= hi + 1e-9 * step; ++k)
    if (static_cast<double>(k) * step >= lo - 1e-9 * step) t.push_back(static_cast<double>(k) * step);
  return t;
}

/// One recipe's curves over its seeds.
struct Series {
  std::string name, color;
  bool fp32 = false;
  int seeds = 0;
  std::vector<double> train, lo, hi;  // per step: mean, min and max over seeds of the 10-step trailing mean
  std::vector<int> val_steps;
  std::vector<double> val, gap;  // held-out loss (mean over seeds) and its gap to FP32 in % (empty: no FP32)
};

std::vector<Series> plot_series(const StudyConfig& cfg, const std::vector<Job>& jobs,
                                const std::vector<RunSummary>& results) {
  static const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                                 "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896"};
  std::vector<Series> out;
  int k = 0, baselines = 0;
  for (std::size_t r = 0; r < cfg.recipes.size(); ++r) {
    Series s;
    s.name = cfg.recipes[r].name;
    s.fp32 = is_fp32(cfg.recipes[r]);
    s.color = s.fp32 ? (baselines++ == 0 ? "#000000" : "#555555") : colors[k++ % 14];
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (jobs[i].recipe != r) continue;
      const RunSummary& run = results[i];
      const std::size_t n = run.loss_curve.size();
      if (s.seeds == 0) {
        s.train.assign(n, 0), s.lo.assign(n, INFINITY), s.hi.assign(n, -INFINITY);
        s.val_steps = run.val_steps, s.val.assign(run.val_curve.size(), 0);
      }
      for (std::size_t t = 0; t < n && t < s.train.size(); ++t) {
        double m = 0;
        int cnt = 0;
        for (std::size_t j = t >= 9 ? t - 9 : 0; j <= t; ++j)
          if (std::isfinite(run.loss_curve[j])) m += run.loss_curve[j], ++cnt;
        const double v = cnt ? m / cnt : NAN;
        s.train[t] += v, s.lo[t] = std::min(s.lo[t], v), s.hi[t] = std::max(s.hi[t], v);
      }
      for (std::size_t t = 0; t < run.val_curve.size() && t < s.val.size(); ++t) s.val[t] += run.val_curve[t];
      ++s.seeds;
    }
    for (double& v : s.train) v /= std::max(1, s.seeds);
    for (double& v : s.val) v /= std::max(1, s.seeds);
    out.push_back(std::move(s));
  }
  for (std::size_t r = 0; r < out.size(); ++r) {  // the gap against the FP32 recipe at the same learning rate
    if (out[r].fp32) continue;
    for (std::size_t b = 0; b < out.size(); ++b) {
      if (!out[b].fp32 || cfg.recipes[b].lr != cfg.recipes[r].lr || out[b].val.size() != out[r].val.size()) continue;
      for (std::size_t t = 0; t < out[r].val.size(); ++t)
        out[r].gap.push_back(100.0 * (out[r].val[t] / out[b].val[t] - 1));
      break;
    }
  }
  return out;
}

struct Panel {
  double x0, x1, y0, y1;  // plot area (SVG units), y0 at the top
  double steps;           // the x axis runs over steps 0 .. steps − 1
  double X(double step) const { return x0 + (x1 - x0) * step / std::max(1.0, steps - 1); }
};

std::string points(const Panel& p, const std::vector<int>* steps, const std::vector<double>& v,
                   const std::function<double(double)>& Y) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (std::isfinite(v[i]))
      s += num(p.X(steps ? (*steps)[i] : static_cast<double>(i)), 6) + ',' + num(Y(v[i]), 6) + ' ';
  return s;
}

void x_axis(std::ostringstream& s, const Panel& p) {
  for (double t : round_ticks(0, p.steps - 1, 6, 1)) {
    s << "<line x1=\"" << p.X(t) << "\" x2=\"" << p.X(t) << "\" y1=\"" << p.y1 << "\" y2=\"" << p.y1 + 5
      << "\" stroke=\"#888\"/>\n<text class=\"xtick\" x=\"" << p.X(t) << "\" y=\"" << p.y1 + 18
      << "\" text-anchor=\"middle\">" << num(t) << "</text>\n";
  }
  s << "<text x=\"" << (p.x0 + p.x1) / 2 << "\" y=\"" << p.y1 + 38 << "\" text-anchor=\"middle\">step</text>\n"
    << "<rect x=\"" << p.x0 << "\" y=\"" << p.y0 << "\" width=\"" << p.x1 - p.x0 << "\" height=\"" << p.y1 - p.y0
    << "\" fill=\"none\" stroke=\"#888\"/>\n";
}

void y_label(std::ostringstream& s, const Panel& p, const std::string& text) {
  const double x = p.x0 - 52, y = (p.y0 + p.y1) / 2;
  s << "<text x=\"" << x << "\" y=\"" << y << "\" transform=\"rotate(-90 " << x << ' ' << y
    << ")\" text-anchor=\"middle\">" << text << "</text>\n";
}

void y_tick(std::ostringstream& s, const Panel& p, double y, const std::string& label) {
  s << "<line x1=\"" << p.x0 << "\" x2=\"" << p.x1 << "\" y1=\"" << y << "\" y2=\"" << y << "\" stroke=\"#e4e4e4\"/>\n"
    << "<text class=\"ytick\" x=\"" << p.x0 - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">" << label
    << "</text>\n";
}

void curve(std::ostringstream& s, const Series& r, const char* series, const std::string& pts, bool dashed) {
  s << "<polyline class=\"curve\" data-recipe=\"" << r.name << "\" data-series=\"" << series
    << "\" fill=\"none\" stroke=\"" << r.color << "\" stroke-width=\"" << (r.fp32 ? "2.5" : "1.5") << '"'
    << (dashed ? " stroke-dasharray=\"6 3\"" : "") << " points=\"" << pts << "\"/>\n";
}

/// Left panel: train loss (solid, seed band) and held-out loss (dashed) per recipe, log scale.
void loss_panel(std::ostringstream& s, const Panel& p, const std::vector<Series>& series) {
  double ymin = INFINITY, ymax = 0;
  for (const Series& r : series)
    for (const auto* v : {&r.lo, &r.hi, &r.train, &r.val})
      for (double x : *v)
        if (std::isfinite(x) && x > 0) ymin = std::min(ymin, x), ymax = std::max(ymax, x);
  if (!std::isfinite(ymin)) ymin = 1e-3, ymax = 1;
  // Log axis: whole decades when the curves span more than one, else a tight range with 1-2-5 ticks.
  double ly0 = std::floor(std::log10(ymin)), ly1 = std::ceil(std::log10(ymax));
  const bool tight = std::log10(ymax) - std::log10(ymin) < 1;
  if (tight) ly0 = std::log10(ymin) - 0.03, ly1 = std::log10(ymax) + 0.03;
  const auto Y = [&](double v) {
    const double l = std::clamp(std::log10(std::max(v, 1e-300)), ly0, ly1);
    return p.y0 + (p.y1 - p.y0) * (ly1 - l) / std::max(1e-9, ly1 - ly0);
  };
  s << "<g class=\"panel\" data-panel=\"loss\">\n<text x=\"" << p.x0 << "\" y=\"" << p.y0 - 10
    << "\" font-size=\"13\">loss: train (solid, 10-step mean) and held-out val_loss (dashed)</text>\n";
  for (double e = std::floor(ly0); e <= std::ceil(ly1); ++e)
    for (double m : tight ? std::vector<double>{1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8} : std::vector<double>{1}) {
      const double v = m * std::pow(10, e);
      if (std::log10(v) >= ly0 - 1e-9 && std::log10(v) <= ly1 + 1e-9) y_tick(s, p, Y(v), num(v, 3));
    }
  x_axis(s, p);
  y_label(s, p, "loss (log scale)");
  for (const Series& r : series) {  // bands first, under every curve
    if (r.seeds < 2) continue;
    std::string pts = points(p, nullptr, r.lo, Y);
    for (std::size_t i = r.hi.size(); i-- > 0;)
      if (std::isfinite(r.hi[i])) pts += num(p.X(static_cast<double>(i)), 6) + ',' + num(Y(r.hi[i]), 6) + ' ';
    s << "<polygon class=\"band\" data-recipe=\"" << r.name << "\" fill=\"" << r.color
      << "\" fill-opacity=\"0.15\" stroke=\"none\" points=\"" << pts << "\"/>\n";
  }
  for (bool fp32 : {false, true})  // the FP32 baselines last: on top
    for (const Series& r : series) {
      if (r.fp32 != fp32) continue;
      curve(s, r, "train", points(p, nullptr, r.train, Y), false);
      curve(s, r, "val", points(p, &r.val_steps, r.val, Y), true);
    }
  s << "</g>\n";
}

/// Right panel: each recipe's held-out loss gap to its FP32 baseline in percent, linear scale.
void gap_panel(std::ostringstream& s, const Panel& p, const std::vector<Series>& series) {
  // The range covers the gaps after the first 10 % of steps (the warm-up, where the losses of every
  // recipe are far from converged); an earlier excursion beyond it is drawn at the frame and said so.
  double lo = 0, hi = 0, all_lo = 0, all_hi = 0;
  bool any = false;
  const double warmup = 0.1 * (p.steps - 1);
  for (const Series& r : series)
    for (std::size_t t = 0; t < r.gap.size(); ++t) {
      const double g = r.gap[t];
      if (!std::isfinite(g)) continue;
      all_lo = std::min(all_lo, g), all_hi = std::max(all_hi, g), any = true;
      if (r.val_steps[t] >= warmup) lo = std::min(lo, g), hi = std::max(hi, g);
    }
  const std::vector<double> t = round_ticks(lo, hi, 6, 1e-6);
  const double step = t.size() > 1 ? t[1] - t[0] : 1;
  const double a = std::floor(lo / step + 1e-9) * step, b = std::max(a + step, std::ceil(hi / step - 1e-9) * step);
  const auto Y = [&](double v) { return p.y0 + (p.y1 - p.y0) * (b - std::clamp(v, a, b)) / (b - a); };
  s << "<g class=\"panel\" data-panel=\"gap\">\n<text x=\"" << p.x0 << "\" y=\"" << p.y0 - 10
    << "\" font-size=\"13\">held-out loss gap to FP32 (same learning rate)</text>\n";
  if (all_lo < a || all_hi > b)
    s << "<text x=\"" << (p.x0 + p.x1) / 2 << "\" y=\"" << p.y1 + 56
      << "\" text-anchor=\"middle\" fill=\"#666\">range set after the first 10 % of steps; "
         "earlier excursions clipped at the frame</text>\n";
  for (long k = 0; a + static_cast<double>(k) * step <= b + 1e-9 * step; ++k) {
    const double v = a + static_cast<double>(k) * step;
    y_tick(s, p, Y(v), num(std::abs(v) < 1e-9 * step ? 0 : v, 4) + " %");
  }
  x_axis(s, p);
  y_label(s, p, "val_loss / FP32 val_loss − 1 (%)");
  s << "<line x1=\"" << p.x0 << "\" x2=\"" << p.x1 << "\" y1=\"" << Y(0) << "\" y2=\"" << Y(0)
    << "\" stroke=\"#000000\" stroke-width=\"2.5\"/>\n";
  if (!any)
    s << "<text x=\"" << (p.x0 + p.x1) / 2 << "\" y=\"" << (p.y0 + p.y1) / 2 - 12
      << "\" text-anchor=\"middle\">no gap: run fp32 beside the recipes</text>\n";
  for (const Series& r : series)
    if (!r.gap.empty()) curve(s, r, "gap", points(p, &r.val_steps, r.gap, Y), false);
  s << "</g>\n";
}

std::string svg_plot(const StudyConfig& cfg, const std::vector<Series>& series) {
  const double W = 1200, H = 560;
  const Panel left{90, 590, 60, H - 70, static_cast<double>(series.empty() ? 1 : series[0].train.size())};
  const Panel right{680, 1000, 60, H - 70, left.steps};
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << left.x0 << "\" y=\"24\" font-size=\"15\">" << name(cfg.model) << " — " << cfg.seeds
    << (cfg.seeds == 1 ? " seed" : " seeds") << " per recipe"
    << (cfg.seeds >= 2 ? "; band: min–max over seeds of the train loss" : "") << "</text>\n";
  loss_panel(s, left, series);
  gap_panel(s, right, series);
  double y = left.y0 + 4;  // legend: one line per recipe, then the line styles
  for (const Series& r : series) {
    s << "<line x1=\"1030\" x2=\"1058\" y1=\"" << y << "\" y2=\"" << y << "\" stroke=\"" << r.color
      << "\" stroke-width=\"" << (r.fp32 ? "2.5" : "1.5") << "\"/><text x=\"1064\" y=\"" << y + 4 << "\">" << r.name
      << "</text>\n";
    y += 18;
  }
  y += 10;
  s << "<line x1=\"1030\" x2=\"1058\" y1=\"" << y << "\" y2=\"" << y << "\" stroke=\"#444\"/><text x=\"1064\" y=\""
    << y + 4 << "\">train</text>\n<line x1=\"1030\" x2=\"1058\" y1=\"" << y + 18 << "\" y2=\"" << y + 18
    << "\" stroke=\"#444\" stroke-dasharray=\"6 3\"/><text x=\"1064\" y=\"" << y + 22 << "\">held-out</text>\n";
  s << "</svg>\n";
  return s.str();
}

// ---- the summary ------------------------------------------------------------------------------

struct Agg {
  double mean = 0, sd = 0;
};
Agg agg(const std::vector<double>& v) {
  Agg a;
  if (v.empty()) return a;
  for (double x : v) a.mean += x;
  a.mean /= static_cast<double>(v.size());
  if (v.size() > 1) {
    for (double x : v) a.sd += (x - a.mean) * (x - a.mean);
    a.sd = std::sqrt(a.sd / static_cast<double>(v.size() - 1));
  }
  return a;
}

/// summary.csv and summary.md: one row per recipe; the gap is against the FP32 run at the same learning rate.
std::pair<std::string, std::string> summaries(const StudyConfig& cfg, const std::vector<Job>& jobs,
                                              const std::vector<RunSummary>& results) {
  std::map<double, double> fp32_loss, fp32_train;  // lr → mean held-out / train loss of the FP32 recipe
  for (std::size_t r = 0; r < cfg.recipes.size(); ++r) {
    if (!is_fp32(cfg.recipes[r])) continue;
    std::vector<double> v, t;
    for (std::size_t i = 0; i < jobs.size(); ++i)
      if (jobs[i].recipe == r) v.push_back(results[i].val_loss), t.push_back(results[i].final_train_loss);
    fp32_loss[cfg.recipes[r].lr] = agg(v).mean;
    fp32_train[cfg.recipes[r].lr] = agg(t).mean;
  }
  const bool one = cfg.seeds == 1;
  std::ostringstream csv, md;
  csv << "model,recipe,seeds,val_loss_mean,val_loss_std,gap_vs_fp32_pct,train_loss_mean,train_gap_vs_fp32_pct,"
         "val_accuracy_mean,grad_flush_mean,diverged,seconds_mean\n";
  md << "# " << name(cfg.model) << ": " << cfg.seeds << " seed(s)\n\n";
  if (const std::string w = few_seeds_warning(cfg); !w.empty()) md << "**" << w << "**\n\n";
  md << "| recipe | val loss (mean ± sd) | gap vs FP32 | train loss | train gap | val acc | grad flush | diverged | "
        "s/run |\n"
     << "|---|---|---|---|---|---|---|---|---|\n";
  for (std::size_t r = 0; r < cfg.recipes.size(); ++r) {
    std::vector<double> tl, tr, acc, fl, secs;
    bool div = false;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (jobs[i].recipe != r) continue;
      const RunSummary& s = results[i];
      tl.push_back(s.val_loss), tr.push_back(s.final_train_loss), acc.push_back(s.val_accuracy);
      fl.push_back(s.grad_flush), secs.push_back(s.seconds);
      div = div || s.diverged;
    }
    const Agg a = agg(tl), t = agg(tr), ac = agg(acc), f = agg(fl), sc = agg(secs);
    const auto base = fp32_loss.find(cfg.recipes[r].lr);
    const auto tbase = fp32_train.find(cfg.recipes[r].lr);
    const double gap = base != fp32_loss.end() ? 100.0 * (a.mean / base->second - 1) : NAN;
    const double tgap = tbase != fp32_train.end() ? 100.0 * (t.mean / tbase->second - 1) : NAN;
    csv << name(cfg.model) << ',' << cfg.recipes[r].name << ',' << cfg.seeds << ',' << num(a.mean) << ','
        << (one ? std::string() : num(a.sd)) << ',' << num(gap, 6) << ',' << num(t.mean) << ',' << num(tgap, 6) << ','
        << num(ac.mean, 6) << ',' << num(f.mean, 6) << ',' << (div ? 1 : 0) << ',' << num(sc.mean, 4) << '\n';
    md << "| " << cfg.recipes[r].name << " | " << num(a.mean, 4) << " ± " << (one ? "n/a" : num(a.sd, 2)) << " | "
       << (std::isnan(gap) ? std::string("–") : num(gap, 3) + " %") << " | " << num(t.mean, 4) << " | "
       << (std::isnan(tgap) ? std::string("–") : num(tgap, 3) + " %") << " | "
       << (ac.mean < 0 ? std::string("–") : num(100 * ac.mean, 4) + " %") << " | " << num(f.mean, 3) << " | "
       << (div ? "yes" : "no") << " | " << num(sc.mean, 3) << " |\n";
  }
  md << "\nVal loss: the loss on the held-out split at the end (the per-run CSVs' val_loss). Gap: mean val loss "
        "relative to the FP32 recipe trained at the same learning rate. Train loss: mean over the last 10 % of "
        "steps. Grad flush: nonzero output-gradient entries that quantize to 0.\n";
  return {csv.str(), md.str()};
}

// ---- the output folder -------------------------------------------------------------------------

/// What a previous run left in `out` (its files, then its folders, the innermost first); throws
/// IoError naming the first entry no train run writes.
std::vector<std::filesystem::path> previous_run(const std::filesystem::path& out) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files, recipe_folders, model_folders;
  std::error_code ec;
  if (!fs::is_directory(out, ec)) return {};
  const auto refuse = [&](const fs::path& p) {
    throw IoError("--out '" + out.string() + "': '" + p.string() +
                  "' was not written by `minifloat train`; a run replaces everything a previous run left in its "
                  "--out, so --out must be a new folder, an empty one or a previous run's: move it or choose another "
                  "--out");
  };
  const auto leftover = [](const std::string& n) {  // a temporary of a killed run (file_io.hpp)
    return n.size() > 1 && n[0] == '.' && n.find(".minifloat-tmp.") != std::string::npos;
  };
  const auto seed_csv = [](const std::string& n) {
    return n.size() > 8 && n.rfind("seed", 0) == 0 && n.substr(n.size() - 4) == ".csv" &&
           std::all_of(n.begin() + 4, n.end() - 4, [](char c) { return c >= '0' && c <= '9'; });
  };
  std::vector<std::string> models;
  for (const auto& e : name_table(TrainModel{}).entries) models.emplace_back(e.name);
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string n = e.path().filename().string();
    const fs::path p = out / n;
    const bool dir = fs::is_directory(fs::symlink_status(p, ec));
    if (!dir && (n == "summary.csv" || n == "summary.md" || n == "loss.svg" || n == "loss.png" || leftover(n))) {
      files.push_back(p);
      continue;
    }
    if (!dir || std::find(models.begin(), models.end(), n) == models.end()) refuse(p);
    for (const auto& re : fs::directory_iterator(p)) {
      const fs::path rp = p / re.path().filename();
      if (!fs::is_directory(fs::symlink_status(rp, ec))) refuse(rp);
      for (const auto& se : fs::directory_iterator(rp)) {
        const std::string sn = se.path().filename().string();
        if (fs::is_directory(fs::symlink_status(rp / sn, ec)) || !(seed_csv(sn) || leftover(sn))) refuse(rp / sn);
        files.push_back(rp / sn);
      }
      recipe_folders.push_back(rp);
    }
    model_folders.push_back(p);
  }
  std::sort(files.begin(), files.end());  // a stable order, whatever the directory listing's
  std::sort(recipe_folders.begin(), recipe_folders.end());
  std::sort(model_folders.begin(), model_folders.end());
  files.insert(files.end(), recipe_folders.begin(), recipe_folders.end());
  files.insert(files.end(), model_folders.begin(), model_folders.end());
  return files;
}

}  // namespace

std::string few_seeds_warning(const StudyConfig& cfg) {
  if (cfg.seeds >= 3 || cfg.recipes.size() < 2) return {};
  return "warning: " + std::to_string(cfg.seeds) + (cfg.seeds == 1 ? " seed" : " seeds") +
         " per recipe: the ranking has no spread to judge it by (one seed's noise can put a recipe ahead of FP32); "
         "use --seeds 3 or more";
}

const NameTable<TrainModel>& name_table(TrainModel) {
  static constexpr NameTable<TrainModel> t{"train-model", "training model", kModels};
  return t;
}

std::vector<NameListing> name_listings() { return {listing(recipe_table()), listing(name_table(TrainModel{}))}; }

std::string render_png(const std::filesystem::path& svg);

std::string loss_figure_svg(const StudyConfig& cfg, const std::vector<RunSummary>& runs) {
  std::vector<Job> jobs;
  for (const RunSummary& run : runs) {
    std::size_t r = 0;
    while (r < cfg.recipes.size() && cfg.recipes[r].name != run.recipe) ++r;
    if (r == cfg.recipes.size()) throw Error("loss_figure_svg: run of recipe '" + run.recipe + "' not in the recipes");
    jobs.push_back({r, run.seed});
  }
  return svg_plot(cfg, plot_series(cfg, jobs, runs));
}

std::vector<RunSummary> run_study(const StudyConfig& cfg) {
  // Every argument and every output is checked before the first step (one transaction, file_io.hpp).
  if (cfg.recipes.empty()) throw Error("no recipes given");
  if (cfg.seeds < 1) throw Error("--seeds must be at least 1");
  if (cfg.out.empty()) throw Error("--out: no output folder given");
  make_model(cfg.model, 0, cfg.data);                // validates the data before forking
  if (!cfg.gemm.empty()) parse_dot_model(cfg.gemm);  // and the accumulation model
  std::vector<Job> jobs;
  for (std::size_t r = 0; r < cfg.recipes.size(); ++r)
    for (int s = 0; s < cfg.seeds; ++s) jobs.push_back({r, s});
  OutputSet outputs;
  if (!cfg.data.empty()) outputs.add_input(cfg.data, "--data");
  const std::vector<std::filesystem::path> previous = previous_run(cfg.out);
  std::vector<std::string> written;  // every path this run writes into, folders included
  const auto keep = [&](const std::filesystem::path& p) { written.push_back(p.lexically_normal().string()); };
  std::vector<OutputId> csv_out;
  outputs.add_folder(cfg.out, "--out");  // created folders go again on an error or a signal
  outputs.add_folder(cfg.out / name(cfg.model), "--out");
  keep(cfg.out / name(cfg.model));
  for (const Job& j : jobs) {
    const std::filesystem::path folder = cfg.out / name(cfg.model) / cfg.recipes[j.recipe].name;
    outputs.add_folder(folder, "--out");
    keep(folder);
    keep(folder / ("seed" + std::to_string(j.seed) + ".csv"));
    csv_out.push_back(outputs.add_output(folder / ("seed" + std::to_string(j.seed) + ".csv"), "--out"));
  }
  const OutputId summary_csv = outputs.add_output(cfg.out / "summary.csv", "--out");
  const OutputId summary_md = outputs.add_output(cfg.out / "summary.md", "--out");
  const OutputId loss_svg = outputs.add_output(cfg.out / "loss.svg", "--out");
  // A PNG too when Debian's librsvg2-bin (installed by scripts/setup) is present.
  const bool png = std::system("command -v rsvg-convert >/dev/null 2>&1") == 0;
  const OutputId loss_png = png ? outputs.add_output(cfg.out / "loss.png", "--out") : OutputId{};
  for (const char* f : {"summary.csv", "summary.md", "loss.svg", "loss.png"})
    if (png || std::string(f) != "loss.png") keep(cfg.out / f);
  for (const auto& p : previous)  // the previous run's other files and folders go at the commit
    if (std::find(written.begin(), written.end(), p.lexically_normal().string()) == written.end())
      outputs.remove_on_commit(p);
  Progress progress;
  progress.enabled = cfg.progress;
  {
    auto probe = make_model(cfg.model, 0, cfg.data);
    progress.total = static_cast<long>(jobs.size()) * (cfg.steps > 0 ? cfg.steps : probe->default_steps());
  }
  std::vector<RunSummary> results(jobs.size());
  std::atomic<std::size_t> next{0};
  std::mutex err_mu;
  std::string first_error;
  const unsigned nthreads = resolve_threads(cfg.threads > 0 ? static_cast<unsigned>(cfg.threads) : 0u);
  parallel_for(std::min<unsigned>(nthreads, static_cast<unsigned>(jobs.size())), [&](unsigned) {
    for (std::size_t i; (i = next++) < jobs.size();) {
      try {
        results[i] = run_one(cfg, cfg.recipes[jobs[i].recipe], jobs[i].seed, progress, outputs, csv_out[i]);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(err_mu);
        if (first_error.empty()) first_error = e.what();
      }
    }
  });
  if (!first_error.empty()) throw Error(first_error);
  const auto [csv, md] = summaries(cfg, jobs, results);
  outputs.write(summary_csv, csv);
  outputs.write(summary_md, md);
  outputs.write(loss_svg, svg_plot(cfg, plot_series(cfg, jobs, results)));
  if (png) outputs.write(loss_png, render_png(outputs.temporary(loss_svg)));
  outputs.commit();
  return results;
}

/// The PNG rsvg-convert renders from `svg` (read from its stdout, so it goes through the one writer).
std::string render_png(const std::filesystem::path& svg) {
  int pipefd[2];
  if (::pipe(pipefd) != 0) throw Error("rsvg-convert: cannot create a pipe");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  std::string a0 = "rsvg-convert", a1 = svg.string();
  char* argv[] = {a0.data(), a1.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "rsvg-convert", &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(pipefd[1]);
  std::string out;
  char buf[1 << 16];
  for (ssize_t k; rc == 0 && (k = ::read(pipefd[0], buf, sizeof buf)) != 0;) {
    if (k < 0) {
      if (errno == EINTR) continue;
      break;
    }
    out.append(buf, static_cast<std::size_t>(k));
  }
  ::close(pipefd[0]);
  int status = 0;
  if (rc != 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.empty())
    throw Error("rsvg-convert failed to render loss.png from " + svg.string());
  return out;
}

std::vector<Gate> check_gates(const StudyConfig& cfg, const std::vector<RunSummary>& runs) {
  struct M {
    double val = 0, train = 0, acc = 0, min_flush = 1;
    bool diverged = false;
    int n = 0;
  };
  std::map<std::string, M> m;
  for (const auto& r : runs) {
    M& x = m[r.recipe];
    x.val += r.val_loss;
    x.train += r.final_train_loss;
    x.acc += r.val_accuracy;
    x.min_flush = std::min(x.min_flush, r.grad_flush);
    x.diverged = x.diverged || r.diverged;
    ++x.n;
  }
  for (auto& [k, x] : m) x.val /= x.n, x.train /= x.n, x.acc /= x.n;
  std::vector<Gate> g;
  // Which criteria apply depends on the model and the recipes only (applicable_gates() relies on it).
  auto has = [&](const std::string& r) {
    return std::any_of(cfg.recipes.begin(), cfg.recipes.end(), [&](const Recipe& x) { return x.name == r; });
  };
  auto ratio = [&](const std::string& a, const std::string& b, bool train) {
    return train ? m[a].train / m[b].train : m[a].val / m[b].val;
  };
  auto add = [&](std::string id, bool pass, std::string detail) {
    g.push_back({std::move(id), pass, std::move(detail)});
  };
  if (cfg.model == TrainModel::mlp_digits) {
    if (has("fp32")) {
      const M& f = m["fp32"];
      add("4.7.2 fp32 baseline", f.acc >= 0.965 && f.val <= 0.13,
          "val acc " + num(100 * f.acc, 4) + " % (>= 96.5), val loss " + num(f.val, 4) +
              " (<= 0.13; thresholds calibrated on the prototype's train/test split, not ours)");
      g.back().calibration = true;
      for (const char* r : {"fp8-delayed", "fp8-current", "deepseek-block", "infir2-ue8m0", "mxfp8"}) {
        if (!has(r)) continue;
        const double t = ratio(r, "fp32", false), tr = ratio(r, "fp32", true), da = 100 * (m[r].acc - f.acc);
        add(std::string("4.7.3 ") + r, t <= 1.05 && da >= -1.0 && tr <= 1.20,
            "val loss " + num(t, 4) + "x (<= 1.05), acc " + num(da, 3) + " pt (>= -1), train loss " + num(tr, 4) +
                "x (<= 1.20)");
      }
      for (const char* r : {"nvfp4", "mxfp4"}) {
        if (!has(r)) continue;
        const double t = ratio(r, "fp32", false), da = 100 * (m[r].acc - f.acc);
        std::string d = "val loss " + num(t, 4) + "x (<= 1.10), acc " + num(da, 3) + " pt (>= -2)";
        bool pass = t <= 1.10 && da >= -2.0;
        if (has("fp8-current")) {
          pass = pass && m[r].train > m["fp8-current"].train;
          d += ", train loss " + num(m[r].train, 4) + " > fp8-current " + num(m["fp8-current"].train, 4);
        }
        add(std::string("4.7.4 ") + r, pass, d);
      }
      if (has("fail-unscaled")) {
        const double t = ratio("fail-unscaled", "fp32", false), tr = ratio("fail-unscaled", "fp32", true);
        const double fl = m["fail-unscaled"].min_flush;
        add("4.7.5 fail-unscaled reproduces F1", fl >= 0.5 && t >= 1.3 && tr >= 1.5,
            "min grad flush " + num(fl, 3) + " (>= 0.5), val loss " + num(t, 4) + "x (>= 1.3), train loss " +
                num(tr, 4) + "x (>= 1.5)");
      }
    }
    if (has("fp32-lr0.01")) {
      if (has("fail-bf16-rne-weights")) {
        const double t = ratio("fail-bf16-rne-weights", "fp32-lr0.01", false);
        add("4.7.6 bf16+RNE weights fail", t >= 1.5, "val loss " + num(t, 4) + "x fp32 at lr 0.01 (>= 1.5)");
      }
      if (has("bf16-sr-weights")) {
        const double t = ratio("bf16-sr-weights", "fp32-lr0.01", false);
        add("4.7.6 bf16+SR weights recover", t <= 1.03, "val loss " + num(t, 4) + "x fp32 at lr 0.01 (<= 1.03)");
      }
    }
  } else if ((cfg.model == TrainModel::char_lm || cfg.model == TrainModel::char_lm_large) && has("fp32")) {
    for (const char* r : {"fp8-delayed", "fp8-current", "deepseek-block", "infir2-ue8m0", "mxfp8"}) {
      if (!has(r)) continue;
      const double t = ratio(r, "fp32", false);
      add(std::string("4.7.9 ") + r, t <= 1.02, "val loss " + num(100 * (t - 1), 3) + " % vs fp32 (<= +2 %)");
    }
    if (has("nvfp4")) {
      const double t = ratio("nvfp4", "fp32", false);
      add("4.7.9 nvfp4", t <= 1.05, "val loss " + num(100 * (t - 1), 3) + " % vs fp32 (<= +5 %)");
    }
    if (has("fail-unscaled")) {
      const double t = ratio("fail-unscaled", "fp32", false);
      add("4.7.9 fail-unscaled", t >= 1.05 || m["fail-unscaled"].diverged,
          "val loss " + num(100 * (t - 1), 3) + " % vs fp32 (>= +5 % or diverged)");
    }
  }
  return g;
}

std::vector<std::string> applicable_gates(const StudyConfig& cfg) {
  std::vector<std::string> ids;
  for (const Gate& g : check_gates(cfg, {})) ids.push_back(g.id);
  return ids;
}

}  // namespace minifloat::train
