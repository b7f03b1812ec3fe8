// SPDX-License-Identifier: Apache-2.0
// cmd_report.cpp: `minifloat report` (per-scheme SQNR, errors, saturation, flush and scale range).
#include "cmd_report.hpp"

#include <fmt/core.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

#include "minifloat/quant.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/safetensors.hpp"
#include "options.hpp"

namespace minifloat::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

std::string fmt_scale(double v) {
  int e;
  const double f = std::frexp(v, &e);
  if (f == 0.5) return fmt::format("2^{}", e - 1);
  return fmt::format("{:.3g}", v);
}
std::string scale_range(const ErrorStats& s) {
  if (!(s.scale_max > 0)) return "-";
  return fmt_scale(s.scale_min) + ".." + fmt_scale(s.scale_max);
}
std::string fmt_sqnr(double db) {
  if (std::isnan(db)) return "nan";
  return std::isinf(db) ? std::string(db > 0 ? "inf" : "-inf") : fmt::format("{:.2f}", db);
}
double pct(std::uint64_t k, std::uint64_t n) { return n ? 100.0 * static_cast<double>(k) / static_cast<double>(n) : 0.0; }

}  // namespace

std::vector<std::pair<std::string, NpyArray>> load_tensors(const std::string& path, const std::string& tensor,
                                                           bool quiet) {
  std::vector<std::pair<std::string, NpyArray>> out;
  if (ends_with(path, ".npy")) {
    if (!tensor.empty())
      throw Error("--tensor '" + tensor + "' applies to .safetensors files; '" + path + "' is a .npy file with one tensor");
    out.emplace_back(std::filesystem::path(path).stem().string(), read_npy(path));
    return out;
  }
  if (!ends_with(path, ".safetensors"))
    throw Error("--in '" + path + "': unknown file type; accepted: .npy, .safetensors");
  const SafetensorsFile f = read_safetensors_header(path);
  if (!tensor.empty()) {
    out.emplace_back(tensor, read_safetensor(f, tensor));
    return out;
  }
  for (const auto& t : f.tensors) {
    if (!safetensors_dtype_is_numeric(t.dtype)) {
      if (!quiet) fmt::print(stderr, "report: skipping {} ({}: not a floating-point tensor)\n", t.name, t.dtype);
      continue;
    }
    out.emplace_back(t.name, read_safetensor(f, t));
  }
  if (out.empty()) throw Error("'" + path + "' holds no F32/F16/BF16/F64 tensor");
  return out;
}

void add_report_command(CLI::App& app, ReportOptions& o) {
  auto* c = app.add_subcommand("report", "Quantization error of every block scheme on the tensors of a file");
  c->add_option("--in", o.in, "Input .safetensors or .npy file")->required();
  c->add_option("--schemes", o.schemes, "all, or a comma-separated list of schemes");
  c->add_option("--tensor", o.tensor, "Only this tensor of a .safetensors file");
  c->add_option("--round", o.round, "Element rounding mode: " + choices<Rounding>("rne"));
  c->add_option("--scale-rule", o.scale_rule,
                "Use this scale rule for every scheme it fits (E8M0 and FP32 rules: all but nvfp4; nvfp4: nvfp4); "
                "the rule column shows the rule used");
  c->add_flag("--per-tensor", o.per_tensor, "Also print one row per (tensor, scheme)");
  c->add_flag("--csv", o.csv, "CSV output (per tensor and overall rows)");
  c->add_flag("--quiet", o.quiet, "No progress on stderr");
}

int run_report(const ReportOptions& o) {
  std::vector<const Scheme*> list;
  if (o.schemes == "all") {
    for (const auto& s : schemes()) list.push_back(&s);
  } else {
    std::size_t p = 0;
    while (p <= o.schemes.size()) {
      const std::size_t q = o.schemes.find(',', p);
      const std::string name = o.schemes.substr(p, q == std::string::npos ? std::string::npos : q - p);
      if (!name.empty()) list.push_back(&find_scheme(name));
      if (q == std::string::npos) break;
      p = q + 1;
    }
    if (list.empty()) throw Error("--schemes is empty; give all or a comma-separated list");
  }
  QuantOptions qo;
  qo.rounding.rounding = parse_rounding(o.round);
  std::optional<ScaleRule> override_rule;
  if (!o.scale_rule.empty()) override_rule = parse_scale_rule(o.scale_rule);
  // The rule each scheme runs with: the override where it fits (nvfp4 only with nvfp4), else the default.
  auto rule_of = [&](const Scheme& s) {
    if (override_rule && ((*override_rule == ScaleRule::nvfp4) == (s.default_rule == ScaleRule::nvfp4)))
      return *override_rule;
    return s.default_rule;
  };
  const auto tensors = load_tensors(o.in, o.tensor, o.quiet);

  std::map<std::string, ErrorStats> overall;
  struct Row {
    std::string tensor, scheme, rule;
    ErrorStats s;
  };
  std::vector<Row> rows;
  std::size_t total = 0;
  for (const auto& t : tensors) total += t.second.element_count();
  std::size_t done = 0, k = 0;
  for (const auto& [name, arr] : tensors) {
    ++k;
    const std::vector<float> x = npy_as_f32(arr);
    if (!o.quiet)
      fmt::print(stderr, "[{:>3}/{}] {:5.1f}%  {} ({} elements)\n", k, tensors.size(),
                 total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0, name, x.size());
    done += x.size();
    if (x.empty()) continue;
    for (const Scheme* s : list) {
      qo.rule = rule_of(*s);
      const QuantizedTensor q = quantize(x, arr.shape, *s, qo);
      const ErrorStats st = error_stats(x, q, dequantize(q));
      overall[s->name].merge(st);
      rows.push_back({name, s->name, std::string(scale_rule_name(q.rule)), st});
    }
  }
  if (!o.quiet) fmt::print(stderr, "[done] {} tensors, {} elements, {} schemes\n", tensors.size(), total, list.size());

  if (o.csv) {
    fmt::print("tensor,scheme,rule,elements,sqnr_db,max_abs_err,rel_frobenius,pct_saturated,pct_flushed,pct_nonfinite,"
               "scale_min,scale_max\n");
    auto line = [](const std::string& t, const std::string& sc, const std::string& r, const ErrorStats& s) {
      fmt::print("{},{},{},{},{},{:.9g},{:.9g},{:.6f},{:.6f},{:.6f},{:.9g},{:.9g}\n", t, sc, r, s.count,
                 fmt_sqnr(s.sqnr_db()), s.max_abs_err, s.rel_frobenius(), pct(s.saturated, s.count),
                 pct(s.flushed, s.count), pct(s.nonfinite_out, s.count), s.scale_min, s.scale_max);
    };
    for (const auto& r : rows) line(r.tensor, r.scheme, r.rule, r.s);
    for (const Scheme* s : list) line("ALL", s->name, std::string(scale_rule_name(rule_of(*s))), overall[s->name]);
    return 0;
  }
  const auto header = [] {
    fmt::print("{:<18} {:<10} {:>9} {:>12} {:>11} {:>8} {:>8} {:>8}  {}\n", "scheme", "rule", "SQNR dB", "max abs err",
               "rel Frob", "% sat", "% ftz", "% NaN", "scale range");
  };
  if (o.per_tensor) {
    std::string last;
    for (const auto& r : rows) {
      if (r.tensor != last) {
        fmt::print("\n== {}\n", r.tensor);
        header();
        last = r.tensor;
      }
      fmt::print("{:<18} {:<10} {:>9} {:>12.4g} {:>11.4g} {:>8.4f} {:>8.4f} {:>8.4f}  {}\n", r.scheme, r.rule,
                 fmt_sqnr(r.s.sqnr_db()), r.s.max_abs_err, r.s.rel_frobenius(), pct(r.s.saturated, r.s.count),
                 pct(r.s.flushed, r.s.count), pct(r.s.nonfinite_out, r.s.count), scale_range(r.s));
    }
    fmt::print("\n");
  }
  fmt::print("== overall: {} tensors, {} elements ({})\n", tensors.size(), total, o.in);
  header();
  for (const Scheme* s : list) {
    const ErrorStats& st = overall[s->name];
    fmt::print("{:<18} {:<10} {:>9} {:>12.4g} {:>11.4g} {:>8.4f} {:>8.4f} {:>8.4f}  {}\n", s->name,
               scale_rule_name(rule_of(*s)), fmt_sqnr(st.sqnr_db()), st.max_abs_err, st.rel_frobenius(),
               pct(st.saturated, st.count), pct(st.flushed, st.count), pct(st.nonfinite_out, st.count), scale_range(st));
  }
  return 0;
}

}  // namespace minifloat::cli
