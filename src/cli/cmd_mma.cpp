// SPDX-License-Identifier: Apache-2.0
// cmd_mma.cpp: `minifloat mma-check` and `minifloat dot` (see cmd_mma.hpp).
#include "cmd_mma.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstring>
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
                            const std::string& source) {
  if (accepted.empty()) return;
  std::string list;
  for (const Format& a : accepted) {
    if (a == f) return;
    (list += list.empty() ? "" : " or ") += format_name(a);
  }
  throw Error("--model " + quote_input(model) + " multiplies " + list + " operands only, not the " + format_name(f) +
              " of " + source + "; pass --format " + format_name(accepted[0]) +
              " (float arrays are rounded into it once, rne + satfinite)");
}
}  // namespace

void add_mma_check_command(CLI::App& app, MmaCheckOptions& opts) {
  auto* sub = app.add_subcommand("mma-check", "Check a tensor-core accumulation model against measured MMA vectors");
  sub->add_option("--model", opts.model, "tensor-core preset: " + choices(tensor_core_table()))->required();
  sub->add_option("--dir", opts.dir, "folder with a_*.txt b_*.txt c_*.txt d_*_fp32.txt")->required();
  sub->add_flag("--c-zero", opts.c_zero,
                "use C = +0 instead of the c_ file: for vectors measured with a zero accumulator (the H100 FP8 "
                "folder of the shared mma-vectors, see its README); the Ada vectors use the file's C");
  sub->add_option("--format", opts.format,
                  "element format of a/b (default: e4m3fn/e5m2 from E4M3/E5M2 in the a_ file name); must be one the "
                  "preset's MMA multiplies");
  sub->add_option("--show", opts.show, "how many mismatches to print, 0..1000000 (default 5)");
}

int run_mma_check(const MmaCheckOptions& opts) {
  const TensorCorePreset& preset = parse_option("--model", tensor_core_table(), opts.model).value;
  const TfdpaModel& model = *preset.model;
  const auto show = static_cast<std::size_t>(parse_int_option("--show", opts.show, {0, 1000000}));
  if (!opts.format.empty())
    require_operand_format(preset.operands, opts.model, with_option("--format", [&] { return parse_format(opts.format); }),
                           "--format " + quote_input(opts.format));
  const MmaVectors v = load_mma_vectors(opts.dir, opts.format);
  const std::size_t rows = v.d.size();
  std::size_t match = 0, shown = 0;
  std::string report;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::uint64_t c = opts.c_zero ? 0 : v.c[r];
    const std::uint64_t c_dest = model.dest == formats::f32 ? c : convert(formats::f32, c, model.dest).code;
    std::uint64_t got = tfdpa_dot(model, v.element, v.a.data() + r * v.k, v.element, v.b.data() + r * v.k, v.k, c_dest).code;
    if (!(model.dest == formats::f32)) got = convert(model.dest, got, formats::f32).code;
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
    report += fmt::format("line {}:\n  a ({}) = {}\n  b = {}\n  c = {} ({}){}\n  expected d = {} ({})\n  computed d = {} ({})\n",
                          r + 1, format_name(v.element), a, b, hex(formats::f32, c), value_str(formats::f32, c),
                          opts.c_zero ? " [--c-zero]" : "", hex(formats::f32, v.d[r]), value_str(formats::f32, v.d[r]),
                          hex(formats::f32, got), value_str(formats::f32, got));
  }
  fmt::print("{}/{} match ({} on {}, k = {}, C {})\n", match, rows, model.name, opts.dir, v.k,
             opts.c_zero ? "= +0" : "from " + v.c_file.filename().string());
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

Operand load_operand(const std::string& path, const std::optional<Format>& format, const char* flag) {
  const NpyArray arr = read_npy(path);
  Operand op;
  op.shape = arr.shape;
  const std::size_t n = arr.element_count(), size = arr.item_size();
  const auto* p = reinterpret_cast<const unsigned char*>(arr.data.data());
  auto word = [&](std::size_t i) {
    std::uint64_t w = 0;
    for (std::size_t j = 0; j < size; ++j) w |= static_cast<std::uint64_t>(p[i * size + j]) << (8 * j);
    return w;
  };
  const std::string& d = arr.dtype;
  Format natural{};
  bool is_float = true;
  if (d == "<f4") natural = formats::f32;
  else if (d == "<f2") natural = formats::f16;
  else if (d == "<f8") natural = formats::f64;
  else if (d == "<V2") natural = formats::bf16;
  else if (d == "|u1" || d == "<u1" || d == "<V1" || d == "|V1" || d == "<u2") is_float = false;
  else throw Error(std::string("dot: ") + flag + " '" + path + "' has dtype " + d +
                   "; accepted: <f4 <f2 <f8 bfloat16 (<V2), or codes |u1 <V1 <u2 with --format");
  op.codes.resize(n);
  if (!is_float) {
    if (!format)
      throw Error(std::string("dot: ") + flag + " '" + path + "' holds raw codes (" + d + "): pass --format FMT");
    op.format = *format;
    const std::size_t storage = op.format.bits <= 8 ? 1 : op.format.bits <= 16 ? 2 : 8;
    if (storage != size)
      throw Error(fmt::format("dot: {} '{}' holds {}-byte codes ({}), but --format {} has {}-bit codes", flag, path,
                              size, d, format_name(op.format), op.format.bits));
    for (std::size_t i = 0; i < n; ++i) {
      op.codes[i] = word(i);
      if ((op.codes[i] & ~code_mask(op.format)) != 0)
        throw Error(fmt::format("dot: {} '{}' element {} = {:#x} is not a {} code", flag, path, i, op.codes[i],
                                format_name(op.format)));
    }
    return op;
  }
  op.format = format.value_or(natural);
  for (std::size_t i = 0; i < n; ++i) {  // float inputs are rounded once into --format (rne, satfinite)
    op.codes[i] = format ? convert(natural, word(i), op.format, {Rounding::rne, Overflow::satfinite}).code : word(i);
  }
  return op;
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
                  "with rne + satfinite)");
  sub->add_option("--c", opts.c,
                  "addend C of every dot product: a decimal or hex-float value rounded once to f32 (rne); default 0");
  sub->add_option("--out", opts.out, "write the results as a float32 .npy (checked before any work)");
}

int run_dot(const DotOptions& opts) {
  // Every option and file is checked before any work (one output transaction, file_io.hpp).
  const DotModel model = with_option("--model", [&] { return parse_dot_model(opts.model); });
  std::optional<Format> format;
  if (!opts.format.empty()) format = with_option("--format", [&] { return parse_format(opts.format); });
  const Unpacked c_value = with_option("--c", [&] { return parse_value(opts.c); });
  const std::uint64_t c = round_pack(formats::f32, c_value, {Rounding::rne, Overflow::nonsat}).code;
  OutputSet outputs;
  outputs.add_input(opts.a, "--a");
  outputs.add_input(opts.b, "--b");
  const bool write = !opts.out.empty();
  const OutputId out = write ? outputs.add_output(opts.out, "--out") : OutputId{};
  const Operand A = load_operand(opts.a, format, "--a");
  const Operand B = load_operand(opts.b, format, "--b");
  const std::span<const Format> accepted = operand_formats(model);
  const auto source = [&](const char* flag, const std::string& path) {
    return format ? "--format " + quote_input(opts.format) : std::string(flag) + " '" + path + "' (no --format)";
  };
  require_operand_format(accepted, opts.model, A.format, source("--a", opts.a));
  require_operand_format(accepted, opts.model, B.format, source("--b", opts.b));
  if (A.shape.empty() || A.shape.size() > 2 || B.shape.empty() || B.shape.size() > 2)
    throw Error("dot: --a must be (k) or (m,k) and --b (k) or (k,n)");
  const std::size_t m = A.shape.size() == 2 ? A.shape[0] : 1, k = A.shape.back();
  const std::size_t kb = B.shape[0], n = B.shape.size() == 2 ? B.shape[1] : 1;
  if (k != kb) throw Error(fmt::format("dot: inner dimensions differ: --a has k = {}, --b has k = {}", k, kb));
  std::vector<std::uint64_t> C(m * n, c);
  const std::vector<std::uint64_t> D = gemm(model, m, n, k, A.format, A.codes, B.format, B.codes, C);
  const Format dest = model.kind == AccumKind::tfdpa ? model.tensor_core.dest : formats::f32;
  std::vector<float> values(D.size());
  for (std::size_t i = 0; i < D.size(); ++i) values[i] = to_float(dest, D[i]);
  if (write) {
    std::vector<std::size_t> shape;
    if (A.shape.size() == 2) shape.push_back(m);
    if (B.shape.size() == 2) shape.push_back(n);
    write_npy(outputs, out, make_npy_f32(shape, values));
    outputs.commit();
  }
  const bool matrix = A.shape.size() == 2 || B.shape.size() == 2;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint64_t code = D[i * n + j];
      if (matrix) fmt::print("{} {} {} {}\n", i, j, hex(dest, code), value_str(dest, code));
      else fmt::print("{} {}\n", hex(dest, code), value_str(dest, code));
    }
  return 0;
}

}  // namespace minifloat::cli
