// SPDX-License-Identifier: Apache-2.0
// cmd_probe_dot.cpp: `probe gen --model M` and `probe check` of such a folder (check_dot.hpp): the
// file flow for dot-product / GEMM kernels in any language (see cmd_probe.hpp).
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <tuple>

#include "cmd_probe.hpp"
#include "minifloat/check/check_dot.hpp"
#include "minifloat/check/probe_files.hpp"
#include "minifloat/file_io.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/registry.hpp"
#include "options.hpp"

namespace minifloat::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

std::string code_descr(Format f) { return f.bits <= 8 ? "|u1" : "<u2"; }
std::string result_descr(Format f) { return f == formats::f16 ? "<f2" : "<f4"; }

NpyArray words(const std::string& descr, std::vector<std::size_t> shape, const std::vector<std::uint64_t>& w) {
  NpyArray a;
  a.dtype = descr;
  a.shape = std::move(shape);
  const std::size_t item = npy_item_size(descr);
  a.data.resize(w.size() * item);
  for (std::size_t i = 0; i < w.size(); ++i) std::memcpy(a.data.data() + i * item, &w[i], item);
  return a;
}
std::vector<std::uint64_t> unwords(const NpyArray& a) {
  const std::size_t n = a.element_count(), item = a.item_size();
  std::vector<std::uint64_t> v(n, 0);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(&v[i], a.data.data() + i * item, std::min<std::size_t>(item, 8));
  return v;
}

/// The operands of a dot target as files: a.npy, b.npy (N×K codes), c.npy (N f32 values).
void write_operands(OutputSet& outs, const fs::path& dir, const check::DotTarget& t,
                    std::span<const check::DotCase> cases, const std::string& what) {
  const std::size_t n = cases.size(), k = t.k;
  std::vector<std::uint64_t> a(n * k), b(n * k), c(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::copy(cases[i].a.begin(), cases[i].a.end(), a.begin() + static_cast<std::ptrdiff_t>(i * k));
    std::copy(cases[i].b.begin(), cases[i].b.end(), b.begin() + static_cast<std::ptrdiff_t>(i * k));
    c[i] = cases[i].c;
  }
  const OutputId ia = outs.add_output(dir / "a.npy", what + " a.npy"),
                 ib = outs.add_output(dir / "b.npy", what + " b.npy"),
                 ic = outs.add_output(dir / "c.npy", what + " c.npy");
  write_npy(outs, ia, words(code_descr(t.a), {n, k}, a));
  write_npy(outs, ib, words(code_descr(t.b), {n, k}, b));
  write_npy(outs, ic, words("<f4", {n}, c));
}

/// Read a, b, c (and their shapes) of N cases of `t` from `dir`; throws Error naming the file.
std::vector<check::DotCase> read_operands(const fs::path& dir, const check::DotTarget& t) {
  const NpyArray a = read_npy(dir / "a.npy"), b = read_npy(dir / "b.npy"), c = read_npy(dir / "c.npy");
  for (const auto& [arr, f, nm] : {std::tuple{&a, t.a, "a.npy"}, std::tuple{&b, t.b, "b.npy"}}) {
    if (arr->dtype != code_descr(f))
      throw Error((dir / nm).string() + " has dtype " + arr->dtype + "; the manifest's " + format_name(f) + " needs " +
                  code_descr(f));
    if (arr->shape.size() != 2 || arr->shape[1] != t.k)
      throw Error((dir / nm).string() + " must have shape (N, " + std::to_string(t.k) + ")");
  }
  if (c.dtype != "<f4" || c.shape.size() != 1) throw Error((dir / "c.npy").string() + " must be a 1-d <f4 array");
  const std::size_t n = c.shape[0];
  if (a.shape[0] != n || b.shape[0] != n)
    throw Error(dir.string() + ": a.npy, b.npy and c.npy hold different numbers of dot products");
  const std::vector<std::uint64_t> wa = unwords(a), wb = unwords(b), wc = unwords(c);
  std::vector<check::DotCase> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i].a.assign(wa.begin() + static_cast<std::ptrdiff_t>(i * t.k),
                  wa.begin() + static_cast<std::ptrdiff_t>((i + 1) * t.k));
    v[i].b.assign(wb.begin() + static_cast<std::ptrdiff_t>(i * t.k),
                  wb.begin() + static_cast<std::ptrdiff_t>((i + 1) * t.k));
    v[i].c = wc[i];
    for (std::size_t l = 0; l < t.k; ++l)
      if ((v[i].a[l] & ~code_mask(t.a)) != 0 || (v[i].b[l] & ~code_mask(t.b)) != 0)
        throw Error(fmt::format("{}: element ({}, {}) is not a code of its format", dir.string(), i, l));
  }
  return v;
}

}  // namespace

check::DotTarget dot_target_of(const ProbeGenOptions& o) {
  check::DotTarget t;
  t.model = with_option("--model", [&] { return parse_dot_model(*o.model); });
  t.a = with_option("--format", [&] { return parse_format(o.format); });
  t.b = o.format_b ? with_option("--format-b", [&] { return parse_format(*o.format_b); }) : t.a;
  if (o.k) t.k = static_cast<std::size_t>(parse_int_option("--k", *o.k, {1, 4096}));
  const auto ops = operand_formats(t.model);
  for (const auto& [f, opt] : {std::pair{t.a, "--format"}, std::pair{t.b, "--format-b"}}) {
    if (!ops.empty() && std::find(ops.begin(), ops.end(), f) == ops.end()) {
      std::string acc;
      for (const Format& x : ops) {
        if (!acc.empty()) acc += ", ";
        acc += format_name(x);
      }
      throw Error(std::string(opt) + " " + format_name(f) + ": the tensor core of " + t.model.name +
                  " multiplies only " + acc);
    }
  }
  with_option("--format", [&] {
    check::validate(t);
    return 0;
  });
  return t;
}

int run_probe_gen_dot(const ProbeGenOptions& o) {
  if (o.scheme || o.packing || o.mx_quirks)
    throw Error(
        "--scheme, --packing, --mx-quirks do not apply with --model (dot/GEMM operands are written one code per "
        "element); accepted with --model: --format, --format-b, --k or --shape, --count, --seed, --out");
  if (o.ftz || o.daz || o.scale_select)
    throw Error(std::string(o.ftz   ? "--ftz"
                            : o.daz ? "--daz"
                                    : "--scale-select") +
                " does not apply with --model (the accumulation model fixes every rounding); accepted with --model: "
                "--format, --format-b, --k or --shape, --count, --seed, --out");
  if (o.shape) return run_probe_gen_gemm(o);
  if (o.from != "f32" || o.round != "rne" || o.overflow.has_value() || o.profile != "ocp" || o.sr_variant ||
      o.sr_bits || o.ulps)
    throw Error(
        "--from, --round, --overflow, --profile, --sr-*, --ulps do not apply with --model (the accumulation "
        "model fixes every rounding); accepted with --model: --format, --format-b, --k, --count, --seed, --out");
  const check::DotTarget t = dot_target_of(o);
  check::DotGenOptions g;
  g.seed = std::stoull(*o.seed);
  g.count = 4096;
  if (o.count) g.count = static_cast<std::size_t>(parse_int_option("--count", *o.count, {1, 10000000}));
  create_output_folder(o.out, "--out");  // file_io.hpp: one level, its parent must exist
  const std::vector<check::DotCase> cases = check::generate(t, g);
  const std::size_t n = cases.size();
  std::vector<std::uint64_t> cls(n), exp(n);
  for (std::size_t i = 0; i < n; ++i) {
    cls[i] = static_cast<std::uint64_t>(cases[i].cls);
    exp[i] = check::expected(t, cases[i]).code;
  }
  const Format out = check::result_format(t);
  ordered_json m;
  m["generator"] = "minifloat probe gen";
  m["version"] = "0.1.0";
  m["format_version"] = 1;
  m["target"] = {{"kind", std::string(name(check::ProbeKind::dot))},
                 {"a", format_name(t.a)},
                 {"b", format_name(t.b)},
                 {"k", t.k},
                 {"model", t.model.name},
                 {"result", format_name(out)}};
  m["target_text"] = check::describe(t);
  m["seed"] = g.seed;
  m["count"] = g.count;
  m["cases"] = n;
  m["classes"] = ordered_json::array();
  for (const auto& e : name_table(check::DotClass{}).entries) m["classes"].push_back(std::string(e.name));
  m["files"] = {{"a", "a.npy"},
                {"b", "b.npy"},
                {"c", "c.npy"},
                {"classes", "classes.npy"},
                {"expected", "expected.npy"},
                {"result_dtype", result_descr(out)}};
  const fs::path dir(o.out);
  OutputSet outs;
  write_operands(outs, dir, t, cases, "--out");
  const OutputId i_cls = outs.add_output(dir / "classes.npy", "--out classes.npy");
  const OutputId i_exp = outs.add_output(dir / "expected.npy", "--out expected.npy");
  const OutputId i_man = outs.add_output(dir / "manifest.json", "--out manifest.json");
  write_npy(outs, i_cls, words("|u1", {n}, cls));
  write_npy(outs, i_exp, words(result_descr(out), {n}, exp));
  outs.write(i_man, m.dump(2) + "\n");
  outs.commit();
  fmt::print("minifloat: wrote {} dot products for {} under {}\n", n, check::describe(t), o.out);
  return 0;
}

int run_probe_check_dot(const ProbeCheckOptions& o, const std::string& manifest_text) {
  const fs::path dir(o.dir);
  const check::DotTarget t = check::parse_probe_manifest(manifest_text, (dir / "manifest.json").string()).dot;
  ProbeCheckRun run(o, check::ProbeKind::dot);
  const check::DotOptions opt = run.options(check::DotOptions{});
  std::vector<check::DotCase> cases = read_operands(dir, t);
  const std::size_t n = cases.size();
  const std::vector<std::uint64_t> cls = unwords(read_npy(dir / "classes.npy"));
  if (cls.size() != n) throw Error(o.dir + ": classes.npy and a.npy differ in length");
  for (std::size_t i = 0; i < n; ++i) cases[i].cls = run.class_at<check::DotClass>(cls[i], i, "dot class");
  const std::vector<std::uint64_t> got = check::got_results(read_npy(o.got), t, n, "--got");

  check::DotKernel rerun;
  if (const auto scratch =
          run.rerun_scratch({"{a}", "{b}", "{c}", "{out}"}, {}, "a dot", "python k.py {a} {b} {c} {out}")) {
    rerun = [&, tmp = *scratch](std::span<const check::DotCase> c, std::span<std::uint64_t> out) {
      const fs::path pout = tmp / "got.npy";
      fs::remove(pout);
      {
        OutputSet s;
        write_operands(s, tmp, t, c, "--rerun");
        s.commit();
      }
      run_rerun(*o.rerun, {{"{a}", tmp / "a.npy"}, {"{b}", tmp / "b.npy"}, {"{c}", tmp / "c.npy"}, {"{out}", pout}},
                {"{out}"});
      const std::vector<std::uint64_t> w = check::got_results(read_npy(pout), t, c.size(), "--rerun {out}");
      std::copy(w.begin(), w.end(), out.begin());
    };
  }
  const check::DotReport r = check::evaluate_dot(t, cases, got, opt, rerun);
  // The minimal cases as minimal_a.npy, minimal_b.npy, minimal_c.npy (a kernel's own input layout).
  return run.finish(r, [&](OutputSet& outs) {
    std::vector<check::DotCase> mins;
    for (const auto& mm : r.minimal) mins.push_back(mm.c);
    const fs::path& mdir = dir;
    const std::size_t mn = mins.size(), k = t.k;
    std::vector<std::uint64_t> a(mn * k), b(mn * k), c(mn);
    for (std::size_t i = 0; i < mn; ++i) {
      std::copy(mins[i].a.begin(), mins[i].a.end(), a.begin() + static_cast<std::ptrdiff_t>(i * k));
      std::copy(mins[i].b.begin(), mins[i].b.end(), b.begin() + static_cast<std::ptrdiff_t>(i * k));
      c[i] = mins[i].c;
    }
    const OutputId ia = outs.add_output(mdir / "minimal_a.npy", "minimal_a.npy");
    const OutputId ib = outs.add_output(mdir / "minimal_b.npy", "minimal_b.npy");
    const OutputId ic = outs.add_output(mdir / "minimal_c.npy", "minimal_c.npy");
    write_npy(outs, ia, words(code_descr(t.a), {mn, k}, a));
    write_npy(outs, ib, words(code_descr(t.b), {mn, k}, b));
    write_npy(outs, ic, words("<f4", {mn}, c));
  });
}

// ---- GEMM folders: probe gen --model M --shape MxNxK, probe check of such a folder -----------------

namespace {

struct Shape {
  std::size_t m = 0, n = 0, k = 0;
};

Shape parse_shape(const std::string& text) {
  const std::string bad =
      "--shape '" + quote_input(text) + "' is not MxNxK; accepted: M and N 1..1024, K 1..4096, e.g. --shape 64x64x32";
  std::size_t v[3] = {0, 0, 0}, part = 0;
  bool digit = false;
  for (char ch : text) {
    if (ch == 'x' || ch == 'X') {
      if (!digit || ++part > 2) throw Error(bad);
      digit = false;
    } else if (ch >= '0' && ch <= '9') {
      v[part] = v[part] * 10 + static_cast<std::size_t>(ch - '0');
      if (v[part] > 100000) throw Error(bad);
      digit = true;
    } else {
      throw Error(bad);
    }
  }
  if (part != 2 || !digit || v[0] < 1 || v[0] > 1024 || v[1] < 1 || v[1] > 1024 || v[2] < 1 || v[2] > 4096)
    throw Error(bad);
  return {v[0], v[1], v[2]};
}

/// One dot case per output element of D = A·B + C (row-major A m×k, B k×n, C m×n words), D's order.
std::vector<check::DotCase> gemm_cases(const Shape& s, const std::vector<std::uint64_t>& A,
                                       const std::vector<std::uint64_t>& B, const std::vector<std::uint64_t>& C) {
  std::vector<check::DotCase> v(s.m * s.n);
  for (std::size_t i = 0; i < s.m; ++i)
    for (std::size_t j = 0; j < s.n; ++j) {
      check::DotCase& c = v[i * s.n + j];
      c.a.assign(A.begin() + static_cast<std::ptrdiff_t>(i * s.k),
                 A.begin() + static_cast<std::ptrdiff_t>((i + 1) * s.k));
      c.b.resize(s.k);
      for (std::size_t l = 0; l < s.k; ++l) c.b[l] = B[l * s.n + j];
      c.c = C[i * s.n + j];
      c.cls = check::DotClass::random;
    }
  return v;
}

void write_gemm(OutputSet& outs, const fs::path& dir, const check::DotTarget& t, const Shape& s,
                const std::vector<std::uint64_t>& A, const std::vector<std::uint64_t>& B,
                const std::vector<std::uint64_t>& C, const std::string& what, const std::string& prefix = "") {
  const OutputId ia = outs.add_output(dir / (prefix + "a.npy"), what + " " + prefix + "a.npy");
  const OutputId ib = outs.add_output(dir / (prefix + "b.npy"), what + " " + prefix + "b.npy");
  const OutputId ic = outs.add_output(dir / (prefix + "c.npy"), what + " " + prefix + "c.npy");
  write_npy(outs, ia, words(code_descr(t.a), {s.m, s.k}, A));
  write_npy(outs, ib, words(code_descr(t.b), {s.k, s.n}, B));
  write_npy(outs, ic, words("<f4", {s.m, s.n}, C));
}

}  // namespace

int run_probe_gen_gemm(const ProbeGenOptions& o) {
  if (o.k || o.count)
    throw Error("--shape MxNxK gives K and the number of outputs; --k and --count do not apply with it");
  const Shape s = parse_shape(*o.shape);
  ProbeGenOptions d = o;
  d.shape.reset();
  d.k = std::to_string(s.k);
  if (o.from != "f32" || o.round != "rne" || o.overflow.has_value() || o.profile != "ocp" || o.sr_variant ||
      o.sr_bits || o.ulps)
    throw Error(
        "--from, --round, --overflow, --profile, --sr-*, --ulps do not apply with --model (the accumulation "
        "model fixes every rounding); accepted with --model --shape: --format, --format-b, --seed, --out");
  const check::DotTarget t = dot_target_of(d);
  const std::size_t D = std::min(s.m, s.n);
  check::DotGenOptions g;
  g.seed = std::stoull(*o.seed);
  g.count = D;
  const std::vector<check::DotCase> pool = check::generate(t, g);
  std::vector<const check::DotCase*> diag(D);
  for (std::size_t i = 0; i < D; ++i) diag[i] = &pool[i * pool.size() / D];  // every class, evenly
  std::vector<std::uint64_t> A(s.m * s.k), B(s.k * s.n), C(s.m * s.n, 0);
  for (std::size_t i = 0; i < s.m; ++i)
    for (std::size_t l = 0; l < s.k; ++l) A[i * s.k + l] = diag[i % D]->a[l];
  for (std::size_t j = 0; j < s.n; ++j)
    for (std::size_t l = 0; l < s.k; ++l) B[l * s.n + j] = diag[j % D]->b[l];
  for (std::size_t i = 0; i < D; ++i) C[i * s.n + i] = diag[i]->c;
  std::vector<check::DotCase> cases = gemm_cases(s, A, B, C);
  std::vector<std::uint64_t> cls(cases.size()), exp(cases.size());
  for (std::size_t i = 0; i < D; ++i) cases[i * s.n + i].cls = diag[i]->cls;
  for (std::size_t e = 0; e < cases.size(); ++e) {
    cls[e] = static_cast<std::uint64_t>(cases[e].cls);
    exp[e] = check::expected(t, cases[e]).code;
  }
  create_output_folder(o.out, "--out");
  const Format out = check::result_format(t);
  ordered_json m;
  m["generator"] = "minifloat probe gen";
  m["version"] = "0.1.0";
  m["format_version"] = 1;
  m["target"] = {{"kind", std::string(name(check::ProbeKind::gemm))},
                 {"a", format_name(t.a)},
                 {"b", format_name(t.b)},
                 {"m", s.m},
                 {"n", s.n},
                 {"k", t.k},
                 {"model", t.model.name},
                 {"result", format_name(out)}};
  m["target_text"] =
      "gemm " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + ": " + check::describe(t);
  m["seed"] = g.seed;
  m["cases"] = cases.size();
  m["classes"] = ordered_json::array();
  for (const auto& e : name_table(check::DotClass{}).entries) m["classes"].push_back(std::string(e.name));
  m["files"] = {{"a", "a.npy"},
                {"b", "b.npy"},
                {"c", "c.npy"},
                {"classes", "classes.npy"},
                {"expected", "expected.npy"},
                {"result_dtype", result_descr(out)}};
  const fs::path dir(o.out);
  OutputSet outs;
  write_gemm(outs, dir, t, s, A, B, C, "--out");
  const OutputId i_cls = outs.add_output(dir / "classes.npy", "--out classes.npy");
  const OutputId i_exp = outs.add_output(dir / "expected.npy", "--out expected.npy");
  const OutputId i_man = outs.add_output(dir / "manifest.json", "--out manifest.json");
  write_npy(outs, i_cls, words("|u1", {s.m, s.n}, cls));
  write_npy(outs, i_exp, words(result_descr(out), {s.m, s.n}, exp));
  outs.write(i_man, m.dump(2) + "\n");
  outs.commit();
  fmt::print("minifloat: wrote a {}x{}x{} GEMM ({} outputs, {} designed on the diagonal) for {} under {}\n", s.m, s.n,
             s.k, cases.size(), D, check::describe(t), o.out);
  return 0;
}

int run_probe_check_gemm(const ProbeCheckOptions& o, const std::string& manifest_text) {
  const fs::path dir(o.dir);
  const check::ProbeManifest pm = check::parse_probe_manifest(manifest_text, (dir / "manifest.json").string());
  const check::DotTarget& t = pm.dot;
  const Shape s{pm.m, pm.n, t.k};
  ProbeCheckRun run(o, check::ProbeKind::gemm);
  const check::DotOptions opt = run.options(check::DotOptions{});
  const NpyArray a = read_npy(dir / "a.npy"), b = read_npy(dir / "b.npy"), c = read_npy(dir / "c.npy");
  for (const auto& [arr, f, nm, r0, r1] :
       {std::tuple{&a, t.a, "a.npy", s.m, s.k}, std::tuple{&b, t.b, "b.npy", s.k, s.n}}) {
    if (arr->dtype != code_descr(f))
      throw Error((dir / nm).string() + " has dtype " + arr->dtype + "; the manifest's " + format_name(f) + " needs " +
                  code_descr(f));
    if (arr->shape != std::vector<std::size_t>{r0, r1})
      throw Error((dir / nm).string() + " must have shape (" + std::to_string(r0) + ", " + std::to_string(r1) + ")");
  }
  if (c.dtype != "<f4" || c.shape != std::vector<std::size_t>{s.m, s.n})
    throw Error((dir / "c.npy").string() + " must be <f4 of shape (" + std::to_string(s.m) + ", " +
                std::to_string(s.n) + ")");
  const std::vector<std::uint64_t> A = unwords(a), B = unwords(b), C = unwords(c);
  for (std::size_t e = 0; e < A.size(); ++e)
    if ((A[e] & ~code_mask(t.a)) != 0)
      throw Error(fmt::format("{}: a.npy element {} is not {} code", o.dir, e, with_article(format_name(t.a))));
  for (std::size_t e = 0; e < B.size(); ++e)
    if ((B[e] & ~code_mask(t.b)) != 0)
      throw Error(fmt::format("{}: b.npy element {} is not {} code", o.dir, e, with_article(format_name(t.b))));
  std::vector<check::DotCase> cases = gemm_cases(s, A, B, C);
  const std::vector<std::uint64_t> cls = unwords(read_npy(dir / "classes.npy"));
  if (cls.size() != cases.size())
    throw Error(o.dir + ": classes.npy does not hold one class per output of D (" + std::to_string(cases.size()) + ")");
  for (std::size_t e = 0; e < cases.size(); ++e) cases[e].cls = run.class_at<check::DotClass>(cls[e], e, "dot class");
  // D is M×N, row-major: a flat or transposed array (N×M has the same element count) is refused by shape.
  const auto gemm_results = [&t](const NpyArray& d, std::size_t m, std::size_t n, const std::string& what) {
    if (d.shape != std::vector<std::size_t>{m, n})
      throw Error(fmt::format("{} has shape {}; a GEMM's D must have shape ({}, {}) = (M, N), row-major", what,
                              shape_text(d.shape), m, n));
    return check::got_results(d, t, m * n, what);
  };
  const std::vector<std::uint64_t> got = gemm_results(read_npy(o.got), s.m, s.n, "--got");

  check::DotKernel rerun;
  if (const auto scratch =
          run.rerun_scratch({"{a}", "{b}", "{c}", "{out}"}, {}, "a GEMM", "python gemm.py {a} {b} {c} {out}")) {
    check::GemmKernel gemm = [&, tmp = *scratch](std::size_t m, std::size_t n, std::size_t k,
                                                 std::span<const std::uint64_t> GA, std::span<const std::uint64_t> GB,
                                                 std::span<const std::uint64_t> GC, std::span<std::uint64_t> GD) {
      const fs::path pout = tmp / "got.npy";
      fs::remove(pout);
      {
        OutputSet w;
        write_gemm(w, tmp, t, {m, n, k}, {GA.begin(), GA.end()}, {GB.begin(), GB.end()}, {GC.begin(), GC.end()},
                   "--rerun");
        w.commit();
      }
      run_rerun(*o.rerun, {{"{a}", tmp / "a.npy"}, {"{b}", tmp / "b.npy"}, {"{c}", tmp / "c.npy"}, {"{out}", pout}},
                {"{out}"});
      const std::vector<std::uint64_t> w = gemm_results(read_npy(pout), m, n, "--rerun {out}");
      std::copy(w.begin(), w.end(), GD.begin());
    };
    rerun = check::gemm_as_dot(std::move(gemm), 1024);
  }
  const check::DotReport r = check::evaluate_dot(t, cases, got, opt, rerun);
  return run.finish(r, [&](OutputSet& outs) {  // the minimal cases as one GEMM whose diagonal they are (gemm_as_dot)
    const std::size_t mn = r.minimal.size();
    std::vector<std::uint64_t> MA(mn * s.k), MB(s.k * mn), MC(mn * mn, 0);
    for (std::size_t i = 0; i < mn; ++i) {
      const check::DotCase& mc = r.minimal[i].c;
      for (std::size_t l = 0; l < s.k; ++l) {
        MA[i * s.k + l] = mc.a[l];
        MB[l * mn + i] = mc.b[l];
      }
      MC[i * mn + i] = mc.c;
    }
    write_gemm(outs, dir, t, {mn, mn, s.k}, MA, MB, MC, "minimal", "minimal_");
  });
}

}  // namespace minifloat::cli
