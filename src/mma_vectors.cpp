// SPDX-License-Identifier: Apache-2.0
// mma_vectors.cpp: the MMA test-vector reader and printer (see mma_vectors.hpp).
#include "minifloat/mma_vectors.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <iterator>
#include <system_error>

#include "excerpt.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/registry.hpp"

namespace minifloat {

namespace {
constexpr NameEntry<MmaCRule> kCRules[] = {
    {MmaCRule::file, "file", "C is the c_ file's value (mma-check --model's default)"},
    {MmaCRule::zero, "zero", "C = +0: vectors measured with a zero accumulator (the H100 FP8 set of mma-vectors)"},
    {MmaCRule::automatic, "auto",
     "per set, whichever of file and zero reproduces more rows (mma-check --all's default)"},
};
}  // namespace

const NameTable<MmaCRule>& name_table(MmaCRule) {
  static constexpr NameTable<MmaCRule> t{"c-rule", "C rule", kCRules};
  return t;
}
namespace {

namespace fs = std::filesystem;

bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f'; }

/// A non-blank line and its number (from 1, blank lines counted).
struct Line {
  std::size_t number;
  std::string_view text;
};

std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> out;
  std::size_t number = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++number;
    const std::string_view line = text.substr(pos, end - pos);
    if (!std::all_of(line.begin(), line.end(), is_space)) out.push_back({number, line});
    pos = end + 1;
  }
  return out;
}

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

[[noreturn]] void bad_line(const std::string& file, std::size_t line, const std::string& why) {
  throw ParseError("MMA vectors: " + file + " line " + std::to_string(line) + ": " + why);
}

std::string shortest(double x) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

std::string hex32(std::uint64_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(8, '0');
  for (int i = 7; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = kHex[v & 15];
  return s;
}

/// a/b rows: k FP32 hex words each, every one an exact `element` value. Returns the rows read.
std::size_t parse_operand(std::string_view text, const std::string& name, Format element, std::size_t& k,
                          const std::string& k_from, std::vector<std::uint64_t>& out) {
  const std::vector<Line> lines = lines_of(text);
  for (const Line& line : lines) {
    const std::vector<std::string_view> words = words_of(line.text);
    for (const std::string_view w : words) {
      if (w.size() != 8 ||
          !std::all_of(w.begin(), w.end(), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)) != 0; }))
        bad_line(name, line.number, detail::quoted_excerpt(w) + " is not an FP32 hex word (8 hex digits)");
      std::uint64_t bits = 0;
      for (const char ch : w)
        bits = (bits << 4) | static_cast<std::uint64_t>(std::isdigit(static_cast<unsigned char>(ch))
                                                            ? ch - '0'
                                                            : std::tolower(static_cast<unsigned char>(ch)) - 'a' + 10);
      const RoundResult r = convert(formats::f32, bits, element);
      const double value = to_double(formats::f32, bits);
      if ((r.flags & (flag_inexact | flag_invalid)) != 0 || value != to_double(element, r.code))
        bad_line(name, line.number,
                 std::string(w) + " (" + shortest(value) + ") is not exactly a " + format_name(element) + " value");
      out.push_back(r.code);
    }
    if (k == 0) k = words.size();
    if (words.size() != k)
      bad_line(name, line.number,
               std::to_string(words.size()) + " elements, expected " + std::to_string(k) + " (as on " + k_from + ")");
  }
  return lines.size();
}

/// c/d rows: one 32-character binary string each (spaces inside ignored).
std::vector<std::uint64_t> parse_bits(std::string_view text, const std::string& name) {
  std::vector<std::uint64_t> out;
  for (const Line& line : lines_of(text)) {
    std::string t;
    for (const char ch : line.text)
      if (!is_space(ch)) t += ch;
    if (t.size() != 32 || t.find_first_not_of("01") != std::string::npos)
      bad_line(name, line.number, "expected one 32-character binary string, got " + detail::quoted_excerpt(line.text));
    std::uint64_t v = 0;
    for (const char ch : t) v = (v << 1) | static_cast<std::uint64_t>(ch - '0');
    out.push_back(v);
  }
  return out;
}

/// The last non-blank line of `text` (0 when none).
std::size_t last_line(std::string_view text) {
  const std::vector<Line> lines = lines_of(text);
  return lines.empty() ? 0 : lines.back().number;
}

/// The one file in `dir` whose name starts with `prefix` and ends with `suffix`.
fs::path find_one(const fs::path& dir, const std::string& prefix, const std::string& suffix, const std::string& what) {
  std::vector<fs::path> hits;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() >= prefix.size() + suffix.size() && n.compare(0, prefix.size(), prefix) == 0 &&
        n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      hits.push_back(e.path());
  }
  if (ec) throw IoError("MMA vectors: cannot read folder '" + dir.string() + "': " + ec.message());
  if (hits.empty())
    throw IoError("MMA vectors: no " + what + " file (" + prefix + "*" + suffix + ") in '" + dir.string() +
                  "'; expected files a_*.txt, b_*.txt, c_*.txt, d_*_fp32.txt");
  if (hits.size() > 1)
    throw IoError("MMA vectors: more than one " + what + " file (" + prefix + "*" + suffix + ") in '" + dir.string() +
                  "'");
  return hits[0];
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw IoError("MMA vectors: cannot open '" + p.string() + "'");
  std::string s{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw IoError("MMA vectors: cannot read '" + p.string() + "'");
  return s;
}

}  // namespace

MmaVectors parse_mma_vectors(const MmaVectorTexts& t, Format element) {
  MmaVectors v;
  v.element = element;
  v.a_file = t.a_name;
  v.b_file = t.b_name;
  v.c_file = t.c_name;
  v.d_file = t.d_name;
  const std::vector<Line> a_lines = lines_of(t.a);
  const std::string k_from = "line " + std::to_string(a_lines.empty() ? 0 : a_lines.front().number) + " of " + t.a_name;
  const std::size_t rows_a = parse_operand(t.a, t.a_name, element, v.k, k_from, v.a);
  const std::size_t rows_b = parse_operand(t.b, t.b_name, element, v.k, k_from, v.b);
  v.c = parse_bits(t.c, t.c_name);
  v.d = parse_bits(t.d, t.d_name);
  const std::size_t rows[4] = {rows_a, rows_b, v.c.size(), v.d.size()};
  const std::string* names[4] = {&t.a_name, &t.b_name, &t.c_name, &t.d_name};
  const std::string_view texts[4] = {t.a, t.b, t.c, t.d};
  const std::size_t most = *std::max_element(std::begin(rows), std::end(rows));
  if (most == 0)
    throw ParseError("MMA vectors: no rows in " + t.a_name + ", " + t.b_name + ", " + t.c_name + ", " + t.d_name +
                     " (the files are empty)");
  for (int i = 0; i < 4; ++i)
    if (rows[i] != most) {
      const int longest = static_cast<int>(std::max_element(std::begin(rows), std::end(rows)) - std::begin(rows));
      const std::string held = rows[i] == 0 ? " has no rows"
                                            : " has " + std::to_string(rows[i]) + (rows[i] == 1 ? " row" : " rows") +
                                                  " (the last on line " + std::to_string(last_line(texts[i])) + ")";
      throw ParseError("MMA vectors: " + *names[i] + held + " but " + *names[longest] + " has " + std::to_string(most) +
                       "; every file needs one row per dot product");
    }
  return v;
}

Format mma_element_format_from_name(const std::string& file_name) {
  std::string n = file_name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  const auto has = [&](const char* tag) { return n.find(tag) != std::string::npos; };
  if (has("E4M3")) return formats::e4m3fn;
  if (has("E5M2")) return formats::e5m2;
  if (has("BF16")) return formats::bf16;  // before F16: "BF16" contains it
  if (has("TF32")) return formats::tf32;
  if (has("FP16") || has("F16")) return formats::f16;
  throw NameError("MMA vectors: cannot tell the element format from '" + file_name +
                  "' (no E4M3/E5M2/BF16/FP16/TF32 in the name); name it (mma-check --format)");
}

MmaVectors load_mma_vectors(const fs::path& dir, const std::string& element_format, MmaDestination destination) {
  if (!fs::is_directory(dir)) throw IoError("MMA vectors: '" + dir.string() + "' is not a folder");
  const bool fp16 = destination == MmaDestination::fp16;
  const fs::path a = find_one(dir, "a_", ".txt", "a"), b = find_one(dir, "b_", ".txt", "b"),
                 c = find_one(dir, "c_", ".txt", "c"),
                 d = find_one(dir, "d_", fp16 ? "_fp16.txt" : "_fp32.txt",
                              fp16 ? "d (FP16 destination)" : "d (FP32 destination)");
  const Format element =
      element_format.empty() ? mma_element_format_from_name(a.filename().string()) : parse_format(element_format);
  const std::string ta = read_text(a), tb = read_text(b), tc = read_text(c), td = read_text(d);
  return parse_mma_vectors({ta, tb, tc, td, a.string(), b.string(), c.string(), d.string()}, element);
}

MmaVectorFiles print_mma_vectors(const MmaVectors& v) {
  const std::size_t rows = v.c.size();
  if (v.k == 0 || v.d.size() != rows || v.a.size() / v.k != rows || v.a.size() % v.k != 0 || v.b.size() != v.a.size())
    throw ParseError("MMA vectors: cannot print " + std::to_string(v.a.size()) + " a, " + std::to_string(v.b.size()) +
                     " b codes with k = " + std::to_string(v.k) + " and " + std::to_string(rows) + " c, " +
                     std::to_string(v.d.size()) + " d values");
  MmaVectorFiles f;
  const auto operand = [&](const std::vector<std::uint64_t>& codes, std::string& out) {
    for (std::size_t i = 0; i < codes.size(); ++i) {
      const RoundResult r = convert(v.element, codes[i], formats::f32);
      const double value = to_double(v.element, codes[i]);
      if (r.flags != flag_none || value != to_double(formats::f32, r.code))
        throw ParseError("MMA vectors: code " + hex32(codes[i]) + " of " + format_name(v.element) +
                         " is not exactly an FP32 value");
      out += hex32(r.code);
      out += (i + 1) % v.k == 0 ? '\n' : ' ';
    }
  };
  operand(v.a, f.a);
  operand(v.b, f.b);
  const auto bits = [](const std::vector<std::uint64_t>& codes, std::string& out) {
    for (const std::uint64_t c : codes) {
      if ((c >> 32) != 0)
        throw ParseError("MMA vectors: c/d value 0x" + hex32(c >> 32) + hex32(c) + " is wider than FP32");
      for (int i = 31; i >= 0; --i) out += ((c >> i) & 1) ? '1' : '0';
      out += '\n';
    }
  };
  bits(v.c, f.c);
  bits(v.d, f.d);
  return f;
}

}  // namespace minifloat
