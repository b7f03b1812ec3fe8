// SPDX-License-Identifier: Apache-2.0
// cmd_report.cpp: `minifloat report` (per-scheme SQNR, errors, saturation, flush and scale range),
// streamed piece by piece.
#include "cmd_report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

#include "common.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/error_stats.hpp"
#include "minifloat/quant.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/safetensors.hpp"
#include "minifloat/tensor_file.hpp"
#include "options.hpp"

namespace minifloat::cli {
namespace {

std::string fmt_scale(double v) {
  int e;
  const double f = std::frexp(v, &e);
  if (f == 0.5) return fmt::format("2^{}", e - 1);
  return fmt::format("{:.3g}", v);
}
// The sub-pieces of p in its C order, each of at most kErrorChunk elements (whole rows while a row fits,
// else parts of one row), with the offset of each in p: f(sub-piece, offset).
template <class F>
void for_subpieces(const QuantPiece& p, F f) {
  constexpr std::size_t kErrorChunk = std::size_t{1} << 16;
  if (p.rows == 0 || p.cols == 0) return;
  if (p.cols <= kErrorChunk) {
    const std::size_t k = kErrorChunk / p.cols;
    for (std::size_t r = 0; r < p.rows; r += k)
      f(QuantPiece{p.row + r, p.col, std::min(k, p.rows - r), p.cols}, r * p.cols);
    return;
  }
  for (std::size_t r = 0; r < p.rows; ++r)
    for (std::size_t c = 0; c < p.cols; c += kErrorChunk)
      f(QuantPiece{p.row + r, p.col + c, 1, std::min(kErrorChunk, p.cols - c)}, r * p.cols + c);
}

/// The scale families and their rules, from the rules: "E8M0: ocp_floor rceil ceil even tosa; FP32: …; nvfp4".
std::string scale_families_help() {
  std::string out;
  for (const ScaleFamily f : {ScaleFamily::e8m0, ScaleFamily::fp32, ScaleFamily::nvfp4, ScaleFamily::ue5m3}) {
    const std::vector<ScaleRule> rules = rules_in(f);
    std::string names;
    for (const ScaleRule r : rules) (names += names.empty() ? "" : " ") += name(r);
    (out += out.empty() ? "" : "; ") += rules.size() > 1 ? std::string(family_label(f)) + ": " + names : names;
  }
  return out;
}

std::string scale_range(const ErrorStats& s) {
  if (!(s.scale_max > 0)) return "-";
  return fmt_scale(s.scale_min) + ".." + fmt_scale(s.scale_max);
}
std::string fmt_sqnr(double db) {
  if (std::isnan(db)) return "nan";
  return std::isinf(db) ? std::string(db > 0 ? "inf" : "-inf") : fmt::format("{:.2f}", db);
}
double pct(std::uint64_t k, std::uint64_t n) {
  return n ? 100.0 * static_cast<double>(k) / static_cast<double>(n) : 0.0;
}

/// "; skipped 2: position_ids (I64), codes (F8_E4M3)" — the tensors of a whole .safetensors file that
/// locate_tensors did not return (`taken`: the file positions it returned), or "".
std::string skipped_note(const ReportOptions& o, const std::vector<std::size_t>& taken) {
  if (!o.tensor.empty() || o.in.size() < 12 || o.in.rfind(".safetensors") != o.in.size() - 12) return "";
  const SafetensorsFile f = read_safetensors_header(o.in);
  std::string names;
  std::size_t count = 0;
  for (std::size_t i = 0; i < f.tensors.size(); ++i) {
    if (std::find(taken.begin(), taken.end(), i) != taken.end()) continue;
    ++count;
    (names += names.empty() ? "" : ", ") += f.tensors[i].name + " (" + f.tensors[i].dtype + ")";
  }
  return count == 0 ? "" : fmt::format("; skipped {}: {}", count, names);
}

}  // namespace

void add_report_command(CLI::App& app, ReportOptions& o) {
  auto* c = app.add_subcommand("report", "Quantization error of every block scheme on the tensors of a file");
  c->add_option("--in", o.in, "Input .safetensors or .npy file")->required();
  c->add_option("--schemes", o.schemes,
                "all, or a comma-separated list of schemes: names or specs ELEMENT/ROWSxCOLS/SCALE:RULE[/KEY=VALUE...] "
                "(`minifloat names scheme`)");
  c->add_option("--tensor", o.tensor, "Only this tensor of a .safetensors file");
  c->add_option("--round", o.round, "Element rounding mode: " + choices<Rounding>("rne"));
  c->add_flag("--ftz", o.ftz, kFtzHelp);
  c->add_flag("--daz", o.daz, kDazHelp);
  c->add_option(
       "--seed", o.seed,
       "With --round sr (required): Philox seed; element i of the tensor at position k of the file (0-based, data "
       "order, skipped tensors counted; a .npy file: 0) reads sr_bits(seed, k, 0, i), with or without --tensor")
      ->type_name("UINT64")
      ->check(uint64_text);
  c->add_option("--scale-rule", o.scale_rule,
                "Use this scale rule for every listed scheme of its scale family (" + scale_families_help() +
                    "); the rule column shows the rule used");
  c->add_flag("--source-via-f32", o.source_via_f32,
              "Round F64 tensors to f32 (RNE) first, as ml_dtypes and PyTorch casts do (default: exact f64 values)");
  c->add_flag("--integers-as-values", o.integers_as_values,
              "Read U8/I8/U16 (" + integer_value_dtypes() +
                  ") tensors as numbers (default: skipped as codes); <u4 and <u8 are refused either way");
  c->add_flag("--per-tensor", o.per_tensor, "Also print one row per (tensor, scheme)");
  c->add_flag("--csv", o.csv, "CSV output (per tensor and overall rows)");
  c->add_flag("--quiet", o.quiet, "No progress on stderr");
  c->add_option("--threads", o.threads,
                "Threads per piece, 0..1024 (default 0: all cores); the figures do not depend on it");
}

int run_report(const ReportOptions& o) {
  // ---- every option, before any work
  struct Entry {
    std::string label;  // the column name: the scheme name as listed (named) or its canonical spec
    Scheme scheme;
  };
  std::vector<Entry> list;
  if (o.schemes == "all") {
    for (const auto& e : scheme_table().entries) list.push_back({std::string(e.name), e.value});
  } else {
    // the one list parser (registry.hpp): no empty item, no scheme twice (two spellings of one scheme included)
    if (o.schemes.empty()) throw Error("--schemes is empty; give all or a comma-separated list");
    list = with_option("--schemes", [&] {
      return parse_list<Entry>(
          o.schemes, "scheme",
          [](const std::string& name) {
            const Scheme s = parse_scheme(name);
            return Entry{scheme_name(s), s};
          },
          [](const Entry& e) { return e.label; });
    });
  }
  QuantOptions qo;
  qo.rounding = {parse_option<Rounding>("--round", o.round), qo.rounding.overflow, {}, 8, o.ftz, o.daz};
  SrEncodeFlags srf;
  srf.rounding = qo.rounding.rounding;
  srf.seed = o.seed;
  const SrEncodePlan sr = validate_sr_encode_flags(srf);  // --seed required with sr, refused without
  qo.sr_seed = sr.seed;
  const auto threads = static_cast<unsigned>(parse_int_option("--threads", o.threads, kQuantThreads));
  if (o.source_via_f32) qo.profile.source_via_f32 = true;
  if (!o.scale_rule.empty()) {
    const ScaleRule r = parse_option<ScaleRule>("--scale-rule", o.scale_rule);
    bool used = false;
    for (Entry& e : list)
      if (family(e.scheme.rule) == family(r)) {
        e.scheme.rule = r;
        used = true;
      }
    if (!used)
      throw Error("--scale-rule " + o.scale_rule +
                  " fits none of the listed schemes (a rule replaces one of the same scale "
                  "family: E8M0, FP32 or nvfp4)");
    for (const Entry& e : list) with_option("--scale-rule", [&] { validate_scheme(e.scheme); });
  }
  std::vector<std::size_t> file_index;  // each tensor's position in the file (its SR stream)
  const auto tensors = locate_tensors("report", o.in, o.tensor, o.integers_as_values, o.quiet, &file_index);
  if (o.source_via_f32) {
    bool any = false;
    for (const auto& t : tensors) any = any || t.dtype == "<f8";
    if (!any) throw Error("--source-via-f32 applies to F64 (<f8) tensors; '" + o.in + "' holds none");
  }
  if (o.integers_as_values) {
    bool any = false;
    for (const auto& t : tensors) any = any || is_integer_dtype(t.dtype);
    if (!any) throw Error("--integers-as-values applies to integer tensors (U8 I8 U16); '" + o.in + "' holds none");
  }
  for (const auto& t : tensors)
    for (const Entry& e : list) BlockQuantizer(t.shape, e.scheme, qo);

  // ---- the work: per tensor, per scheme, piece by piece in file order
  std::map<std::string, ErrorStats> overall;
  struct Row {
    std::string tensor, scheme, rule;
    ErrorStats s;
  };
  std::vector<Row> rows;
  std::size_t total = 0;
  for (const auto& t : tensors) total += t.element_count();
  std::size_t done = 0, k = 0;
  std::vector<std::byte> scratch;
  std::vector<float> xf;
  std::vector<double> xd, deq;
  std::vector<std::uint8_t> codes;
  struct Loaded {
    std::size_t tensor = 0, first = 0, size = 0;  // tensor 0: none (k counts from 1)
  } loaded;
  for (const TensorLocation& t : tensors) {
    ++k;
    const std::size_t n = t.element_count();
    auto progress = [&](double within, const std::string& what) {
      if (o.quiet) return;
      const double all =
          total ? 100.0 * (static_cast<double>(done) + within * static_cast<double>(n)) / static_cast<double>(total)
                : 100.0;
      fmt::print(stderr, "[{:>3}/{}] {:5.1f}%  {} ({} elements){}\n", k, tensors.size(), all, t.name, n, what);
    };
    progress(0, "");
    if (n == 0) continue;
    const TensorReader rd(t);
    const bool f64 = t.dtype == "<f8";
    qo.sr_stream = static_cast<std::uint32_t>(file_index[k - 1]);
    double next_note = 0.1;
    for (std::size_t si = 0; si < list.size(); ++si) {
      const Entry& e = list[si];
      BlockQuantizer bq(t.shape, e.scheme, qo);
      const QuantPlan plan = bq.plan(kPieceElements);
      const std::size_t np = plan.count();
      auto load = [&](const QuantPiece& p) {
        const std::size_t first = p.offset(plan.file_cols);
        // the same elements as the last load (a tensor of one piece, under every scheme): already here
        if (loaded.tensor == k && loaded.first == first && loaded.size == p.size()) return;
        loaded = {k, first, p.size()};
        if (f64) {
          xd.resize(p.size());
          rd.read(first, std::span<double>(xd), scratch);
        } else {
          xf.resize(p.size());
          rd.read(first, std::span<float>(xf), scratch);
        }
      };
      if (plan.first_pass)
        for (std::size_t pi = 0; pi < np; ++pi) {
          const QuantPiece p = plan.piece(pi);
          load(p);
          if (f64) bq.observe(p, std::span<const double>(xd), threads);
          else bq.observe(p, std::span<const float>(xf), threads);
        }
      ErrorStats st;
      for (std::size_t pi = 0; pi < np; ++pi) {
        const QuantPiece p = plan.piece(pi);
        load(p);
        codes.resize(p.size());
        if (f64) bq.quantize(p, std::span<const double>(xd), codes, threads);
        else bq.quantize(p, std::span<const float>(xf), codes, threads);
        if (bq.result().transform.rht16) {  // issue 25: the errors in the original domain (exact inverse, f64)
          deq.resize(p.size());
          std::vector<double> back(p.size());
          bq.dequantize(p, codes, std::span<double>(deq));
          untransform(bq.result(), deq, std::span<double>(back));
          if (f64) accumulate_errors(st, std::span<const double>(xd), back);
          else accumulate_errors(st, std::span<const float>(xf), back);
        } else {
          // the errors sub-piece by sub-piece (in the piece's C order: the same stream), so that the
          // dequantized values stay in cache
          for_subpieces(p, [&](const QuantPiece& sp, std::size_t at) {
            deq.resize(sp.size());
            bq.dequantize(sp, std::span<const std::uint8_t>(codes).subspan(at, sp.size()), std::span<double>(deq));
            if (f64) accumulate_errors(st, std::span<const double>(xd).subspan(at, sp.size()), deq);
            else accumulate_errors(st, std::span<const float>(xf).subspan(at, sp.size()), deq);
          });
        }
        const double within = (static_cast<double>(si) + static_cast<double>(pi + 1) / static_cast<double>(np)) /
                              static_cast<double>(list.size());
        if (n > kPieceElements && within >= next_note && within < 1.0) {  // a tensor of several pieces
          progress(within, fmt::format(": {:.0f}% of the tensor ({}, piece {}/{})", 100 * within, e.label, pi + 1, np));
          while (next_note <= within) next_note += 0.1;
        }
      }
      finish_error_stats(st, bq.result());
      overall[e.label].merge(st);
      rows.push_back({t.name, e.label, std::string(scale_rule_name(e.scheme.rule)), st});
    }
    done += n;
  }
  if (!o.quiet) fmt::print(stderr, "[done] {} tensors, {} elements, {} schemes\n", tensors.size(), total, list.size());

  if (o.csv) {
    fmt::print(
        "tensor,scheme,rule,elements,sqnr_db,max_abs_err,rel_frobenius,pct_saturated,pct_flushed,pct_nonfinite,"
        "scale_min,scale_max\n");
    auto line = [](const std::string& tn, const std::string& sc, const std::string& r, const ErrorStats& s) {
      fmt::print("{},{},{},{},{},{:.9g},{:.9g},{:.6f},{:.6f},{:.6f},{:.9g},{:.9g}\n", tn, sc, r, s.count,
                 fmt_sqnr(s.sqnr_db()), s.max_abs_err, s.rel_frobenius(), pct(s.saturated, s.count),
                 pct(s.flushed, s.count), pct(s.nonfinite_out, s.count), s.scale_min, s.scale_max);
    };
    for (const auto& r : rows) line(r.tensor, r.scheme, r.rule, r.s);
    for (const Entry& e : list) line("ALL", e.label, std::string(scale_rule_name(e.scheme.rule)), overall[e.label]);
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
  fmt::print("== overall: {} tensors, {} elements ({}){}\n", tensors.size(), total, o.in, skipped_note(o, file_index));
  header();
  for (const Entry& e : list) {
    const ErrorStats& st = overall[e.label];
    fmt::print("{:<18} {:<10} {:>9} {:>12.4g} {:>11.4g} {:>8.4f} {:>8.4f} {:>8.4f}  {}\n", e.label,
               scale_rule_name(e.scheme.rule), fmt_sqnr(st.sqnr_db()), st.max_abs_err, st.rel_frobenius(),
               pct(st.saturated, st.count), pct(st.flushed, st.count), pct(st.nonfinite_out, st.count),
               scale_range(st));
  }
  return 0;
}

}  // namespace minifloat::cli
