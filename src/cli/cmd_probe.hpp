// SPDX-License-Identifier: Apache-2.0
// cmd_probe.hpp: the file flow for kernels in any language (check.hpp):
//   minifloat convert --in X.npy --format F [--round --overflow --profile --sr-variant --sr-bits --seed --stream]
//                     [--as codes|ml_dtypes] --out C.npy
//   minifloat decode --in C.npy --format F --to f32|f64 --out X.npy      (the file form of `decode`)
//   minifloat probe gen --format F --from f32|f64|f16|bf16 [--round …] --count N --seed S --out DIR
//   minifloat probe check DIR --got GOT.npy [--rerun 'CMD {in} {out}']
//   minifloat probe gen --model M --format A [--format-b B] [--k K] --count N --seed S --out DIR   (dot)
//   minifloat probe gen --model M --format A [--format-b B] --shape MxNxK --seed S --out DIR       (GEMM)
//   minifloat probe gen --scheme S [--round … --overflow … --profile … --packing fp4x2|fp6_dense] --count N --seed S --out DIR
//   minifloat probe check DIR --got CODES.npy --got-scales SCALES.npy [--rerun 'CMD {in} {codes} {scales}']
//                                                                           (block kernels, check_block.hpp)
// Exit status: 0 pass, 1 mismatch (probe check), 2 bad input (one line on stderr).
#pragma once
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common.hpp"
#include "minifloat/check/check.hpp"
#include "minifloat/check/probe_files.hpp"
#include "minifloat/file_io.hpp"
#include "minifloat/registry.hpp"
#include "options.hpp"

namespace minifloat::cli {

struct ConvertOptions {
  std::string in, out, format, round = "rne", overflow = "nonsat", profile = "ocp", as = "codes", from;
  SrEncodeFlags sr;                            ///< --sr-variant --seed
  std::optional<std::string> sr_bits, stream;  ///< as typed
  std::string threads = "0";                   ///< --threads 0..1024 (0: all cores); the bytes do not depend on it
  bool ftz = false;                            ///< --ftz (RoundingSpec::ftz)
  bool daz = false;                            ///< --daz (RoundingSpec::daz)
};
void add_convert_command(CLI::App& app, ConvertOptions& o);
/// Elementwise: every element of --in (<f4 <f8 <f2 <V2; codes |u1 <u2 <V1 with --from F) rounded
/// once from the file's own type by the span API (convert_span.hpp / stochastic.hpp), written as
/// |u1 (≤ 8 bits) or <u2 codes, or with --as ml_dtypes as the descr ml_dtypes writes (<V1, bf16 <V2,
/// f16 <f2). Same shape. SR: element i (flat index) reads sr_bits(seed, stream, 0, i).
int run_convert(const ConvertOptions& o);

/// `decode --in C.npy --format F --to f32|f64 --out X.npy`: every code decoded (f32 rne; f64 exact).
int run_decode_file(const std::string& in, const std::string& format, const std::string& to, const std::string& out,
                    const std::string& threads);

struct ProbeGenOptions {
  std::string format, from = "f32", round = "rne", profile = "ocp", out;
  std::optional<std::string> overflow;  ///< default nonsat (elementwise), satfinite (--scheme, as quantize)
  std::optional<std::string> sr_variant, sr_bits, count, seed, ulps;
  std::optional<std::string> model, format_b, k;  ///< --model (dot/GEMM kernels: cmd_probe_dot.cpp), --format-b, --k
  std::optional<std::string> shape;               ///< --shape MxNxK (with --model: a GEMM folder)
  std::optional<std::string> scheme, packing;     ///< --scheme NAME|SPEC (block target), --packing none|fp4x2
  std::optional<std::string> mx_quirks;           ///< --mx-quirks none|torchao_0_18 (block targets)

  std::optional<std::string> transform;       ///< --transform (block targets; issue 25 item 1, core/hadamard.hpp)
  std::optional<std::string> transform_gemm;  ///< --transform-gemm exact|PRESET (the transform's arithmetic)
  std::optional<std::string> amax_scope;      ///< --amax-scope tensor|row (block targets; issue 25 item 3)
  std::optional<std::string> scale_select;    ///< --scale-select none|4over6:mse|4over6:mae (block targets; item 2)
  bool ftz = false;  ///< --ftz (RoundingSpec::ftz; elementwise and block targets; manifest "ftz": true when set)
  bool daz = false;  ///< --daz (RoundingSpec::daz; elementwise and block targets; manifest "daz": true when set)
};
struct ProbeCheckOptions {
  std::string dir, got, nan = "bits";
  std::optional<std::string> rerun;  ///< given (even empty) or not
  std::optional<std::string> rounds;
  std::optional<std::string> got_scales;    ///< block targets: the kernel's scales (one per block)
  std::optional<std::string> scale_layout;  ///< block targets: --got-scales' layout (scale_layout.hpp)
  std::optional<std::string> got_choices;   ///< 4over6 block targets: the kernel's choice per block (issue 25 item 2)
};
void add_probe_command(CLI::App& app, ProbeGenOptions& g, ProbeCheckOptions& c, CLI::App*& gen, CLI::App*& check);
/// `probe check --nan TEXT` of an elementwise, dot or GEMM probe: the NanCompare it names (case ignored; block
/// probes take bits only); Error "--nan 'TEXT'; accepted: bits, any" otherwise.
check::NanCompare parse_nan_option(const std::string& text);
/// DIR/inputs.npy (the source type: <f4 <f8 <f2 <V2, else |u1 <u2 <u4 raw bits), DIR/rbits.npy (<u8,
/// SR only), DIR/classes.npy (|u1, CaseClass), DIR/expected.npy (codes), DIR/manifest.json.
int run_probe_gen(const ProbeGenOptions& o);
/// Prints the report; writes DIR/report.json and DIR/minimal.npy (the minimal inputs, source dtype).
int run_probe_check(const ProbeCheckOptions& o);
/// probe gen --scheme: DIR/inputs.npy (<f4 [n, k]: n blocks of k), DIR/classes.npy (|u1 [n], BlockClass),
/// DIR/expected.npy (|u1 [n, k], or [n, k/2] with --packing fp4x2), DIR/expected_scales.npy (|u1 [n]
/// e8m0fnu / ue4m3 codes, or <f4 [n] FP32 decode scales), DIR/manifest.json ("block_target"); with scale-select
/// 4over6 also DIR/expected_choices.npy (|u1 [n], 0 map-to-6, 1 map-to-4; manifest files "expected_choices").
int run_probe_gen_block(const ProbeGenOptions& o);
/// probe check of a block folder: --got as expected.npy, --got-scales as expected_scales.npy (<u4 bits
/// also accepted for FP32 scales); --rerun 'CMD {in} {codes} {scales}' shrinks by running CMD on candidate
/// blocks ({in} <f4 [m, k]; it writes {codes} and {scales} as --got and --got-scales). Writes
/// DIR/report.json and DIR/minimal.npy (<f4 [m, k]). --got-choices (4over6 targets) compares the kernel's
/// choice per block with DIR/expected_choices.npy (recomputed when a folder lacks it): BlockReport::choices.
int run_probe_check_block(const ProbeCheckOptions& o);

/// `probe gen --model M --format A [--format-b B] [--k K]` (check_dot.hpp): DIR/a.npy, DIR/b.npy (N×K codes,
/// |u1 or <u2), DIR/c.npy (N <f4), DIR/classes.npy (|u1, DotClass), DIR/expected.npy (<f4, or <f2 for an
/// f16-destination preset), DIR/manifest.json (target kind "dot").
int run_probe_gen_dot(const ProbeGenOptions& o);
/// `probe check` of a `--model` folder (`manifest_text`: its manifest.json): --got holds N results (<f4/<u4,
/// or <f2/<u2); --rerun names {a} {b} {c} {out}. Writes report.json and minimal_a/b/c.npy.
int run_probe_check_dot(const ProbeCheckOptions& o, const std::string& manifest_text);
/// `probe gen --model M --shape MxNxK`: DIR/a.npy (M×K codes), DIR/b.npy (K×N codes), DIR/c.npy (M×N <f4),
/// DIR/classes.npy (|u1 M×N), DIR/expected.npy (M×N), DIR/manifest.json (target kind "gemm"). Output
/// (i, i) is designed case i of the dot generator (row i of A, column i of B, C[i][i]); the other
/// outputs (C +0 there) are scored as class `random`. Rows/columns beyond min(M, N) reuse the designed
/// vectors cyclically.
int run_probe_gen_gemm(const ProbeGenOptions& o);
/// `probe check` of a `--shape` folder: --got holds D (M×N results); each output element is one dot
/// case for check_dot's shrinking and diagnosis; --rerun names {a} {b} {c} {out} (the candidates as one
/// m×m GEMM each round, gemm_as_dot). Writes report.json and minimal_a.npy (m×K), minimal_b.npy (K×m),
/// minimal_c.npy (m×m, C[i][i] = case i's c, else +0): the minimal cases are D's diagonal.
int run_probe_check_gemm(const ProbeCheckOptions& o, const std::string& manifest_text);

/// The scratch folder of `probe check --rerun`: DIR/.rerun-PID, made by open() and removed with every file in it
/// by remove() or when this object goes, so a check that throws leaves nothing behind in the probe folder.
class RerunScratch {
 public:
  RerunScratch() = default;
  RerunScratch(const RerunScratch&) = delete;
  RerunScratch& operator=(const RerunScratch&) = delete;
  ~RerunScratch() { remove(); }
  /// Creates DIR/.rerun-PID (and returns it).
  std::filesystem::path open(const std::filesystem::path& dir);
  void remove() noexcept;

 private:
  std::filesystem::path path_;
};

/// Thrown by run_rerun when SIGINT, SIGTERM or SIGHUP arrived while the kernel's command ran: the command's
/// process group has been stopped, and main() re-raises `sig` once the stack (and every scratch folder and
/// temporary with it) is gone, so the exit status is the signal's.
struct Interrupted {
  int sig;
};

/// One --rerun round: the user's `pattern` with every placeholder of `files` ("{in}", "{out}", …) replaced by its
/// path, run by /bin/sh -c in a process group of its own after stdout is flushed. A non-zero exit status, or a
/// file of `outputs` (placeholders of `files`) missing afterwards, is an Error naming it and the command as run.
/// SIGINT, SIGTERM or SIGHUP meanwhile: the group gets SIGTERM (SIGKILL 2 s later), then Interrupted.
/// Refuses a --rerun `pattern` of this `probe` kind ("an elementwise", "a block", ...) that is empty, lacks
/// one of the `required` placeholders, or has a `{word}` (lower-case letters) that is none of `required` and
/// `optional` (a typo would reach the kernel literally): an Error naming the placeholders and `example`.
void check_rerun_pattern(const std::string& pattern, std::initializer_list<std::string_view> required,
                         std::initializer_list<std::string_view> optional, std::string_view probe,
                         std::string_view example);
void run_rerun(const std::string& pattern, std::initializer_list<std::pair<std::string, std::filesystem::path>> files,
               std::initializer_list<std::string> outputs);

/// What every `probe check` runner shares (elementwise, block, dot and GEMM folders): the options common to them,
/// the --rerun scratch folder, and the end: report.json and the minimal files as one transaction, the report
/// printed, exit status 0 (pass) or 1 (mismatch). Reading the folder and the kernel's outputs stays with each kind.
class ProbeCheckRun {
 public:
  /// `kind`: the folder's (its manifest's) probe kind.
  ProbeCheckRun(const ProbeCheckOptions& o, check::ProbeKind kind) : o_(o), kind_(kind), dir_(o.dir) {}
  const std::filesystem::path& dir() const { return dir_; }
  /// The checker's options with --nan (NanCompare; block probes compare bit for bit and take only `bits`) and
  /// --rounds (0..1000) applied, in this order.
  template <class Opt>
  Opt options(Opt opt) const {
    if constexpr (requires { opt.nan_compare; }) {
      opt.nan_compare = parse_nan_option(o_.nan);
    } else {
      const auto* nan = find_name(name_table(check::NanCompare{}), o_.nan);
      if (nan == nullptr || nan->value != check::NanCompare::bits)
        throw Error("--nan applies to elementwise probes; block probes compare bit for bit");
    }
    if (o_.rounds) opt.max_shrink_rounds = static_cast<int>(parse_int_option("--rounds", *o_.rounds, {0, 1000}));
    return opt;
  }
  /// Element i (= `word`) of DIR/classes.npy as a class of E (its table's i-th entry); Error "DIR: classes.npy
  /// element I = WORD is not a NOUN" for a word beyond the table.
  template <NamedEnum E>
  E class_at(std::uint64_t word, std::size_t i, std::string_view noun) const {
    if (word >= name_table(E{}).entries.size())
      throw Error(fmt::format("{}: classes.npy element {} = {} is not {}", o_.dir, i, word, with_article(noun)));
    return static_cast<E>(word);
  }
  /// With --rerun: checks its pattern (check_rerun_pattern) and opens the scratch folder DIR/.rerun-PID, which it
  /// returns; without: nullopt.
  std::optional<std::filesystem::path> rerun_scratch(std::initializer_list<std::string_view> required,
                                                     std::initializer_list<std::string_view> optional,
                                                     std::string_view probe, std::string_view example) {
    if (!o_.rerun) return std::nullopt;
    check_rerun_pattern(*o_.rerun, required, optional, probe, example);
    return scratch_.open(dir_);
  }
  /// Removes the scratch folder; writes DIR/report.json (`report.json()`) and what `write_minimal(outs)` adds, as
  /// one transaction that reads --got (and a block probe's --got-scales); prints `report.text()`. Returns 0 if
  /// report.ok(), else 1.
  template <class Report, class WriteMinimal>
  int finish(const Report& report, WriteMinimal&& write_minimal) {
    scratch_.remove();
    OutputSet outs;
    outs.add_input(o_.got, "--got");
    if (kind_ == check::ProbeKind::block) outs.add_input(*o_.got_scales, "--got-scales");
    if (o_.got_choices) outs.add_input(*o_.got_choices, "--got-choices");
    const OutputId i_rep = outs.add_output(dir_ / "report.json", "report.json");
    outs.write(i_rep, report.json() + "\n");
    write_minimal(outs);
    outs.commit();
    fmt::print("{}", report.text());
    return report.ok() ? 0 : 1;
  }

 private:
  const ProbeCheckOptions& o_;
  check::ProbeKind kind_;
  std::filesystem::path dir_;
  RerunScratch scratch_;
};

}  // namespace minifloat::cli
