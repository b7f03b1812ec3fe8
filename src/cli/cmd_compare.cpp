// SPDX-License-Identifier: Apache-2.0
// cmd_compare.cpp: `minifloat compare` — bit-for-bit code tensor diff.
#include "cmd_compare.hpp"

#include <fmt/core.h>

#include <cstring>
#include <optional>

#include "minifloat/core/convert.hpp"
#include "minifloat/npy.hpp"
#include "minifloat/registry.hpp"

namespace minifloat::cli {
namespace {
std::string shape_text(const std::vector<std::size_t>& s) {
  std::string t = "(";
  for (std::size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
  return t + (s.size() == 1 ? ",)" : ")");  // NumPy's spelling: (3,)
}
std::string index_text(std::size_t i, const std::vector<std::size_t>& s) {
  if (s.size() <= 1) return "";
  std::vector<std::size_t> idx(s.size());
  for (std::size_t k = s.size(); k-- > 0;) {
    idx[k] = s[k] ? i % s[k] : 0;
    i = s[k] ? i / s[k] : 0;
  }
  return " " + shape_text(idx);
}
}  // namespace

void add_compare_command(CLI::App& app, CompareOptions& o) {
  auto* c = app.add_subcommand("compare", "Bit-for-bit diff of two code tensors (.npy); exit 1 on mismatch");
  c->add_option("--ref", o.ref, "Reference codes (.npy)")->required();
  c->add_option("--got", o.got, "Codes to check (.npy)")->required();
  c->add_option("--format", o.format, "Decode the codes in this format (e.g. e4m3fn, e2m1fn, e8m0fnu)");
  c->add_option("--show", o.show, "How many mismatches to list (default 10)");
}

int run_compare(const CompareOptions& o) {
  const NpyArray a = read_npy(o.ref), b = read_npy(o.got);
  if (a.dtype != b.dtype) throw Error("--ref has dtype " + a.dtype + " but --got has " + b.dtype + "; both must match");
  if (a.shape != b.shape)
    throw Error("--ref has shape " + shape_text(a.shape) + " but --got has " + shape_text(b.shape) + "; both must match");
  const std::size_t item = a.item_size(), n = a.element_count();
  std::optional<Format> f;
  if (!o.format.empty()) {
    f = parse_format(o.format);
    if (f->bits > 8 * item)
      throw Error("--format " + o.format + " has " + std::to_string(f->bits) + "-bit codes but the files hold " +
                  std::to_string(8 * item) + "-bit elements");
    const bool code_dtype = a.dtype == "|u1" || a.dtype == "<u1" || a.dtype == "<u2" || a.dtype == "|V1" ||
                            a.dtype == "<V1" || a.dtype == "<V2" || a.dtype == "<u4" || a.dtype == "<u8";
    if (!code_dtype)
      throw Error("--format applies to code arrays (unsigned integers); the files hold " + a.dtype +
                  " values: drop --format to compare their bytes");
  }
  auto code_at = [&](const NpyArray& arr, std::size_t i) {
    std::uint64_t v = 0;
    std::memcpy(&v, arr.data.data() + i * item, item);  // little-endian host
    return v;
  };
  auto show_code = [&](std::uint64_t c) {
    const int digits = static_cast<int>(2 * item);
    std::string s = fmt::format("0x{:0{}x}", c, digits);
    if (f) {
      if ((c & ~code_mask(*f)) != 0) s += " (not a code)";
      else s += fmt::format(" ({:.9g})", to_double(*f, c));
    }
    return s;
  };
  if (f) {  // every code must fit the format, in both files
    for (const NpyArray* arr : {&a, &b})
      for (std::size_t i = 0; i < n; ++i)
        if ((code_at(*arr, i) & ~code_mask(*f)) != 0)
          throw Error(fmt::format("{} element {} = {:#x} is not a {} code (wider than {} bits)",
                                  arr == &a ? "--ref" : "--got", i, code_at(*arr, i), o.format, f->bits));
  }
  std::size_t mism = 0;
  std::vector<std::size_t> first;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(a.data.data() + i * item, b.data.data() + i * item, item) != 0) {
      if (first.size() < o.show) first.push_back(i);
      ++mism;
    }
  }
  if (mism == 0) {
    fmt::print("identical: {} elements of dtype {} shape {}\n", n, a.dtype, shape_text(a.shape));
    return 0;
  }
  fmt::print("mismatch: {} of {} elements differ (dtype {} shape {})\n", mism, n, a.dtype, shape_text(a.shape));
  for (std::size_t i : first)
    fmt::print("  index {}{}: ref {} got {}\n", i, index_text(i, a.shape), show_code(code_at(a, i)), show_code(code_at(b, i)));
  if (mism > first.size()) fmt::print("  … {} more\n", mism - first.size());
  return 1;
}

}  // namespace minifloat::cli
