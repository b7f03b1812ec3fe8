// SPDX-License-Identifier: Apache-2.0
// arith_error_growth.cpp: error growth of long dot products under each architecture's FP8 and
// bf16 tensor-core preset (core/tfdpa.hpp), alone over all K ("fast accumulation": the tensor
// core's result is the next instruction's C) and with FP32 promotion every 128 lanes
// (<preset>+blocked128: DeepSeek-V3 §3.3.2 / DeepGEMM), against an FP32 FFMA chain.
//
// Inputs: a_i, b_i ~ N(0, 1) rounded rne into the operand format (e4m3fn for FP8 presets, bf16
// for bf16 presets), fixed seed. For each K in 256, 1024, 4096 and model, over T vectors: the
// normwise error |d − x| / ||a∘b||₂ (median and max), x the exact dot product (dot_exact rounded
// to f64, relative error ≤ 2^−53, far below the effects measured). Normwise, not per-element
// relative error: the exact sum can cancel to near zero (training-sim.md §1.4).
//
// Run: build/examples/arith_error_growth [--trials T] [--svg PATH]
//   prints the table (markdown) and, with --svg, writes the plot: normwise median error against K,
//   one line per model (solid: no promotion; dashed: + FP32 every 128), log-log axes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "minifloat/accumulate.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/file_io.hpp"

namespace {

using namespace minifloat;

/// splitmix64: a fixed, portable generator (std::normal_distribution differs between libraries).
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1p-53; }
  double normal() {  // Box–Muller
    const double u = uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double maximum(const std::vector<double>& v) {
  double m = 0;
  for (const double x : v) m = std::fmax(m, x);
  return m;
}

struct Curve {
  std::string model;  ///< the accumulation model name (dot_model_table)
  Format operand;
  std::string arch;
  bool promoted;
  std::vector<double> median, max;  ///< per K
};

constexpr std::size_t kKs[] = {256, 1024, 4096};

/// A small log-log line plot (SVG 1.1, no dependencies).
std::string plot_svg(const std::vector<Curve>& curves) {
  const double W = 900, H = 560, left = 80, right = 330, top = 40, bottom = 60;
  double lo = 1e300, hi = 0;
  for (const Curve& c : curves)
    for (const double y : c.median)
      if (y > 0) lo = std::min(lo, y), hi = std::max(hi, y);
  const double y0 = std::floor(std::log10(lo)), y1 = std::ceil(std::log10(hi));
  const double x0 = std::log2(256.0), x1 = std::log2(4096.0);
  auto px = [&](double k) { return left + (std::log2(k) - x0) / (x1 - x0) * (W - left - right); };
  auto py = [&](double v) { return top + (y1 - std::log10(v)) / (y1 - y0) * (H - top - bottom); };
  static const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
                                   "#17becf", "#7f7f7f", "#bcbd22"};
  std::string s;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
                "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                W, H);
  s += buf;
  std::snprintf(buf, sizeof buf,
                "<text x=\"%.0f\" y=\"22\" font-size=\"14\">Normwise dot-product error (median) vs K: tensor-core "
                "presets, N(0,1) inputs</text>\n",
                left);
  s += buf;
  for (double e = y0; e <= y1; e += 1) {  // y grid
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
                  "text-anchor=\"end\">1e%d</text>\n",
                  left, py(std::pow(10, e)), W - right, py(std::pow(10, e)), left - 6, py(std::pow(10, e)) + 4,
                  static_cast<int>(e));
    s += buf;
  }
  for (const std::size_t k : kKs) {  // x ticks
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
                  "text-anchor=\"middle\">%zu</text>\n",
                  px(static_cast<double>(k)), top, px(static_cast<double>(k)), H - bottom, px(static_cast<double>(k)),
                  H - bottom + 18, k);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">K (dot-product length)</text>\n",
                (left + W - right) / 2, H - 18);
  s += buf;
  std::size_t colour = 0;
  std::string last_base;
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const Curve& c = curves[i];
    const std::string base = c.model.substr(0, c.model.find('+'));
    if (i > 0 && base != last_base) ++colour;
    last_base = base;
    const char* col = kColours[colour % 10];
    std::string pts;
    for (std::size_t j = 0; j < std::size(kKs); ++j) {
      std::snprintf(buf, sizeof buf, "%s%.1f,%.1f", j ? " " : "", px(static_cast<double>(kKs[j])),
                    py(std::max(c.median[j], std::pow(10, y0))));
      pts += buf;
    }
    std::snprintf(buf, sizeof buf, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"%s\"/>\n", col,
                  c.promoted ? " stroke-dasharray=\"6,4\"" : "", pts.c_str());
    s += buf;
    const double ly = top + 16.0 * static_cast<double>(i);
    std::string label = c.model;
    if (c.model == "fp32") label += " (" + format_name(c.operand) + " inputs)";
    if (std::all_of(c.median.begin(), c.median.end(), [](double v) { return v == 0; })) label += ": median 0 (floor)";
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/><text "
                  "x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                  W - right + 16, ly, W - right + 46, ly, col, c.promoted ? " stroke-dasharray=\"6,4\"" : "",
                  W - right + 52, ly + 4, label.c_str());
    s += buf;
  }
  s += "</svg>\n";
  return s;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "arith_error_growth: %s; usage: arith_error_growth [--trials 1..100000] [--svg PATH]\n", why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  int trials = 64;
  std::string svg;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--trials") == 0 && i + 1 < argc) {
      char* end = nullptr;
      const long t = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || t < 1 || t > 100000) usage("--trials must be an integer in 1..100000");
      trials = static_cast<int>(t);
    } else if (std::strcmp(argv[i], "--svg") == 0 && i + 1 < argc) {
      svg = argv[++i];
    } else {
      usage(("unknown or incomplete argument '" + std::string(argv[i]) + "'").c_str());
    }
  }
  try {
    OutputSet outputs;  // the plot is written whole or not at all, checked before any work
    const OutputId plot = svg.empty() ? OutputId{} : outputs.add_output(svg, "--svg");
    struct Base {
      const char* preset;
      const char* arch;
      Format operand;
    };
    const Base bases[] = {
        {"ada-fp8", "Ada sm_89", formats::e4m3fn},
        {"hopper-fp8", "Hopper sm_90", formats::e4m3fn},
        {"blackwell-fp8", "Blackwell sm_100", formats::e4m3fn},
        {"ampere-bf16", "Ampere sm_80", formats::bf16},
        {"ada-bf16-unvalidated", "Ada sm_89", formats::bf16},
        {"hopper-bf16-unvalidated", "Hopper sm_90", formats::bf16},
        {"blackwell-bf16", "Blackwell sm_100", formats::bf16},
    };
    std::vector<Curve> curves;
    for (const Base& b : bases) {
      curves.push_back({b.preset, b.operand, b.arch, false, {}, {}});
      curves.push_back({std::string(b.preset) + "+blocked128", b.operand, b.arch, true, {}, {}});
    }
    curves.push_back({"fp32", formats::e4m3fn, "CUDA cores (e4m3fn inputs)", false, {}, {}});
    curves.push_back({"fp32", formats::bf16, "CUDA cores (bf16 inputs)", false, {}, {}});
    for (const std::size_t K : kKs) {
      for (const Format operand : {formats::e4m3fn, formats::bf16}) {
        Rng rng{2024 + K + (operand == formats::bf16 ? 7 : 0)};
        std::vector<std::vector<double>> err(curves.size());
        std::vector<DotModel> models;
        for (const Curve& c : curves) models.push_back(parse_dot_model(c.model));
        for (int t = 0; t < trials; ++t) {
          std::vector<std::uint64_t> a(K), b(K);
          for (auto& x : a) x = from_double(rng.normal(), operand).code;
          for (auto& x : b) x = from_double(rng.normal(), operand).code;
          double norm2 = 0;
          for (std::size_t i = 0; i < K; ++i) {
            const double p = to_double(operand, a[i]) * to_double(operand, b[i]);  // exact in f64
            norm2 += p * p;
          }
          const double exact =
              to_double(formats::f64, dot_exact(operand, a, operand, b, formats::f32, 0, formats::f64).code);
          for (std::size_t m = 0; m < curves.size(); ++m) {
            if (!(curves[m].operand == operand)) continue;
            const RoundResult r = dot(models[m], operand, a, operand, b);
            const Format dest = result_format(models[m]);
            err[m].push_back(std::fabs(to_double(dest, r.code) - exact) / std::sqrt(norm2));
          }
        }
        for (std::size_t m = 0; m < curves.size(); ++m)
          if (curves[m].operand == operand) {
            curves[m].median.push_back(median(err[m]));
            curves[m].max.push_back(maximum(err[m]));
          }
      }
    }
    std::printf("Normwise error |d - x| / ||a*b||_2 of K-term dot products, a_i, b_i ~ N(0,1) rounded rne into the "
                "operand format, %d vectors per K, seed 2024 (median / max)\n\n",
                trials);
    std::printf("| model | architecture | inputs | K = 256 | K = 1024 | K = 4096 |\n| --- | --- | --- | --- | --- | --- |\n");
    for (const Curve& c : curves) {
      std::printf("| `%s` | %s | %s |", c.model.c_str(), c.arch.c_str(), format_name(c.operand).c_str());
      for (std::size_t j = 0; j < std::size(kKs); ++j) std::printf(" %.2e / %.2e |", c.median[j], c.max[j]);
      std::printf("\n");
    }
    if (!svg.empty()) {
      outputs.write(plot, plot_svg(curves));
      outputs.commit();
      std::printf("\nplot written to %s\n", svg.c_str());
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "arith_error_growth: %s\n", e.what());
    return 2;
  }
  return 0;
}
