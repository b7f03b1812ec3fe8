// SPDX-License-Identifier: Apache-2.0
// cmd_probe.cpp: `convert`, `decode --in`, `probe gen`, `probe check` (see cmd_probe.hpp).
#include "cmd_probe.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include "common.hpp"
#include "minifloat/check/check.hpp"
#include "minifloat/check/check_block.hpp"
#include "minifloat/check/probe_files.hpp"
#include "minifloat/convert_array.hpp"
#include "minifloat/convert_span.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/file_io.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/scale_layout.hpp"
#include "minifloat/stochastic.hpp"
#include "options.hpp"

namespace minifloat::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

/// The .npy descr that holds raw values of `f`: the float descrs for f32/f64/f16/bf16, else unsigned bits.
std::string source_descr(Format f) {
  if (f == formats::f32) return "<f4";
  if (f == formats::f64) return "<f8";
  if (f == formats::f16) return "<f2";
  if (f == formats::bf16) return "<V2";
  return f.bits <= 8 ? "|u1" : f.bits <= 16 ? "<u2" : f.bits <= 32 ? "<u4" : "<u8";
}

bool is_code_descr(const std::string& d) {
  return d == "|u1" || d == "<u1" || d == "|V1" || d == "<V1" || d == "|i1" || d == "<i1" || d == "<u2" || d == "<V2" ||
         d == "|V2" || d == "<f2" || d == "<u4" || d == "<u8";
}

std::vector<std::uint64_t> raw_words(const NpyArray& a) {
  const std::size_t n = a.element_count(), item = a.item_size();
  std::vector<std::uint64_t> v(n, 0);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(&v[i], a.data.data() + i * item, item);  // little-endian host
  return v;
}

NpyArray words_npy(const std::string& descr, std::vector<std::size_t> shape, const std::vector<std::uint64_t>& w) {
  NpyArray a;
  a.dtype = descr;
  a.shape = std::move(shape);
  const std::size_t item = npy_item_size(descr);
  a.data.resize(w.size() * item);
  for (std::size_t i = 0; i < w.size(); ++i) std::memcpy(a.data.data() + i * item, &w[i], item);
  return a;
}

RoundingSpec parse_spec(const std::string& round, const std::string& overflow,
                        const std::optional<std::string>& variant, const std::optional<std::string>& bits) {
  RoundingSpec s;
  s.rounding = parse_option<Rounding>("--round", round);
  s.overflow = parse_option<Overflow>("--overflow", overflow);
  if (s.rounding != Rounding::sr && (variant || bits))
    throw Error(std::string(variant ? "--sr-variant" : "--sr-bits") + " needs --round sr");
  if (variant) s.sr_variant = parse_option<SrVariant>("--sr-variant", *variant);
  if (bits) {
    if (!reads_sr_bits(s.sr_variant))
      throw Error("--sr-bits applies to --sr-variant A, B, C or stochastic_odd only (exact reads 64 bits, equal 1)");
    s.sr_bits = static_cast<std::uint8_t>(parse_int_option("--sr-bits", *bits, kSrBitsRange));
  }
  return s;
}

ordered_json target_json(const check::Target& t) {
  return {{"from", format_name(t.from)},
          {"to", format_name(t.to)},
          {"round", std::string(name(t.spec.rounding))},
          {"overflow", std::string(name(t.spec.overflow))},
          {"sr_variant", std::string(name(t.spec.sr_variant))},
          {"sr_bits", t.spec.sr_bits},
          {"profile", std::string(profile_name(t.profile))}};
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw IoError("cannot read " + p.string());
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

// ---- convert / decode --in ----------------------------------------------------------------------

void add_convert_command(CLI::App& app, ConvertOptions& o) {
  auto* c = app.add_subcommand("convert",
                               "Round every element of a tensor (.npy) into a format, once, from the file's own type");
  c->add_option("--in", o.in, "Input .npy: <f4, <f8, <f2, <V2 (bfloat16); codes (|u1, <u2, <V1) with --from")
      ->required();
  c->add_option("-f,--format", o.format, "Target format of at most 16 bits (`minifloat names format`)")->required();
  c->add_option("--from", o.from, "The input holds codes of this format (for |u1, <u2, <V1 inputs)");
  c->add_option("-r,--round", o.round, "Rounding mode: " + choices<Rounding>("rne"));
  c->add_option("-o,--overflow", o.overflow, "Overflow policy: " + choices<Overflow>("nonsat"));
  c->add_option("-p,--profile", o.profile, "Vendor profile: " + choices(profile_table(), "ocp"));
  c->add_option("--sr-variant", o.sr.sr_variant, "With --round sr: " + choices<SrVariant>("exact"));
  c->add_option("--sr-bits", o.sr_bits, kSrBitsHelp);
  c->add_flag("--ftz", o.ftz, kFtzHelp);
  c->add_flag("--daz", o.daz, kDazHelp);
  c->add_option("--seed", o.sr.seed,
                "With --round sr: Philox seed (required); element i (flat index) reads "
                "sr_bits(seed, stream, 0, i)")
      ->type_name("UINT64")
      ->check(uint64_text);
  c->add_option("--stream", o.stream, "With --round sr: stream/tensor id, 0..4294967295 (default 0)");
  c->add_option("--as", o.as, "Output dtype: " + choices<CodeDtype>("codes") + " (`minifloat names code-dtype`)");
  c->add_option("--out", o.out, "Output .npy of codes (same shape)")->required();
  c->add_option("--threads", o.threads,
                "Threads, 0..1024 (default 0: all cores); the output bytes do not depend on it");
}

int run_convert(const ConvertOptions& o) {
  const Format to = with_option("--format", [&] { return parse_format(o.format); });
  if (to.bits > 16)
    throw Error("--format " + format_name(to) + " has " + std::to_string(to.bits) +
                "-bit codes; accepted: formats of at most 16 bits");
  SrEncodeFlags f = o.sr;
  RoundingSpec spec;
  spec.rounding = parse_option<Rounding>("--round", o.round);
  spec.overflow = parse_option<Overflow>("--overflow", o.overflow);
  f.rounding = spec.rounding;
  if (o.sr_bits) f.sr_bits = parse_int_option("--sr-bits", *o.sr_bits, kSrBitsRange);
  if (o.stream) f.stream = parse_int_option("--stream", *o.stream, kStreamRange);
  const SrEncodePlan plan = validate_sr_encode_flags(f);
  spec.sr_variant = plan.variant;
  spec.sr_bits = plan.sr_bits;
  spec.ftz = o.ftz;
  spec.daz = o.daz;
  const Profile prof = parse_option("--profile", profile_table(), o.profile).value;
  const auto* as = find_name(name_table(CodeDtype{}), o.as);
  if (as == nullptr)
    throw Error("--as '" + quote_input(o.as) + "' is not " + with_article(kind_label<CodeDtype>()) +
                "; accepted: " + accepted_names(name_table(CodeDtype{})));
  const bool ml_dtypes = as->value == CodeDtype::ml_dtypes;
  if (ml_dtypes) {  // before any work: a format ml_dtypes lacks is refused, as Python's as_="ml_dtypes"
    try {
      (void)ml_dtypes_name(to);
    } catch (const Error& e) {
      throw Error(std::string("--as ml_dtypes: ") + e.what() + "; or --as codes");
    }
  }
  std::optional<Format> from;
  if (!o.from.empty()) from = with_option("--from", [&] { return parse_format(o.from); });

  OutputSet outs;
  outs.add_input(o.in, "--in");
  const OutputId id = outs.add_output(o.out, "--out");
  const NpyArray a = read_npy(o.in);
  if (a.code_format) from = a.code_format;
  const std::size_t n = a.element_count();
  const long long nthreads = parse_int_option("--threads", o.threads, kQuantThreads);
  ConvertRequest req{.to = to, .spec = spec, .profile = prof, .threads = static_cast<unsigned>(nthreads)};
  if (spec.rounding == Rounding::sr) req.sr = SrStream{.seed = plan.seed, .stream = plan.stream};
  const std::string& d = a.dtype;
  auto refuse_from = [&](Format own) {
    if (from && !(*from == own))
      throw Error("--from " + format_name(*from) + " does not match the input's dtype " + d + " (" + format_name(own) +
                  ")");
  };
  // The input as one of the door's array types (convert_array.hpp); the door does the rest.
  std::vector<float> xf;
  std::vector<double> xd;
  std::vector<std::uint16_t> xh;
  std::vector<std::uint64_t> w;
  ArrayIn in;
  if (d == "<f4") {
    refuse_from(formats::f32);
    xf = npy_as_f32(a);
    in = ArrayIn::f32(xf);
  } else if (d == "<f8") {
    refuse_from(formats::f64);
    xd = npy_as_f64(a);
    in = ArrayIn::f64(xd);
  } else if ((d == "<f2" || d == "<V2" || d == "|V2") &&
             !(from && !(*from == formats::f16) && !(*from == formats::bf16))) {
    xh.resize(n);
    if (n) std::memcpy(xh.data(), a.data.data(), 2 * n);
    in = (from ? *from == formats::f16 : d == "<f2") ? ArrayIn::f16(xh) : ArrayIn::bf16(xh);
  } else if (is_code_descr(d)) {
    if (!from)
      throw Error("--in holds " + d +
                  " codes: give their format with --from (e.g. --from e4m3fn), or pass float values");
    if (from->bits > 8 * a.item_size())
      throw Error("--from " + format_name(*from) + " has " + std::to_string(from->bits) + "-bit codes but --in holds " +
                  std::to_string(8 * a.item_size()) + "-bit elements");
    w = raw_words(a);
    in = ArrayIn::codes(std::span<const std::uint64_t>(w), *from);
  } else {
    throw Error("--in has dtype " + d + "; accepted: <f4, <f8, <f2, <V2 (bfloat16), or codes with --from");
  }
  std::vector<std::uint16_t> c16(to.bits > 8 ? n : 0);
  std::vector<std::uint8_t> c8(to.bits <= 8 ? n : 0);
  if (to.bits <= 8) convert_array(in, std::span<std::uint8_t>(c8), req, "--in");
  else convert_array(in, std::span<std::uint16_t>(c16), req, "--in");
  NpyArray out;
  out.shape = a.shape;
  if (to.bits <= 8) {
    out.dtype = ml_dtypes ? "<V1" : "|u1";
    out.data.resize(n);
    if (n) std::memcpy(out.data.data(), c8.data(), n);
  } else {
    out.dtype = ml_dtypes ? (to == formats::f16 ? "<f2" : "<V2") : "<u2";
    out.data.resize(2 * n);
    if (n) std::memcpy(out.data.data(), c16.data(), 2 * n);
  }
  write_npy(outs, id, out);
  outs.commit();
  return 0;
}

int run_decode_file(const std::string& in, const std::string& format, const std::string& to_text,
                    const std::string& out, const std::string& threads_text) {
  const Format f = with_option("--format", [&] { return parse_format(format); });
  if (out.empty()) throw Error("decode --in needs --out FILE.npy");
  // The decode targets (registry.hpp) that an array decodes to: the binary32 and binary64 ones (f32, f64).
  auto is_array_target = [](Format t) { return t == formats::f32 || t == formats::f64; };
  const auto* target = find_name(decode_target_table(), to_text);
  if (target == nullptr || !is_array_target(target->value)) {
    std::string accepted;
    for (const auto& e : decode_target_table().entries)
      if (is_array_target(e.value)) (accepted += accepted.empty() ? "" : ", ") += e.name;
    throw Error("decode --in: --to '" + quote_input(to_text) + "'; accepted: " + accepted);
  }
  const bool to_f32 = target->value == formats::f32;
  const auto threads = static_cast<unsigned>(parse_int_option("--threads", threads_text, kQuantThreads));
  OutputSet outs;
  outs.add_input(in, "--in");
  const OutputId id = outs.add_output(out, "--out");
  const NpyArray a = read_npy(in);
  if (!is_code_descr(a.dtype))
    throw Error("--in has dtype " + a.dtype + "; accepted: code arrays (|u1, <u2, <V1, <V2)");
  if (f.bits > 16 || f.bits > 8 * a.item_size())
    throw Error("--format " + format_name(f) + " has " + std::to_string(f.bits) + "-bit codes but --in holds " +
                std::to_string(8 * a.item_size()) + "-bit elements");
  const std::size_t n = a.element_count();
  const std::vector<std::uint64_t> w = raw_words(a);
  NpyArray r;
  r.shape = a.shape;
  if (f.bits <= 8) {
    std::vector<std::uint8_t> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = static_cast<std::uint8_t>(w[i] <= 0xff ? w[i] : 0xff);
    for (std::size_t i = 0; i < n; ++i)
      if (w[i] > 0xff)
        throw Error(fmt::format("--in element {} = {:#x} is not {} code", i, w[i], with_article(format_name(f))));
    if (to_f32) {
      std::vector<float> v(n);
      decode_to_f32(c, v, f, profiles::ocp, threads);
      r = make_npy_f32(a.shape, v);
    } else {
      std::vector<double> v(n);
      decode_to_f64(c, v, f, profiles::ocp, threads);
      r = make_npy_f64(a.shape, v);
    }
  } else {
    std::vector<std::uint16_t> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = static_cast<std::uint16_t>(w[i]);
    if (to_f32) {
      std::vector<float> v(n);
      decode_to_f32(c, v, f, profiles::ocp, threads);
      r = make_npy_f32(a.shape, v);
    } else {
      std::vector<double> v(n);
      decode_to_f64(c, v, f, profiles::ocp, threads);
      r = make_npy_f64(a.shape, v);
    }
  }
  write_npy(outs, id, r);
  outs.commit();
  return 0;
}

// ---- probe gen / probe check --------------------------------------------------------------------

check::NanCompare parse_nan_option(const std::string& text) {
  if (const auto* e = find_name(name_table(check::NanCompare{}), text)) return e->value;
  throw Error("--nan '" + quote_input(text) + "'; accepted: " + accepted_names(name_table(check::NanCompare{})));
}

void add_probe_command(CLI::App& app, ProbeGenOptions& g, ProbeCheckOptions& k, CLI::App*& gen, CLI::App*& chk) {
  auto* p = app.add_subcommand(
      "probe", "Check any kernel through files: gen writes adversarial inputs, check scores its outputs");
  p->require_subcommand(1);
  gen = p->add_subcommand("gen", "Write DIR/inputs.npy, rbits.npy (SR), classes.npy, expected.npy, manifest.json");
  gen->add_option("-f,--format", g.format, "Target format of the kernel (at most 16 bits); or give --scheme");
  gen->add_option("--from", g.from,
                  "Source type of the inputs: f32 (default), f64, f16, bf16 (or any format: raw codes)");
  gen->add_option("-r,--round", g.round, "Rounding mode: " + choices<Rounding>("rne"));
  gen->add_option("-o,--overflow", g.overflow,
                  "Overflow policy: " + choices<Overflow>("nonsat") + " (satfinite with --scheme)");
  gen->add_option("-p,--profile", g.profile, "Vendor profile: " + choices(profile_table(), "ocp"));
  gen->add_option("--sr-variant", g.sr_variant, "With --round sr: " + choices<SrVariant>("exact"));
  gen->add_option("--sr-bits", g.sr_bits, kSrBitsHelp);
  gen->add_option("--count", g.count, "Cases wanted, 1..100000000 (default 1048576)");
  gen->add_option("--seed", g.seed, "Seed of the random classes, 0..18446744073709551615")
      ->required()
      ->type_name("UINT64")
      ->check(uint64_text);
  gen->add_option("--ulps", g.ulps, "Source ulps around each midpoint and threshold, 1..64 (default 8)");
  gen->add_option("--model", g.model,
                  "Dot/GEMM kernels: the accumulation model (`minifloat names accumulation`); "
                  "--format is A's element format; writes a.npy b.npy c.npy (check_dot.hpp)");
  gen->add_option("--format-b", g.format_b, "With --model: B's element format (default: --format)");
  gen->add_option("--k", g.k, "With --model: terms per dot product, 1..4096 (default 32)");
  gen->add_option("--shape", g.shape,
                  "With --model: a GEMM D = A·B + C of MxNxK (M, N 1..1024, K 1..4096): writes a.npy "
                  "(M×K) b.npy (K×N) c.npy (M×N); --got is D (M×N)");
  gen->add_option("--out", g.out, "Folder to write (created if missing; its parent folder must exist)")->required();
  gen->add_option("--scheme", g.scheme,
                  "Block kernel: a scheme name or spec (minifloat names scheme) with 1xk tiles; inputs f32 blocks");
  gen->add_option("--packing", g.packing, "How the kernel stores its codes: " + choices<check::Packing>("none"));
  gen->add_option("--mx-quirks", g.mx_quirks,
                  "With --scheme: a peer's MX/NVFP4 quantizer, " + choices<MxQuirks>("none"));
  gen->add_option("--transform", g.transform,
                  "With --scheme: the transform before quantization (spec key transform=): none, rht16:te, "
                  "rht16:torchao, rht16:0xHHHH; inputs are the untransformed blocks (a multiple of 16 long)");
  gen->add_option("--transform-gemm", g.transform_gemm,
                  "With --transform: its arithmetic (spec key transform-gemm=): exact or a tensor-core preset");
  gen->add_option("--amax-scope", g.amax_scope,
                  "With --scheme (nvfp4): the spec key amax-scope=, tensor or row; each probe block is a tensor of "
                  "one row, so its row amax is its tensor amax");
  gen->add_flag("--ftz", g.ftz, std::string(kFtzHelp) + "; recorded in manifest.json");
  gen->add_flag("--daz", g.daz, std::string(kDazHelp) + "; recorded in manifest.json");
  gen->add_option("--scale-select", g.scale_select,
                  "With --scheme (nvfp4): the spec key scale-select=, " + choices<ScaleSelect>("none") +
                      "; 4over6 also writes expected_choices.npy (0 map-to-6, 1 map-to-4 per block)");
  chk = p->add_subcommand("check", "Score a kernel's outputs against a probe folder; exit 1 on a mismatch");
  chk->add_option("dir", k.dir, "The folder `probe gen` wrote")->required();
  chk->add_option("--got", k.got,
                  "The kernel's codes for DIR/inputs.npy (|u1, <u2, <V1, <V2; same shape; packed bytes with "
                  "--packing); dot folders: the results; GEMM folders: D (M×N)")
      ->required();
  chk->add_option("--rerun", k.rerun,
                  "Shrink by running this command on candidate inputs: {in} is an inputs .npy, {out} the codes .npy "
                  "to write, {rbits} the SR words .npy; block probes: {in} (<f4 [m, k]) {codes} {scales} (as --got, "
                  "--got-scales); dot and GEMM probes: {a} {b} {c} {out}");
  chk->add_option("--nan", k.nan,
                  "NaN comparison: " + choices<check::NanCompare>("bits") + " (`minifloat names nan-compare`)");
  chk->add_option("--rounds", k.rounds, "Shrink rounds (kernel runs) at most, 0..1000 (default 64)");
  chk->add_option(
      "--got-scales", k.got_scales,
      "Block targets: the kernel's block scales, one per block (|u1 e8m0fnu/ue4m3 codes; <f4 or <u4 FP32 scales)");
  chk->add_option("--scale-layout", k.scale_layout,
                  "Block targets: the layout of --got-scales over the grid [blocks, 1] (default rowmajor): " +
                      accepted_names(name_table(ScaleLayout{})) + "; scales right in another layout are named");
  chk->add_option("--got-choices", k.got_choices,
                  "4over6 block targets: the kernel's choice per block (|u1, 0 map-to-6, 1 map-to-4; as quantize "
                  "--out-scale-select writes), checked against DIR/expected_choices.npy");
}

int run_probe_gen(const ProbeGenOptions& o) {
  if (o.model) return run_probe_gen_dot(o);
  if (o.shape && !o.model) throw Error("--shape needs --model (GEMM probes)");
  if (o.format_b || o.k) throw Error(std::string(o.k ? "--k" : "--format-b") + " needs --model (dot/GEMM probes)");
  if (o.scheme) return run_probe_gen_block(o);
  if (o.mx_quirks) throw Error("--mx-quirks applies to block targets (--scheme)");
  if (o.transform || o.transform_gemm)
    throw Error(std::string(o.transform ? "--transform" : "--transform-gemm") + " applies to block targets (--scheme)");
  if (o.amax_scope) throw Error("--amax-scope applies to block targets (--scheme)");
  if (o.scale_select) throw Error("--scale-select applies to block targets (--scheme nvfp4)");
  if (o.format.empty()) throw Error("probe gen needs --format F (elementwise kernels) or --scheme S (block kernels)");
  check::Target t;
  if (o.packing) t.packing = parse_option<check::Packing>("--packing", *o.packing);
  t.to = with_option("--format", [&] { return parse_format(o.format); });
  t.from = with_option("--from", [&] { return parse_format(o.from); });
  t.spec = parse_spec(o.round, o.overflow.value_or("nonsat"), o.sr_variant, o.sr_bits);
  t.spec.ftz = o.ftz;
  t.spec.daz = o.daz;
  t.profile = parse_option("--profile", profile_table(), o.profile).value;
  if (t.packing != check::Packing::none && t.to.bits != check::packing_code_bits(t.packing))
    throw Error("--packing " + std::string(name(t.packing)) + " needs a " +
                std::to_string(check::packing_code_bits(t.packing)) + "-bit --format (" +
                (t.packing == check::Packing::fp4x2 ? "e2m1fn" : "e2m3fn, e3m2fn") + "), not " + format_name(t.to));
  with_option("--format", [&] {
    check::validate(t);
    return 0;
  });
  check::GenOptions g;
  g.seed = std::stoull(*o.seed);
  if (o.count) g.count = static_cast<std::size_t>(parse_int_option("--count", *o.count, {1, 100000000}));
  if (o.ulps) g.ulps = static_cast<int>(parse_int_option("--ulps", *o.ulps, {1, 64}));
  create_output_folder(o.out, "--out");
  const std::vector<check::Case> cases = check::generate(t, g);
  const std::size_t n = cases.size();
  std::vector<std::uint64_t> in(n), rb(n), cls(n), exp(n);
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = cases[i].input;
    rb[i] = cases[i].rbits;
    cls[i] = static_cast<std::uint64_t>(cases[i].cls);
    exp[i] = check::expected(t, cases[i]).code;
  }
  const bool sr = t.spec.rounding == Rounding::sr;
  ordered_json m;
  m["generator"] = "minifloat probe gen";
  m["version"] = "0.1.0";
  m["format_version"] = 1;
  m["target"] = target_json(t);
  if (t.packing != check::Packing::none) m["target"]["packing"] = std::string(name(t.packing));
  if (t.spec.ftz) m["target"]["ftz"] = true;  // only when set: folders without --ftz/--daz are unchanged
  if (t.spec.daz) m["target"]["daz"] = true;
  m["target_text"] = check::describe(t);
  m["seed"] = g.seed;
  m["count"] = g.count;
  m["ulps"] = g.ulps;
  m["cases"] = n;
  m["classes"] = ordered_json::array();
  for (const auto& e : name_table(check::CaseClass{}).entries) m["classes"].push_back(std::string(e.name));
  m["files"] = {{"inputs", "inputs.npy"},
                {"inputs_dtype", source_descr(t.from)},
                {"rbits", sr ? ordered_json("rbits.npy") : ordered_json(nullptr)},
                {"classes", "classes.npy"},
                {"expected", "expected.npy"}};
  const fs::path dir(o.out);
  OutputSet outs;
  const OutputId i_in = outs.add_output(dir / "inputs.npy", "--out inputs.npy");
  const OutputId i_cls = outs.add_output(dir / "classes.npy", "--out classes.npy");
  const OutputId i_exp = outs.add_output(dir / "expected.npy", "--out expected.npy");
  const OutputId i_man = outs.add_output(dir / "manifest.json", "--out manifest.json");
  std::optional<OutputId> i_rb;
  if (sr) i_rb = outs.add_output(dir / "rbits.npy", "--out rbits.npy");
  write_npy(outs, i_in, words_npy(source_descr(t.from), {n}, in));
  write_npy(outs, i_cls, words_npy("|u1", {n}, cls));
  if (t.packing != check::Packing::none) {  // fp4x2: case 2j in the low nibble; fp6_dense: 4 cases in 3 bytes
    std::vector<std::uint8_t> c8(n);
    for (std::size_t i = 0; i < n; ++i) c8[i] = static_cast<std::uint8_t>(exp[i]);
    const std::vector<std::uint8_t> b = check::pack_codes(t.packing, c8);
    write_npy(outs, i_exp, words_npy("|u1", {b.size()}, std::vector<std::uint64_t>(b.begin(), b.end())));
  } else {
    write_npy(outs, i_exp, words_npy(t.to.bits <= 8 ? "|u1" : "<u2", {n}, exp));
  }
  if (i_rb) write_npy(outs, *i_rb, words_npy("<u8", {n}, rb));
  outs.write(i_man, m.dump(2) + "\n");
  outs.commit();
  fmt::print("minifloat: wrote {} cases for {} under {}\n", n, check::describe(t), o.out);
  return 0;
}

int run_probe_check(const ProbeCheckOptions& o) {
  const fs::path dir(o.dir);
  const std::string manifest_text = read_text(dir / "manifest.json");
  const check::ProbeManifest pm = check::parse_probe_manifest(manifest_text, (dir / "manifest.json").string());
  if (pm.kind == check::ProbeKind::block) return run_probe_check_block(o);
  for (const auto& [given, opt] :
       {std::pair{o.got_scales.has_value(), "--got-scales"}, std::pair{o.scale_layout.has_value(), "--scale-layout"},
        std::pair{o.got_choices.has_value(), "--got-choices"}})
    if (given)
      throw Error(std::string(opt) + " applies to block folders (probe gen --scheme); " + o.dir + " holds " +
                  with_article(std::string(name(pm.kind))) + " probe");
  if (pm.kind == check::ProbeKind::dot) return run_probe_check_dot(o, manifest_text);
  if (pm.kind == check::ProbeKind::gemm) return run_probe_check_gemm(o, manifest_text);
  const check::Target t = pm.target;
  ProbeCheckRun run(o, check::ProbeKind::convert);
  check::Options opt;
  opt.gen.ulps = pm.ulps;
  opt = run.options(opt);
  const bool sr = t.spec.rounding == Rounding::sr;

  const NpyArray ia = read_npy(dir / "inputs.npy");
  if (ia.dtype != source_descr(t.from))
    throw Error((dir / "inputs.npy").string() + " has dtype " + ia.dtype + "; the manifest's source " +
                format_name(t.from) + " needs " + source_descr(t.from));
  const std::vector<std::uint64_t> in = raw_words(ia);
  const std::size_t n = in.size();
  const std::vector<std::uint64_t> cls = raw_words(read_npy(dir / "classes.npy"));
  std::vector<std::uint64_t> rb(n, 0);
  if (sr) rb = raw_words(read_npy(dir / "rbits.npy"));
  if (cls.size() != n || rb.size() != n)
    throw Error(o.dir + ": inputs.npy, classes.npy and rbits.npy differ in length");
  std::vector<check::Case> cases(n);
  for (std::size_t i = 0; i < n; ++i)
    cases[i] = {in[i], rb[i], run.class_at<check::CaseClass>(cls[i], i, "probe class")};
  const std::vector<std::uint64_t> got = check::got_codes(read_npy(o.got), t.to, n, "--got", t.packing);

  check::BatchKernel rerun;
  if (const auto scratch =
          run.rerun_scratch({"{in}", "{out}"}, {"{rbits}"}, "an elementwise", "python k.py {in} {out}")) {
    rerun = [&, tmp = *scratch](std::span<const check::Case> c, std::span<std::uint64_t> out) {
      std::vector<std::uint64_t> ci(c.size()), cr(c.size());
      for (std::size_t i = 0; i < c.size(); ++i) {
        ci[i] = c[i].input;
        cr[i] = c[i].rbits;
      }
      const fs::path pin = tmp / "inputs.npy", pout = tmp / "got.npy", prb = tmp / "rbits.npy";
      fs::remove(pout);
      write_npy(pin, words_npy(source_descr(t.from), {c.size()}, ci));
      if (sr) write_npy(prb, words_npy("<u8", {c.size()}, cr));
      run_rerun(*o.rerun, {{"{in}", pin}, {"{out}", pout}, {"{rbits}", prb}}, {"{out}"});
      // Read as --got; a packed kernel's words are its bytes (out[j] = byte j, as check.hpp's BatchKernel).
      const std::vector<std::uint64_t> w = check::got_codes(read_npy(pout), t.to, c.size(), "--rerun {out}", t.packing);
      if (t.packing == check::Packing::none) {
        std::copy(w.begin(), w.end(), out.begin());
      } else {
        const std::vector<std::uint8_t> b = check::pack_codes(t.packing, std::vector<std::uint8_t>(w.begin(), w.end()));
        std::copy(b.begin(), b.end(), out.begin());
      }
    };
  }
  const check::Report r = check::evaluate(t, cases, got, opt, rerun);
  return run.finish(r, [&](OutputSet& outs) {
    std::vector<std::uint64_t> mins;
    for (const auto& mm : r.minimal) mins.push_back(mm.c.input);
    write_npy(outs, outs.add_output(dir / "minimal.npy", "minimal.npy"),
              words_npy(source_descr(t.from), {mins.size()}, mins));
  });
}

// ---- probe gen --scheme / probe check --got-scales (block kernels, check_block.hpp) ----------------

namespace {

ordered_json block_target_json(const check::BlockTarget& t) {
  ordered_json j = {{"scheme", scheme_spec(t.scheme)},
                    {"scheme_name", scheme_name(t.scheme)},
                    {"block", check::block_size(t)},
                    {"round", std::string(name(t.rounding.rounding))},
                    {"overflow", std::string(name(t.rounding.overflow))},
                    {"profile", std::string(profile_name(t.profile))},
                    {"packing", std::string(name(t.packing))},
                    {"mx_quirks", std::string(name(t.mx_quirks))}};
  if (t.rounding.ftz) j["ftz"] = true;  // only when set: folders without --ftz/--daz are unchanged
  if (t.rounding.daz) j["daz"] = true;
  return j;
}

/// The .npy descr of the scale words: |u1 codes (E8M0, ue4m3) or <f4 FP32 decode scales.
std::string scale_descr(const check::BlockTarget& t) { return is_fp32_rule(t.scheme.rule) ? "<f4" : "|u1"; }

std::vector<std::uint64_t> f32_words(const std::vector<float>& v) {
  std::vector<std::uint64_t> w(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) w[i] = std::bit_cast<std::uint32_t>(v[i]);
  return w;
}

}  // namespace

int run_probe_gen_block(const ProbeGenOptions& o) {
  if (!o.format.empty()) throw Error("probe gen: give --format (elementwise) or --scheme (block kernels), not both");
  if (o.from != "f32")
    throw Error("probe gen --scheme: --from '" + quote_input(o.from) + "'; accepted: f32 (block inputs are binary32)");
  if (o.sr_variant || o.sr_bits || o.ulps)
    throw Error("probe gen --scheme: --sr-variant, --sr-bits and --ulps apply to elementwise targets only");
  check::BlockTarget t;
  t.scheme = with_option("--scheme", [&] { return parse_scheme(*o.scheme); });
  t.rounding.rounding = parse_option<Rounding>("--round", o.round);
  t.rounding.overflow = parse_option<Overflow>("--overflow", o.overflow.value_or("satfinite"));
  t.rounding.ftz = o.ftz;
  t.rounding.daz = o.daz;
  t.profile = parse_option("--profile", profile_table(), o.profile).value;
  if (o.packing) t.packing = parse_option<check::Packing>("--packing", *o.packing);
  if (o.mx_quirks) t.mx_quirks = parse_option<MxQuirks>("--mx-quirks", *o.mx_quirks);
  if (o.transform) t.scheme.transform = with_option("--transform", [&] { return parse_transform(*o.transform); });
  if (o.transform_gemm)
    t.scheme.transform_gemm = with_option("--transform-gemm", [&] { return parse_transform_gemm(*o.transform_gemm); });
  if (o.amax_scope) t.scheme.amax_scope = parse_option<AmaxScope>("--amax-scope", *o.amax_scope);
  if (o.scale_select) t.scheme.scale_select = parse_option<ScaleSelect>("--scale-select", *o.scale_select);
  with_option("--scheme", [&] {
    check::validate(t);
    return 0;
  });
  check::BlockGenOptions g;
  g.seed = std::stoull(*o.seed);
  if (o.count) g.count = static_cast<std::size_t>(parse_int_option("--count", *o.count, {1, 10000000}));
  create_output_folder(o.out, "--out");  // file_io.hpp: one level, its parent must exist
  const check::BlockCases cases = check::generate_blocks(t, g);
  const std::size_t n = cases.size(), k = cases.block, cb = check::code_bytes_per_block(t);
  std::vector<std::uint64_t> cls(n), codes(n * cb), scales(n), choices;
  const bool select = t.scheme.scale_select != ScaleSelect::none;
  for (std::size_t i = 0; i < n; ++i) {
    cls[i] = static_cast<std::uint64_t>(cases.classes[i]);
    if (select) choices.push_back(check::expected_choice(t, cases.at(i)).choice);
    const check::BlockResult r = check::expected_block(t, cases.at(i));
    const std::vector<std::uint8_t> stored = check::pack_codes(t.packing, r.codes);  // kernel storage form
    for (std::size_t j = 0; j < cb; ++j) codes[i * cb + j] = stored[j];
    scales[i] = r.scale;
  }
  ordered_json m;
  m["generator"] = "minifloat probe gen";
  m["version"] = "0.1.0";
  m["format_version"] = 1;
  m["block_target"] = block_target_json(t);
  m["target_text"] = check::describe(t);
  m["seed"] = g.seed;
  m["count"] = g.count;
  m["blocks"] = n;
  m["classes"] = ordered_json::array();
  for (const auto& e : name_table(check::BlockClass{}).entries) m["classes"].push_back(std::string(e.name));
  m["files"] = {{"inputs", "inputs.npy"},
                {"inputs_dtype", "<f4"},
                {"classes", "classes.npy"},
                {"expected", "expected.npy"},
                {"expected_scales", "expected_scales.npy"},
                {"scales_dtype", scale_descr(t)}};
  if (select) m["files"]["expected_choices"] = "expected_choices.npy";  // 4over6 only: other folders unchanged
  const fs::path dir(o.out);
  OutputSet outs;
  std::optional<OutputId> i_ch;
  if (select) i_ch = outs.add_output(dir / "expected_choices.npy", "--out expected_choices.npy");
  const OutputId i_in = outs.add_output(dir / "inputs.npy", "--out inputs.npy");
  const OutputId i_cls = outs.add_output(dir / "classes.npy", "--out classes.npy");
  const OutputId i_exp = outs.add_output(dir / "expected.npy", "--out expected.npy");
  const OutputId i_sc = outs.add_output(dir / "expected_scales.npy", "--out expected_scales.npy");
  const OutputId i_man = outs.add_output(dir / "manifest.json", "--out manifest.json");
  write_npy(outs, i_in, words_npy("<f4", {n, k}, f32_words(cases.values)));
  write_npy(outs, i_cls, words_npy("|u1", {n}, cls));
  write_npy(outs, i_exp, words_npy("|u1", {n, cb}, codes));
  write_npy(outs, i_sc, words_npy(scale_descr(t) == "<f4" ? "<u4" : "|u1", {n}, scales));
  if (i_ch) write_npy(outs, *i_ch, words_npy("|u1", {n}, choices));
  outs.write(i_man, m.dump(2) + "\n");
  outs.commit();
  fmt::print("minifloat: wrote {} blocks for {} under {}\n", n, check::describe(t), o.out);
  return 0;
}

namespace {
/// --got-choices against DIR/expected_choices.npy (probe gen's; recomputed for a folder written without it).
check::ChoiceFinding block_choices(const ProbeCheckOptions& o, const check::BlockTarget& t,
                                   const check::BlockCases& cases) {
  const std::vector<std::uint8_t> got =
      check::got_block_choices(read_npy(*o.got_choices), t, cases.size(), "--got-choices");
  const fs::path ref = fs::path(o.dir) / "expected_choices.npy";
  std::vector<std::uint8_t> want;
  if (fs::exists(ref)) {
    want = check::got_block_choices(read_npy(ref), t, cases.size(), ref.string());
  } else {
    for (std::size_t i = 0; i < cases.size(); ++i) want.push_back(check::expected_choice(t, cases.at(i)).choice);
  }
  return check::evaluate_choices(t, cases, got, want);
}
}  // namespace

int run_probe_check_block(const ProbeCheckOptions& o) {
  const fs::path dir(o.dir);
  const check::BlockTarget t =
      check::parse_probe_manifest(read_text(dir / "manifest.json"), (dir / "manifest.json").string()).block;
  if (!o.got_scales) throw Error(o.dir + " holds a block probe: give the kernel's scales with --got-scales SCALES.npy");
  ProbeCheckRun run(o, check::ProbeKind::block);
  const check::BlockOptions opt = run.options(check::BlockOptions{});
  const NpyArray ia = read_npy(dir / "inputs.npy");
  const std::size_t k = check::block_size(t);
  if (ia.dtype != "<f4" || ia.shape.size() != 2 || ia.shape[1] != k)
    throw Error((dir / "inputs.npy").string() + " must be <f4 [blocks, " + std::to_string(k) + "]");
  const std::size_t n = ia.shape[0];
  check::BlockCases cases;
  cases.block = k;
  cases.values.resize(n * k);
  std::memcpy(cases.values.data(), ia.data.data(), n * k * sizeof(float));
  const std::vector<std::uint64_t> cls = raw_words(read_npy(dir / "classes.npy"));
  if (cls.size() != n) throw Error(o.dir + ": inputs.npy and classes.npy differ in length");
  for (std::size_t i = 0; i < n; ++i)
    cases.classes.push_back(run.class_at<check::BlockClass>(cls[i], i, "block class"));
  const std::vector<std::uint8_t> got = check::got_block_codes(read_npy(o.got), t, n, "--got");
  const ScaleLayout layout = parse_option<ScaleLayout>("--scale-layout", o.scale_layout.value_or("rowmajor"));
  const NpyArray got_scales = read_npy(*o.got_scales);
  std::vector<std::uint64_t> expected_scales(n);
  for (std::size_t i = 0; i < n; ++i) expected_scales[i] = check::expected_block(t, cases.at(i)).scale;
  // "the scales are right but in layout X" (vllm#50084): named whether or not the declared layout can read them
  const std::vector<ScaleLayout> right_in = check::layouts_holding(got_scales, t, expected_scales, layout);
  const std::string right_note =
      right_in.empty() ? std::string()
                       : fmt::format("the kernel's scales are right but in layout {}, not {} (--scale-layout {})",
                                     name(right_in.front()), name(layout), name(right_in.front()));
  std::vector<std::uint64_t> scales;
  try {
    scales = check::got_block_scales(got_scales, t, n, "--got-scales", layout);
  } catch (const Error& e) {
    if (right_note.empty()) throw;
    throw Error(std::string(e.what()) + "; " + right_note);
  }

  // --rerun: {in} the candidate blocks (<f4 [m, k]), {codes} and {scales} the files the command writes
  // (as --got and --got-scales).
  check::BlockKernel rerun;
  if (const auto scratch =
          run.rerun_scratch({"{in}", "{codes}", "{scales}"}, {}, "a block", "python k.py {in} {codes} {scales}")) {
    rerun = [&, tmp = *scratch](std::span<const float> in, std::span<std::uint8_t> codes, std::span<std::uint64_t> sc) {
      const std::size_t m = in.size() / k;
      const fs::path pin = tmp / "inputs.npy", pc = tmp / "codes.npy", ps = tmp / "scales.npy";
      fs::remove(pc);
      fs::remove(ps);
      std::vector<std::uint64_t> w(in.size());
      for (std::size_t i = 0; i < in.size(); ++i) w[i] = std::bit_cast<std::uint32_t>(in[i]);
      write_npy(pin, words_npy("<f4", {m, k}, w));
      run_rerun(*o.rerun, {{"{in}", pin}, {"{codes}", pc}, {"{scales}", ps}}, {"{codes}", "{scales}"});
      const std::vector<std::uint8_t> c = check::got_block_codes(read_npy(pc), t, m, "--rerun {codes}");
      const std::vector<std::uint64_t> s = check::got_block_scales(read_npy(ps), t, m, "--rerun {scales}", layout);
      std::copy(c.begin(), c.end(), codes.begin());
      std::copy(s.begin(), s.end(), sc.begin());
    };
  }
  check::BlockReport r = check::evaluate_blocks(t, cases, got, scales, opt, rerun);
  if (o.got_choices) r.choices = block_choices(o, t, cases);
  const int status = run.finish(r, [&](OutputSet& outs) {
    std::vector<float> mins;
    for (const auto& mm : r.minimal) mins.insert(mins.end(), mm.block.begin(), mm.block.end());
    write_npy(outs, outs.add_output(dir / "minimal.npy", "minimal.npy"),
              words_npy("<f4", {r.minimal.size(), k}, f32_words(mins)));
  });
  if (!right_note.empty()) fmt::print("scale layout: {}\n", right_note);
  return status;
}

std::filesystem::path RerunScratch::open(const std::filesystem::path& dir) {
  path_ = dir / (".rerun-" + std::to_string(::getpid()));
  std::filesystem::create_directories(path_);
  return path_;
}

void RerunScratch::remove() noexcept {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  path_.clear();
}

namespace {
volatile std::sig_atomic_t g_rerun_signal = 0;
extern "C" void note_rerun_signal(int sig) { g_rerun_signal = sig; }

/// `cmd` through /bin/sh -c in a new process group; returns its wait status. SIGINT, SIGTERM and SIGHUP are
/// noted while it runs (std::system would ignore SIGINT and leave the group running on SIGTERM): the group
/// gets SIGTERM, then SIGKILL after 2 s, and once it is gone Interrupted{sig} is thrown.
int run_shell_in_group(const std::string& cmd) {
  constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction sa {
  }, old[3]{};
  sa.sa_handler = note_rerun_signal;
  sigemptyset(&sa.sa_mask);
  g_rerun_signal = 0;
  for (int k = 0; k < 3; ++k) ::sigaction(kSignals[k], &sa, &old[k]);
  const auto restore = [&] {
    for (int k = 0; k < 3; ++k) ::sigaction(kSignals[k], &old[k], nullptr);
  };
  const pid_t pid = ::fork();
  if (pid == 0) {
    restore();
    ::setpgid(0, 0);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (pid < 0) {
    const int e = errno;
    restore();
    throw Error("--rerun: cannot start /bin/sh: " + std::string(std::strerror(e)));
  }
  ::setpgid(pid, pid);  // also here, so the group exists before any kill below
  int st = 0, waited_ms = 0;
  bool termed = false, killed = false;
  for (;;) {
    const pid_t w = ::waitpid(pid, &st, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (g_rerun_signal != 0) {
      if (!termed) ::kill(-pid, SIGTERM), termed = true;
      else if (!killed && waited_ms >= 2000) ::kill(-pid, SIGKILL), killed = true;
    }
    const timespec tick{0, 10'000'000};  // 10 ms; a signal cuts it short
    ::nanosleep(&tick, nullptr);
    if (termed) waited_ms += 10;
  }
  restore();
  if (g_rerun_signal != 0) {
    ::kill(-pid, SIGKILL);  // what the shell left behind in its group
    throw Interrupted{g_rerun_signal};
  }
  return st;
}
}  // namespace

void check_rerun_pattern(const std::string& pattern, std::initializer_list<std::string_view> required,
                         std::initializer_list<std::string_view> optional, std::string_view probe,
                         std::string_view example) {
  std::string names;
  for (std::string_view r : required) names += (names.empty() ? "" : " ") + std::string(r);
  std::string also;
  for (std::string_view r : optional) also += (also.empty() ? " (and optionally " : " ") + std::string(r);
  if (!also.empty()) also += ")";
  const std::string how =
      fmt::format("--rerun for {} probe takes a command naming the candidate files as {}{}, e.g. --rerun '{}'", probe,
                  names, also, example);
  if (pattern.empty()) throw Error("--rerun is empty; " + how);
  for (std::string_view r : required)
    if (pattern.find(r) == std::string::npos) throw Error(fmt::format("--rerun lacks {}; {}", r, how));
  for (std::size_t b = pattern.find('{'); b != std::string::npos; b = pattern.find('{', b + 1)) {
    std::size_t e = b + 1;
    while (e < pattern.size() && pattern[e] >= 'a' && pattern[e] <= 'z') ++e;
    if (e == b + 1 || e == pattern.size() || pattern[e] != '}') continue;
    const std::string_view word(pattern.data() + b, e + 1 - b);
    bool known = false;
    for (std::string_view r : required) known = known || r == word;
    for (std::string_view r : optional) known = known || r == word;
    if (!known) throw Error(fmt::format("--rerun names an unknown placeholder {}; {}", word, how));
  }
}

void run_rerun(const std::string& pattern, std::initializer_list<std::pair<std::string, std::filesystem::path>> files,
               std::initializer_list<std::string> outputs) {
  std::string cmd = pattern;
  for (const auto& [key, path] : files) {
    const std::string v = path.string();
    for (std::size_t p = cmd.find(key); p != std::string::npos; p = cmd.find(key, p + v.size()))
      cmd.replace(p, key.size(), v);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const int st = run_shell_in_group(cmd);
  if (st != 0)
    throw Error((WIFSIGNALED(st)
                     ? "--rerun command was killed by signal " + std::to_string(WTERMSIG(st))
                     : "--rerun command failed (status " + std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : st) + ")") +
                ": " + quote_input(cmd));
  for (const std::string& out : outputs)
    for (const auto& [key, path] : files)
      if (key == out && !std::filesystem::exists(path))
        throw Error("--rerun command wrote no " + key + " file: " + quote_input(cmd));
}

}  // namespace minifloat::cli
