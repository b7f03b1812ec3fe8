// SPDX-License-Identifier: Apache-2.0
// cmd_compare.cpp: `minifloat compare` — bit-for-bit code tensor diff, streamed piece by piece.
#include "cmd_compare.hpp"

#include <fmt/core.h>

#include <cstring>
#include <optional>

#include "common.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/decimal.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/registry.hpp"
#include "options.hpp"

namespace minifloat::cli {
namespace {
std::string index_text(std::size_t i, const std::vector<std::size_t>& s) {
  if (s.size() <= 1) return "";
  std::vector<std::size_t> idx(s.size());
  for (std::size_t k = s.size(); k-- > 0;) {
    idx[k] = s[k] ? i % s[k] : 0;
    i = s[k] ? i / s[k] : 0;
  }
  return " " + shape_text(idx);
}
bool is_code_dtype(const std::string& d) {
  return d == "|u1" || d == "<u1" || d == "<u2" || d == "|V1" || d == "<V1" || d == "<V2" || d == "<u4" || d == "<u8";
}
}  // namespace

void add_compare_command(CLI::App& app, CompareOptions& o) {
  auto* c = app.add_subcommand("compare", "Bit-for-bit diff of two code tensors (.npy); exit 1 on mismatch");
  c->add_option("--ref", o.ref, "Reference codes (.npy)")->required();
  c->add_option("--got", o.got, "Codes to check (.npy)")->required();
  c->add_option("--format", o.format, "The codes' format: decoded values are shown (e.g. e4m3fn, e2m1fn, e8m0fnu)");
  c->add_flag("--packed", o.packed,
              "With --format of 4 or 6 bits: the |u1 files hold packed rows (quantize --packed: FP4 two per byte, "
              "element 2i in the low nibble; FP6 4 codes in 3 bytes); compare code by code");
  c->add_flag("--nan-equal", o.nan_equal,
              "With --format: any NaN code equals any NaN code (e.g. 0x7f and 0xff in e4m3fn)");
  c->add_option("--show", o.show, "How many mismatches to list, 0..1000000 (default 10)");
  c->add_option("--in", o.in,
                "The inputs that produced the codes (.npy, one element per code: <f4 <f8 <f2 <V2 or raw "
                "bits): each listed mismatch shows its input");
}

int run_compare(const CompareOptions& o) {
  const std::size_t show = static_cast<std::size_t>(parse_int_option("--show", o.show, {0, 1000000}));
  std::optional<Format> f;
  if (!o.format.empty()) f = with_option("--format", [&] { return parse_format(o.format); });
  if ((o.packed || o.nan_equal) && !f)
    throw Error(std::string(o.packed ? "--packed" : "--nan-equal") + " needs --format (which codes are packed / NaN)");
  if (o.nan_equal && !has_nan(*f)) throw Error("--nan-equal: " + o.format + " has no NaN code");
  if (o.packed && f->bits != 4 && f->bits != 6)
    throw Error("--packed applies to 4- and 6-bit formats; " + o.format + " has " + std::to_string(f->bits) +
                "-bit codes");
  const TensorLocation a = locate_npy(o.ref), b = locate_npy(o.got);
  if (a.dtype != b.dtype) throw Error("--ref has dtype " + a.dtype + " but --got has " + b.dtype + "; both must match");
  if (a.shape != b.shape)
    throw Error("--ref has shape " + shape_text(a.shape) + " but --got has " + shape_text(b.shape) +
                "; both must match");
  const std::size_t item = a.item_size, n = a.element_count();
  if (f) {
    if (!is_code_dtype(a.dtype))
      throw Error("--format applies to code arrays (unsigned integers); the files hold " + a.dtype +
                  " values: drop --format to compare their bytes");
    if (o.packed && item != 1) throw Error("--packed reads one byte per element (|u1); the files hold " + a.dtype);
    if (f->bits > 8 * item)
      throw Error("--format " + o.format + " has " + std::to_string(f->bits) + "-bit codes but the files hold " +
                  std::to_string(8 * item) + "-bit elements");
  }
  // The code view: packed files hold `per_row` codes in each row of `row_bytes` bytes.
  const std::size_t row_bytes = a.shape.empty() ? 1 : a.shape.back();
  const std::size_t per_row = o.packed ? row_bytes * 8 / static_cast<std::size_t>(f->bits) : row_bytes;
  std::vector<std::size_t> code_shape = a.shape;
  if (o.packed) {
    if (code_shape.empty()) code_shape.push_back(per_row);
    else code_shape.back() = per_row;
  }
  const std::size_t rows = row_bytes ? n / row_bytes : 0;
  const std::size_t ncodes = o.packed ? rows * per_row : n;

  auto show_code = [&](std::uint64_t c) {
    const int digits = o.packed ? 1 + (f->bits > 4) : static_cast<int>(2 * item);
    std::string s = fmt::format("0x{:0{}x}", c, digits);
    if (f) s += " (" + to_short_exact(unpack(*f, c)) + ")";  // NaN is `nan`, as encode -x prints it
    return s;
  };
  // Stream both files: whole rows (packed) or flat elements, at most ~kPieceElements bytes at once.
  const TensorReader ra(a), rb(b);
  const std::size_t piece =
      o.packed ? std::max<std::size_t>(1, kPieceElements / std::max<std::size_t>(row_bytes, 1)) * row_bytes
               : kPieceElements;
  std::vector<std::byte> ba, bb;
  std::size_t mism = 0;
  std::vector<std::pair<std::size_t, std::pair<std::uint64_t, std::uint64_t>>> first;
  const std::uint64_t mask = f ? code_mask(*f) : ~std::uint64_t{0};
  // code j of a piece's bytes: element j (unpacked) or code j % per_row of row j / per_row (packed)
  auto code_at = [&](const std::vector<std::byte>& bytes, std::size_t j) -> std::uint64_t {
    if (!o.packed) {
      std::uint64_t v = 0;
      std::memcpy(&v, bytes.data() + j * item, item);  // little-endian host
      return v;
    }
    const std::size_t base = (j / per_row) * row_bytes, bit = (j % per_row) * static_cast<std::size_t>(f->bits);
    unsigned v = static_cast<unsigned>(bytes[base + bit / 8]) >> (bit % 8);
    if (bit % 8 + static_cast<std::size_t>(f->bits) > 8 && bit / 8 + 1 < row_bytes)
      v |= static_cast<unsigned>(bytes[base + bit / 8 + 1]) << (8 - bit % 8);
    return v & ((1u << f->bits) - 1);
  };
  for (std::size_t e0 = 0; e0 < n; e0 += piece) {
    const std::size_t m = std::min(piece, n - e0);
    ba.resize(m * item);
    bb.resize(m * item);
    ra.read_bytes(e0, ba);
    rb.read_bytes(e0, bb);
    const std::size_t c0 = o.packed ? (e0 / row_bytes) * per_row : e0, nc = o.packed ? (m / row_bytes) * per_row : m;
    if (!f && std::memcmp(ba.data(), bb.data(), ba.size()) == 0) continue;  // raw bytes: the fast path
    for (std::size_t j = 0; j < nc; ++j) {
      const std::uint64_t ca = code_at(ba, j), cb = code_at(bb, j);
      if (((ca | cb) & ~mask) != 0)
        throw Error(fmt::format("{} element {} = {:#x} is not {} code (wider than {} bits)",
                                (ca & ~mask) ? "--ref" : "--got", c0 + j, (ca & ~mask) ? ca : cb,
                                with_article(o.format), f->bits));
      bool equal = ca == cb;
      if (!equal && o.nan_equal) equal = classify(*f, ca) == Class::nan && classify(*f, cb) == Class::nan;
      if (!equal) {
        if (first.size() < show) first.push_back({c0 + j, {ca, cb}});
        ++mism;
      }
    }
  }
  const std::string what =
      o.packed ? fmt::format("{} {}-bit codes packed in |u1 shape {}", ncodes, f->bits, shape_text(a.shape))
               : fmt::format("{} elements of dtype {} shape {}", n, a.dtype, shape_text(a.shape));
  if (mism == 0) {
    fmt::print("identical: {}{}\n", what, o.nan_equal ? " (NaN codes equal)" : "");
    return 0;
  }
  if (o.packed)
    fmt::print("mismatch: {} of {} codes differ ({}-bit codes packed in |u1 shape {})\n", mism, ncodes, f->bits,
               shape_text(a.shape));
  else fmt::print("mismatch: {} of {} elements differ (dtype {} shape {})\n", mism, n, a.dtype, shape_text(a.shape));
  std::optional<NpyArray> inputs;  // --in: read whole (only the listed mismatches are shown)
  std::optional<Format> in_format;
  if (!o.in.empty()) {
    inputs = read_npy(o.in);
    const std::size_t want = o.packed ? ncodes : n;
    if (inputs->element_count() != want)
      throw Error(
          fmt::format("--in has {} elements but the codes are {}; one input per code", inputs->element_count(), want));
    const std::string& d = inputs->dtype;
    if (d == "<f4") in_format = formats::f32;
    else if (d == "<f8") in_format = formats::f64;
    else if (d == "<f2") in_format = formats::f16;
    else if (d == "<V2" || d == "|V2") in_format = formats::bf16;
  }
  auto show_input = [&](std::size_t i) -> std::string {
    if (!inputs) return "";
    const std::size_t isz = inputs->item_size();
    std::uint64_t v = 0;
    std::memcpy(&v, inputs->data.data() + i * isz, isz);
    if (!in_format) return fmt::format(" in {:#0{}x}", v, 2 + 2 * isz);
    return fmt::format(" in {} {} ({})", format_name(*in_format), code_hex(v, in_format->bits),
                       to_short_exact(unpack(*in_format, v), 24));
  };
  for (const auto& [i, cc] : first)
    fmt::print("  index {}{}: ref {} got {}{}\n", i, index_text(i, code_shape), show_code(cc.first),
               show_code(cc.second), show_input(i));
  if (mism > first.size()) fmt::print("  … {} more\n", mism - first.size());
  return 1;
}

}  // namespace minifloat::cli
