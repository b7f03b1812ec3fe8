// SPDX-License-Identifier: Apache-2.0
// cmd_mma.cpp: `minifloat mma-check` and `minifloat dot` (see cmd_mma.hpp).
#include "cmd_mma.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "minifloat/accumulate.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/round_pack.hpp"
#include "minifloat/error.hpp"
#include "minifloat/mma_vectors.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/parse.hpp"
#include "minifloat/registry.hpp"
#include "options.hpp"

namespace minifloat::cli {
namespace {

std::string hex(Format f, std::uint64_t code) { return fmt::format("0x{:0{}x}", code, (f.bits + 3) / 4); }

std::string value_str(Format f, std::uint64_t code) { return fmt::format("{}", to_double(f, code)); }

/// `f`, taken from `source` ("--format e2m1fn", "--a 'a.npy' (f32 values, no --format)"), must be
/// one of the operand formats the tensor core multiplies (empty: any format).
void require_operand_format(std::span<const Format> accepted, const std::string& model, Format f,
                            const std::string& source, const char* format_flag = "--format") {
  if (accepted.empty()) return;
  std::string list;
  for (const Format& a : accepted) {
    if (a == f) return;
    (list += list.empty() ? "" : " or ") += format_name(a);
  }
  throw Error("--model " + quote_input(model) + " multiplies " + list + " operands only, not the " + format_name(f) +
              " of " + source + "; pass " + format_flag + " " + format_name(accepted[0]) +
              " (float arrays are rounded into it once, rne + satfinite)");
}
}  // namespace

void add_mma_check_command(CLI::App& app, MmaCheckOptions& opts) {
  auto* sub = app.add_subcommand("mma-check", "Check tensor-core accumulation models against measured MMA vectors");
  auto* model = sub->add_option("--model", opts.model, "tensor-core preset: " + choices(tensor_core_table()));
  auto* dir =
      sub->add_option("--dir", opts.dir,
                      "folder with a_*.txt b_*.txt c_*.txt and d_*_fp32.txt (d_*_fp16.txt for an FP16-destination "
                      "preset)");
  auto* all = sub->add_option("--all", opts.all,
                              "folder of vector-set folders: run every preset on every set and print the match matrix");
  model->needs(dir);
  dir->needs(model);
  all->excludes(model)->excludes(dir);
  sub->add_flag("--c-zero", opts.c_zero,
                "use C = +0 instead of the c_ file (same as --c zero): for vectors measured with a zero accumulator "
                "(the H100 FP8 folder of the shared mma-vectors, see its README); the Ada vectors use the file's C");
  sub->add_option("--c", opts.c_rule,
                  "C rule: file (the c_ file's value), zero (+0: e.g. the H100 FP8 folder, see its README) or auto "
                  "(--all: decided per set from the data); default file for --model, auto for --all");
  sub->add_option("--format", opts.format,
                  "element format of a/b (default: from E4M3/E5M2/BF16/FP16/TF32 in the a_ file name); must be one "
                  "the preset's MMA multiplies");
  sub->add_option("--show", opts.show, "how many mismatches to print, 0..1000000 (default 5)");
}

namespace {

MmaCRule parse_c_rule(const MmaCheckOptions& opts, MmaCRule dflt) {
  if (opts.c_rule.empty()) return opts.c_zero ? MmaCRule::zero : dflt;
  const MmaCRule rule = parse_option<MmaCRule>("--c", opts.c_rule);
  if (opts.c_zero && rule != MmaCRule::zero)
    throw Error("--c-zero contradicts --c " + quote_input(opts.c_rule) + "; pass one of them");
  return rule;
}

bool multiplies(const TensorCorePreset& p, Format f) {
  return std::any_of(p.operands.begin(), p.operands.end(), [&](const Format& o) { return o == f; });
}

/// The model's result for row r of v as FP32 bits (an f16 destination widened exactly); `c` is
/// the FP32 addend, rounded RNE into the model's destination register first (an f16 C register).
std::uint64_t model_row(const TfdpaModel& m, const MmaVectors& v, std::size_t r, std::uint64_t c) {
  const std::uint64_t c_dest = m.dest == formats::f32 ? c : convert(formats::f32, c, m.dest).code;
  const std::uint64_t got =
      tfdpa_dot(m, v.element, v.a.data() + r * v.k, v.element, v.b.data() + r * v.k, v.k, c_dest).code;
  return m.dest == formats::f32 ? got : convert(m.dest, got, formats::f32).code;
}

std::size_t count_matches(const TfdpaModel& m, const MmaVectors& v, bool c_zero) {
  std::size_t n = 0;
  for (std::size_t r = 0; r < v.d.size(); ++r) n += model_row(m, v, r, c_zero ? 0 : v.c[r]) == v.d[r] ? 1 : 0;
  return n;
}

/// The model's zero rules in one line, and that hardware has not decided them (issue 26 item 4).
std::string zero_rules_note(const TfdpaModel& m) {
  const TfdpaZeroRules& z = m.zero;
  const std::string product = z.product == ZeroProductExponent::constant
                                  ? fmt::format("a zero product at 2^{}", m.zero_exponent)
                                  : fmt::format("a zero factor at 2^{} (relative)", z.factor_exponent);
  const int c = z.c == ZeroCExponent::own ? z.c_exponent : m.zero_exponent;
  // late_c adds C after the products: a zero C's exponent plays no part
  const bool late = m.structure == TfdpaStructure::late_c || m.structure == TfdpaStructure::late_c_pairs;
  const std::string zero_c =
      late ? std::string("a zero C added after the products") : fmt::format("a zero C at 2^{}", c);
  return fmt::format(
      "zero rules: {}, {}, a zero result {}; hardware has not decided them (MMA-Sim differs: "
      "docs/tensor-cores.md, Zero rules)",
      product, zero_c, z.sign == ZeroResultSign::positive ? "always +0" : "-0 only when every term is -0");
}

Format dest_of(MmaDestination d) { return d == MmaDestination::fp16 ? formats::f16 : formats::f32; }

/// One measured set: a folder and one of its destination files.
struct VectorSet {
  std::string name;  ///< folder name, + ":fp16" for the FP16-destination file
  MmaDestination destination;
  MmaVectors v;
};

/// `name` (a set name) is listed in the preset's validated_on (space-separated).
bool validated_on(const TfdpaModel& m, const std::string& name) {
  std::istringstream ss(m.validated_on);
  for (std::string w; ss >> w;)
    if (w == name) return true;
  return false;
}

int run_mma_all(const MmaCheckOptions& opts) {
  namespace fs = std::filesystem;
  const MmaCRule rule = parse_c_rule(opts, MmaCRule::automatic);
  const fs::path root = opts.all;
  if (!fs::is_directory(root)) throw IoError("mma-check --all: '" + root.string() + "' is not a folder");
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  std::vector<VectorSet> sets;
  for (const fs::path& d : dirs) {
    bool has32 = false, has16 = false;
    for (const auto& e : fs::directory_iterator(d)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("d_", 0) == 0 && n.size() > 9 && n.substr(n.size() - 9) == "_fp32.txt") has32 = true;
      if (n.rfind("d_", 0) == 0 && n.size() > 9 && n.substr(n.size() - 9) == "_fp16.txt") has16 = true;
    }
    if (has32) sets.push_back({d.filename().string(), MmaDestination::fp32, load_mma_vectors(d, opts.format)});
    if (has16)
      sets.push_back({d.filename().string() + ":fp16", MmaDestination::fp16,
                      load_mma_vectors(d, opts.format, MmaDestination::fp16)});
  }
  if (sets.empty())
    throw IoError(
        "mma-check --all: no vector sets (sub-folders with a_*.txt b_*.txt c_*.txt d_*_fp32.txt or "
        "d_*_fp16.txt) in '" +
        root.string() + "'");
  const auto& presets = tensor_core_table().entries;
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  // counts[p][s] with the set's C rule; best per rule decides auto
  std::vector<std::vector<std::size_t>> counts(presets.size(), std::vector<std::size_t>(sets.size(), kNone));
  std::vector<bool> c_zero(sets.size(), rule == MmaCRule::zero);
  std::vector<std::string> c_note(sets.size());
  for (std::size_t s = 0; s < sets.size(); ++s) {
    const VectorSet& set = sets[s];
    std::vector<std::size_t> with_file(presets.size(), kNone), with_zero(presets.size(), kNone);
    std::size_t best_file = 0, best_zero = 0;
    for (std::size_t p = 0; p < presets.size(); ++p) {
      const TfdpaModel& m = *presets[p].value.model;
      if (!multiplies(presets[p].value, set.v.element) || !(m.dest == dest_of(set.destination))) continue;
      if (rule != MmaCRule::zero) best_file = std::max(best_file, with_file[p] = count_matches(m, set.v, false));
      if (rule != MmaCRule::file) best_zero = std::max(best_zero, with_zero[p] = count_matches(m, set.v, true));
    }
    const std::size_t rows = set.v.d.size();
    if (rule == MmaCRule::automatic) {
      c_zero[s] = best_zero > best_file;
      c_note[s] = fmt::format("{} (auto: best {}/{} with the file's C, {}/{} with +0)", c_zero[s] ? "+0" : "file",
                              best_file, rows, best_zero, rows);
    } else {
      c_note[s] = rule == MmaCRule::zero ? "+0 (--c zero)" : "file (--c file)";
    }
    for (std::size_t p = 0; p < presets.size(); ++p) counts[p][s] = c_zero[s] ? with_zero[p] : with_file[p];
  }
  // the matrix: presets × sets
  std::size_t w0 = 6;
  for (const auto& p : presets) w0 = std::max(w0, p.name.size());
  fmt::print(
      "match matrix: rows of each set reproduced bit for bit (* = the preset is validated on that set, "
      "- = the preset does not multiply that element format into that destination; the block-scaled "
      "tcgen05 presets run with unit scales, as the sets carry none; every preset runs its default zero rules "
      "(a zero product's and a zero C's exponent, a zero result's sign), which hardware has not decided: "
      "docs/tensor-cores.md, Zero rules)\n");
  fmt::print("{:<{}}", "preset", w0);
  std::vector<std::size_t> width(sets.size());
  for (std::size_t s = 0; s < sets.size(); ++s) {
    width[s] = std::max<std::size_t>(sets[s].name.size(), 5) + 2;
    fmt::print("{:>{}}", sets[s].name, width[s]);
  }
  fmt::print("\n");
  for (std::size_t p = 0; p < presets.size(); ++p) {
    fmt::print("{:<{}}", presets[p].name, w0);
    for (std::size_t s = 0; s < sets.size(); ++s) {
      const std::size_t n = counts[p][s];
      const std::string cell =
          n == kNone ? "-" : std::to_string(n) + (validated_on(*presets[p].value.model, sets[s].name) ? "*" : "");
      fmt::print("{:>{}}", cell, width[s]);
    }
    fmt::print("\n");
  }
  // per set: C rule, the presets matching every row, validation, what cannot be told apart
  bool all_ok = true;
  fmt::print("\nper set:\n");
  for (std::size_t s = 0; s < sets.size(); ++s) {
    const VectorSet& set = sets[s];
    const std::size_t rows = set.v.d.size();
    std::vector<std::string> full, validated;
    for (std::size_t p = 0; p < presets.size(); ++p)
      if (counts[p][s] == rows) {
        full.emplace_back(presets[p].name);
        if (validated_on(*presets[p].value.model, set.name)) validated.emplace_back(presets[p].name);
      }
    fmt::print("{} ({}, k = {}, {} destination, {} rows): C = {}\n", set.name, format_name(set.v.element), set.v.k,
               set.destination == MmaDestination::fp16 ? "FP16" : "FP32", rows, c_note[s]);
    const auto join = [](const std::vector<std::string>& v) {
      std::string out;
      for (const auto& x : v) (out += out.empty() ? "" : ", ") += x;
      return out;
    };
    if (!validated.empty()) {
      fmt::print("  matched {}/{} by {} (validated on this set)\n", rows, rows, join(validated));
      if (full.size() > 1) fmt::print("  cannot be told apart on this set: {}\n", join(full));
    } else if (!full.empty()) {
      all_ok = false;
      fmt::print("  matched {}/{} by {}, none validated on this set\n", rows, rows, join(full));
    } else {
      all_ok = false;
      // probes: vary the group size, F, the output rounding and C around every applicable preset
      std::size_t best = 0;
      std::string best_desc;
      const int groups[] = {static_cast<int>(set.v.k) / 2, static_cast<int>(set.v.k)};
      for (const auto& pe : presets) {
        if (!multiplies(pe.value, set.v.element) || !(pe.value.model->dest == dest_of(set.destination))) continue;
        TfdpaModel m = *pe.value.model;
        for (const int L : groups)
          for (int F = 10; F <= 30; ++F)
            for (const Rounding r : {Rounding::rtz, Rounding::rne})
              for (const bool cz : {false, true}) {
                if (L < 1) continue;
                m.group = L;
                m.frac_bits = F;
                m.out_rounding = RoundingSpec{r};
                const std::size_t n = count_matches(m, set.v, cz);
                if (n > best) {
                  best = n;
                  best_desc = fmt::format("{} with L = {}, F = {}, output {}, C {}", pe.name, L, F,
                                          r == Rounding::rtz ? "rtz" : "rne", cz ? "+0" : "from the file");
                }
              }
        break;  // one base preset per destination/format: the probes vary every parameter that differs
      }
      fmt::print(
          "  UNMATCHED: no preset reproduces every row; probes failed: L in {{{}, {}}} x F in 10..30 x output "
          "rtz/rne x C file/+0 (C rounded into the destination register): best {}/{} ({})\n",
          groups[0], groups[1], best, rows, best_desc.empty() ? "none applicable" : best_desc);
    }
  }
  return all_ok ? 0 : 1;
}

}  // namespace

int run_mma_check(const MmaCheckOptions& opts) {
  if (!opts.all.empty()) return run_mma_all(opts);
  if (opts.model.empty()) throw Error("mma-check needs --model PRESET --dir DIR, or --all DIR");
  const TensorCorePreset& preset = parse_option("--model", tensor_core_table(), opts.model).value;
  const TfdpaModel& model = *preset.model;
  const MmaCRule rule = parse_c_rule(opts, MmaCRule::file);
  if (rule == MmaCRule::automatic) throw Error("--c auto is for --all; with --model pass --c file or --c zero");
  const bool c_zero = rule == MmaCRule::zero;
  const auto show = static_cast<std::size_t>(parse_int_option("--show", opts.show, {0, 1000000}));
  if (!opts.format.empty())
    require_operand_format(preset.operands, opts.model,
                           with_option("--format", [&] { return parse_format(opts.format); }),
                           "--format " + quote_input(opts.format));
  if (model.validation != TfdpaValidation::hardware_vectors)
    fmt::print(stderr,
               "warning: {} is unvalidated: its parameters are published ones that no measured vectors here "
               "confirm ({})\n",
               model.name, model.source);
  if (model.scale.application != BlockScaleApplication::none)
    fmt::print(stderr, "note: {} is block-scaled; the vector files carry no scales, so every scale is 1\n", model.name);
  const MmaDestination destination = model.dest == formats::f16 ? MmaDestination::fp16 : MmaDestination::fp32;
  const MmaVectors v = load_mma_vectors(opts.dir, opts.format, destination);
  if (opts.format.empty() && !multiplies(preset, v.element)) {
    // the set's own format (from its file names) is the fact to act on: name the presets that take it
    std::string ops, fits;
    for (const Format& o : preset.operands) (ops += ops.empty() ? "" : " or ") += format_name(o);
    for (const auto& p : tensor_core_table().entries)
      if (multiplies(p.value, v.element) && p.value.model->dest == model.dest)
        (fits += fits.empty() ? "" : ", ") += p.name;
    throw Error("--model " + quote_input(opts.model) + " multiplies " + ops + " operands only, but the a_ file name '" +
                v.a_file.filename().string() + "' says this set holds " + format_name(v.element) +
                "; pass a --model that "
                "multiplies " +
                format_name(v.element) +
                (fits.empty() ? std::string(" (none has this destination)") : " (" + fits + ")"));
  }
  const std::size_t rows = v.d.size();
  std::size_t match = 0, shown = 0;
  std::string report;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::uint64_t c = c_zero ? 0 : v.c[r];
    const std::uint64_t got = model_row(model, v, r, c);
    if (got == v.d[r]) {
      ++match;
      continue;
    }
    if (shown++ >= show) continue;
    std::string a, b;
    for (std::size_t i = 0; i < v.k; ++i) {
      a += (i ? " " : "") + hex(v.element, v.a[r * v.k + i]);
      b += (i ? " " : "") + hex(v.element, v.b[r * v.k + i]);
    }
    report += fmt::format(
        "line {}:\n  a ({}) = {}\n  b = {}\n  c = {} ({}){}\n  expected d = {} ({})\n  computed d = {} ({})\n", r + 1,
        format_name(v.element), a, b, hex(formats::f32, c), value_str(formats::f32, c), c_zero ? " [C = +0]" : "",
        hex(formats::f32, v.d[r]), value_str(formats::f32, v.d[r]), hex(formats::f32, got),
        value_str(formats::f32, got));
  }
  fmt::print("{}/{} match ({} on {}, k = {}, {}, C {})\n", match, rows, model.name, opts.dir, v.k,
             v.d_file.filename().string(), c_zero ? "= +0" : "from " + v.c_file.filename().string());
  if (match < rows) {  // the other C rule (mma-check --all decides it per set): name the option that matches better
    const std::size_t other = count_matches(model, v, !c_zero);
    if (other > match)
      fmt::print("hint: {}/{} match with {}: pass {} (mma-check --all decides the C rule per set)\n", other, rows,
                 c_zero ? "C from the c_ file" : "C = +0", c_zero ? "--c file" : "--c zero");
  }
  fmt::print("{}\n", zero_rules_note(model));
  if (!report.empty()) fmt::print("first mismatches:\n{}", report);
  return match == rows ? 0 : 1;
}

// ---- dot ---------------------------------------------------------------------------------------

namespace {

struct Operand {
  Format format{};
  std::vector<std::size_t> shape;
  std::vector<std::uint64_t> codes;
};

/// The words of `arr` (little endian, item_size() bytes each) as codes.
std::vector<std::uint64_t> words_of(const NpyArray& arr) {
  const std::size_t n = arr.element_count(), size = arr.item_size();
  const auto* p = reinterpret_cast<const unsigned char*>(arr.data.data());
  std::vector<std::uint64_t> w(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < size; ++j) w[i] |= static_cast<std::uint64_t>(p[i * size + j]) << (8 * j);
  return w;
}

Operand load_operand(const std::string& path, const std::optional<Format>& format, const char* flag, OperandRound how,
                     const char* format_flag = "--format") {
  const NpyArray arr = read_npy(path);
  Operand op;
  op.shape = arr.shape;
  const std::string& d = arr.dtype;
  Format natural{};
  bool is_float = true;
  if (d == "<f4") natural = formats::f32;
  else if (d == "<f2") natural = formats::f16;
  else if (d == "<f8") natural = formats::f64;
  else if (d == "<V2") natural = formats::bf16;
  else if (d == "|u1" || d == "<u1" || d == "<V1" || d == "|V1" || d == "<u2") is_float = false;
  else
    throw Error(std::string("dot: ") + flag + " '" + path + "' has dtype " + d +
                "; accepted: <f4 <f2 <f8 bfloat16 (<V2), or codes |u1 <V1 <u2 with --format");
  op.codes = words_of(arr);
  if (!is_float) {
    if (!format)
      throw Error(std::string("dot: ") + flag + " '" + path + "' holds raw codes (" + d + "): pass " + format_flag +
                  " FMT");
    op.format = *format;
    const std::size_t storage = op.format.bits <= 8 ? 1 : op.format.bits <= 16 ? 2 : 8;
    if (storage != arr.item_size())
      throw Error(fmt::format("dot: {} '{}' holds {}-byte codes ({}), but {} {} has {}-bit codes", flag, path,
                              arr.item_size(), d, format_flag, format_name(op.format), op.format.bits));
    for (std::size_t i = 0; i < op.codes.size(); ++i) {
      if ((op.codes[i] & ~code_mask(op.format)) != 0)
        throw Error(fmt::format("dot: {} '{}' element {} = {:#x} is not {} code", flag, path, i, op.codes[i],
                                with_article(format_name(op.format))));
    }
    return op;
  }
  op.format = format.value_or(natural);
  if (format) {  // float inputs are rounded once into --format by --operand-round (default rne + satfinite)
    try {
      op.codes = round_operands(natural, op.codes, op.format, how);
    } catch (const Error& e) {
      throw Error(std::string("dot: ") + flag + " '" + path + "' (" + format_name(natural) + " values): " + e.what());
    }
  }
  return op;
}

/// --c FILE.npy: one C per result, in the accumulator's own format (result_format: f32, f16 for an
/// FP16-destination preset, f64 for fp64_fma) and the result's shape.
std::vector<std::uint64_t> load_c(const std::string& path, const DotModel& model, const std::string& model_name,
                                  const std::vector<std::size_t>& result_shape) {
  const NpyArray arr = read_npy(path);
  const Format fc = result_format(model);
  const std::string want = fc == formats::f64 ? "<f8" : fc == formats::f16 ? "<f2" : "<f4";
  const bool shape_ok = arr.shape == result_shape || (result_shape.empty() && arr.shape == std::vector<std::size_t>{1});
  if (arr.dtype != want || !shape_ok)
    throw Error(
        fmt::format("dot: --c '{}' has dtype {} and shape {}; accepted for --model {}: dtype {} ({}, its "
                    "accumulator) and shape {} (the result's: (m, n), (m,) or (n,) for a vector operand)",
                    path, arr.dtype, shape_text(arr.shape), quote_input(model_name), want, format_name(fc),
                    shape_text(result_shape)));
  return words_of(arr);
}

/// --scale-a/--scale-b of a block-scaled preset: |u1 codes of its scale format, shape `want`.
std::vector<std::uint64_t> load_scales(const std::string& path, const char* flag, std::vector<std::size_t> want,
                                       const TfdpaBlockScale& sc, std::size_t k) {
  const NpyArray arr = read_npy(path);
  if (arr.dtype != "|u1" && arr.dtype != "<u1")
    throw Error(fmt::format("dot: {} '{}' has dtype {}; accepted: |u1 codes of {}", flag, path, arr.dtype,
                            format_name(sc.format)));
  if (want.size() == 2 && want[0] == 1 && arr.shape.size() == 1) want.erase(want.begin());
  if (want.size() == 2 && want[1] == 1 && arr.shape.size() == 1) want.pop_back();
  if (arr.shape != want) {
    std::string w;
    for (const std::size_t d : want) w += (w.empty() ? "" : ", ") + std::to_string(d);
    throw Error(fmt::format("dot: {} '{}' must have shape ({}) for k = {} and one {} scale per {} lanes", flag, path, w,
                            k, format_name(sc.format), sc.block));
  }
  return words_of(arr);
}

/// Whether --c names a .npy file (one C per result) rather than a value.
bool c_is_file(const std::string& c) {
  return c.size() > 4 && iequals(std::string_view(c).substr(c.size() - 4), ".npy");
}

void print_results(const std::vector<std::uint64_t>& D, Format dest, std::size_t m, std::size_t n, bool matrix) {
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint64_t code = D[i * n + j];
      if (matrix) fmt::print("{} {} {} {}\n", i, j, hex(dest, code), value_str(dest, code));
      else fmt::print("{} {}\n", hex(dest, code), value_str(dest, code));
    }
}

}  // namespace

void add_dot_command(CLI::App& app, DotOptions& opts) {
  auto* sub = app.add_subcommand("dot", "Dot products / GEMM of .npy operands under a named accumulation model");
  sub->add_option("--model", opts.model, "accumulation model: " + choices(dot_model_table()))->required();
  sub->add_option("--a", opts.a, ".npy vector (k) or matrix (m,k)")->required();
  sub->add_option("--b", opts.b, ".npy vector (k) or matrix (k,n)")->required();
  sub->add_option("--format", opts.format,
                  "element format (required for code arrays, whose byte width must match it, and for tensor-core "
                  "models, which multiply only their own operand formats; float arrays are rounded into it once "
                  "with rne + satfinite, or as --operand-round says); with --format-b, the format of --a only");
  sub->add_option("--format-b", opts.format_b,
                  "element format of --b when it differs from --a's (e4m3fn x e5m2, the mxf8f6f4 mixes); "
                  "default: --format");
  sub->add_option("--operand-round", opts.operand_round,
                  "how float arrays become --format/--format-b: " + choices<OperandRound>("satfinite") +
                      ": satfinite = rne, overflow and Inf to +-max (as before this option); cvt = the PTX cvt "
                      "from f32 (tf32: cvt.rna, Inf/NaN kept); truncate = tf32 only, the f32 low 13 bits ignored");
  sub->add_option("--c", opts.c,
                  "addend C of every dot product: a decimal or hex-float value rounded once to f32 (rne); default 0; "
                  "or FILE.npy, one C per result: shape (m, n) (or the result's (m,)/(n,)), dtype <f4, <f2 for an "
                  "f16-destination preset, <f8 for dmma-f64-unvalidated");
  sub->add_option("--out", opts.out,
                  "write the results as a float32 .npy (float64 for dmma-f64-unvalidated; checked before any work)");
  sub->add_option(
      "--scale-a", opts.scale_a,
      "block scales of --a for a block-scaled preset (blackwell-tcgen05-mxf8f6f4/mxf4/nvf4-unvalidated): .npy "
      "|u1 codes of its scale format (e8m0fnu or ue4m3), shape (m, nb) or (nb), nb = ceil(k / block)");
  sub->add_option("--scale-b", opts.scale_b, "block scales of --b: .npy |u1 codes, shape (nb, n) or (nb)");
}

int run_dot(const DotOptions& opts) {
  // Every option and file is checked before any work (one output transaction, file_io.hpp).
  const DotModel model = with_option("--model", [&] { return parse_dot_model(opts.model); });
  std::optional<Format> format, format_b;
  if (!opts.format.empty()) format = with_option("--format", [&] { return parse_format(opts.format); });
  format_b = format;
  if (!opts.format_b.empty()) format_b = with_option("--format-b", [&] { return parse_format(opts.format_b); });
  const auto how = parse_option<OperandRound>("--operand-round", opts.operand_round);
  const bool c_file = c_is_file(opts.c);
  std::uint64_t c = 0;
  if (!c_file) {
    const Unpacked c_value = with_option("--c", [&] { return parse_value(opts.c); });
    c = round_pack(formats::f32, c_value, {Rounding::rne, Overflow::nonsat}).code;
  }
  OutputSet outputs;
  outputs.add_input(opts.a, "--a");
  outputs.add_input(opts.b, "--b");
  if (c_file) outputs.add_input(opts.c, "--c");
  const bool write = !opts.out.empty();
  const OutputId out = write ? outputs.add_output(opts.out, "--out") : OutputId{};
  const Operand A = load_operand(opts.a, format, "--a", how);
  const Operand B = load_operand(opts.b, format_b, "--b", how, opts.format_b.empty() ? "--format" : "--format-b");
  const std::span<const Format> accepted = operand_formats(model);
  const auto source = [&](const char* flag, const std::string& path, const char* fflag, const std::string& ftext) {
    return ftext.empty() ? std::string(flag) + " '" + path + "' (no --format)"
                         : std::string(fflag) + " " + quote_input(ftext);
  };
  require_operand_format(accepted, opts.model, A.format, source("--a", opts.a, "--format", opts.format));
  if (opts.format_b.empty())
    require_operand_format(accepted, opts.model, B.format, source("--b", opts.b, "--format", opts.format));
  else
    require_operand_format(accepted, opts.model, B.format, source("--b", opts.b, "--format-b", opts.format_b),
                           "--format-b");
  if (A.shape.empty() || A.shape.size() > 2 || B.shape.empty() || B.shape.size() > 2)
    throw Error("dot: --a must be (k) or (m,k) and --b (k) or (k,n)");
  const std::size_t m = A.shape.size() == 2 ? A.shape[0] : 1, k = A.shape.back();
  const std::size_t kb = B.shape[0], n = B.shape.size() == 2 ? B.shape[1] : 1;
  if (k != kb) throw Error(fmt::format("dot: inner dimensions differ: --a has k = {}, --b has k = {}", k, kb));
  std::vector<std::size_t> shape;  // the result's: (m, n), (m), (n) or ()
  if (A.shape.size() == 2) shape.push_back(m);
  if (B.shape.size() == 2) shape.push_back(n);
  const bool scaled =
      model.kind == AccumKind::tfdpa && model.tensor_core.scale.application != BlockScaleApplication::none;
  if (!scaled && (!opts.scale_a.empty() || !opts.scale_b.empty()))
    throw Error(
        "dot: --scale-a/--scale-b are for the block-scaled tensor-core models (blackwell-tcgen05-mxf8f6f4/"
        "mxf4/nvf4-unvalidated), not --model " +
        quote_input(opts.model));
  std::vector<std::uint64_t> SA, SB;
  if (scaled) {
    const TfdpaBlockScale& sc = model.tensor_core.scale;
    const std::size_t nb = (k + static_cast<std::size_t>(sc.block) - 1) / static_cast<std::size_t>(sc.block);
    if (opts.scale_a.empty() || opts.scale_b.empty())
      throw Error(
          fmt::format("dot: --model {} is block-scaled: pass --scale-a ({}, {}) and --scale-b ({}, {}) as .npy "
                      "|u1 codes of {} (one per {} lanes of k = {})",
                      opts.model, m, nb, nb, n, format_name(sc.format), sc.block, k));
    outputs.add_input(opts.scale_a, "--scale-a");
    outputs.add_input(opts.scale_b, "--scale-b");
    SA = load_scales(opts.scale_a, "--scale-a", {m, nb}, sc, k);
    SB = load_scales(opts.scale_b, "--scale-b", {nb, n}, sc, k);
  }
  const Format fc = c_file ? result_format(model) : formats::f32;
  const std::vector<std::uint64_t> C =
      c_file ? load_c(opts.c, model, opts.model, shape) : std::vector<std::uint64_t>(m * n, c);
  const std::vector<std::uint64_t> D = gemm(model, m, n, k, A.format, A.codes, B.format, B.codes, C, SA, SB, fc);
  const Format dest = result_format(model);
  if (write) {
    if (dest == formats::f64) {  // dmma-f64: the f64 results whole (<f8)
      std::vector<double> values(D.size());
      for (std::size_t i = 0; i < D.size(); ++i) values[i] = to_double(dest, D[i]);
      write_npy(outputs, out, make_npy_f64(shape, values));
    } else {
      std::vector<float> values(D.size());
      for (std::size_t i = 0; i < D.size(); ++i) values[i] = to_float(dest, D[i]);
      write_npy(outputs, out, make_npy_f32(shape, values));
    }
    outputs.commit();
  }
  print_results(D, dest, m, n, A.shape.size() == 2 || B.shape.size() == 2);
  return 0;
}

}  // namespace minifloat::cli
