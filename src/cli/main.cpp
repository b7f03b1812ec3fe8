// SPDX-License-Identifier: Apache-2.0
// main.cpp: the `minifloat` command-line tool: formats, encode (incl. stochastic rounding),
// decode, table, tables, quantize, report, compare, mma-check, dot, train.
// Exit status: 0 success, 2 bad input (one line on stderr), 1 reserved for "checked and found
// a mismatch" in later commands.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/core/round_pack.hpp"
#include "minifloat/decimal.hpp"
#include "minifloat/parse.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/tables.hpp"

#include "cmd_compare.hpp"
#include "cmd_mma.hpp"
#include "cmd_quantize.hpp"
#include "cmd_report.hpp"
#include "cmd_sr_encode.hpp"
#include "cmd_train.hpp"

namespace {

using namespace minifloat;

constexpr int kExitBadInput = 2;

/// Prefix that shields a negative number (`-.5`, `-inf`) from CLI11's option recognition;
/// stripped again before the value is parsed.
constexpr char kNegMark = '\x1f';

std::string unmark(std::string s) {
  if (!s.empty() && s[0] == kNegMark) s.erase(0, 1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// One line: newlines of a (CLI11) message become spaces; negative-number shields are dropped.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  s.erase(std::remove(s.begin(), s.end(), kNegMark), s.end());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

/// Buffered stdout: no per-line flush (millions of lines through `encode` from stdin).
class Output {
 public:
  ~Output() { flush(); }
  void line(std::string_view s) {
    buf_.append(s);
    buf_ += '\n';
    if (buf_.size() >= (1u << 16)) flush();
  }
  void write(std::string_view s) {
    buf_.append(s);
    if (buf_.size() >= (1u << 16)) flush();
  }
  void flush() {
    if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), stdout);
    buf_.clear();
    std::fflush(stdout);
  }

 private:
  std::string buf_;
};

/// Calls `fn(line, line_number)` for every non-blank line of stdin (trailing CR and
/// surrounding blanks removed), reading in large chunks.
template <class Fn>
void for_each_stdin_line(Fn&& fn) {
  std::string pending;
  std::vector<char> chunk(1 << 16);
  std::size_t line_no = 0;
  auto handle = [&](std::string_view l) {
    ++line_no;
    while (!l.empty() && std::isspace(static_cast<unsigned char>(l.back()))) l.remove_suffix(1);
    while (!l.empty() && std::isspace(static_cast<unsigned char>(l.front()))) l.remove_prefix(1);
    if (!l.empty()) fn(l, line_no);
  };
  for (;;) {
    const std::size_t n = std::fread(chunk.data(), 1, chunk.size(), stdin);
    if (n == 0) break;
    std::string_view data(chunk.data(), n);
    while (!data.empty()) {
      const std::size_t nl = data.find('\n');
      if (nl == std::string_view::npos) {
        pending.append(data);
        break;
      }
      if (pending.empty()) {
        handle(data.substr(0, nl));
      } else {
        pending.append(data.substr(0, nl));
        handle(pending);
        pending.clear();
      }
      data.remove_prefix(nl + 1);
    }
  }
  if (!pending.empty()) handle(pending);
}

/// Rethrow a minifloat::Error raised for stdin line `n` with the line number in front.
template <class Fn>
void with_line(std::size_t n, Fn&& fn) {
  try {
    fn();
  } catch (const ParseError& e) {
    throw ParseError("stdin line " + std::to_string(n) + ": " + e.what());
  } catch (const Error& e) {
    throw Error("stdin line " + std::to_string(n) + ": " + e.what());
  }
}

/// Calls `fn(text)` for every command-line VALUE (negative-number shields removed), or, when
/// there are none, for every non-blank stdin line with its line number in any error.
template <class Fn>
void for_each_input(const std::vector<std::string>& args, Fn&& fn) {
  if (args.empty()) {
    for_each_stdin_line([&](std::string_view l, std::size_t n) { with_line(n, [&] { fn(l); }); });
  } else {
    for (const auto& v : args) fn(unmark(v));
  }
}

/// The four IEEE-style targets of `decode --to`.
Format parse_decode_target(const std::string& name) {
  const std::string l = lower(name);
  for (const char* ok : {"f32", "f64", "f16", "bf16"})
    if (l == ok) return parse_format(ok);
  throw NameError("unknown --to target '" + name + "'; accepted: f32, f64, f16, bf16");
}

std::string explain_code(Format f, std::uint64_t code) {
  const Unpacked v = unpack(f, code);
  return code_hex(code, f.bits) + " value=" + to_decimal(v) + " hex=" + to_hex_float(v) +
         " class=" + std::string(class_name(classify(f, code)));
}

// ---- encode --------------------------------------------------------------------------------

struct EncodeArgs {
  std::string format, round = "rne", overflow = "nonsat", profile = "ocp", from;
  bool explain = false;
  std::vector<std::string> values;
  cli::SrEncodeFlags sr;  ///< --sr-variant --sr-bits --seed --stream --count (stochastic rounding)
};

int run_encode(const EncodeArgs& a) {
  const Format fmt = parse_format(a.format);
  RoundingSpec spec;
  spec.rounding = parse_rounding(a.round);
  spec.overflow = parse_overflow(a.overflow);
  const Profile prof = parse_profile(a.profile);
  std::optional<Format> from;
  if (!a.from.empty()) from = parse_format(a.from);

  cli::SrEncodeFlags srf = a.sr;
  srf.rounding = spec.rounding;
  const cli::SrEncodePlan plan = cli::validate_sr_encode_flags(srf);  // also rejects SR flags without sr

  Output out;
  std::string line;
  std::uint64_t sr_index = 0;  // element index of the next stochastically rounded code
  auto emit = [&](const RoundResult& r) {
    if (a.explain) {
      line = explain_code(fmt, r.code) + " flags=" + flags_string(r.flags);
      out.line(line);
    } else {
      out.line(code_hex(r.code, fmt.bits));
    }
  };
  auto encode = [&](std::string_view text) {
    Unpacked u;
    if (from) {
      u = unpack(*from, parse_code(text, *from));
    } else {
      u = parse_value(text);
      if (!fmt.is_signed && u.negative && u.cls != Class::zero && u.cls != Class::nan)
        throw ParseError("format " + format_name(fmt) + " is unsigned: negative value '" + std::string(text) +
                         "' is not accepted (pass raw bits with --from to apply the profile's rule for negative "
                         "inputs)");
    }
    if (spec.rounding == Rounding::sr) {  // the i-th code printed is element i of the stream (seed, stream, step 0)
      spec.sr_variant = plan.variant;
      spec.sr_bits = plan.sr_bits;
      for (std::uint64_t k = 0; k < plan.count; ++k)
        emit(round_pack(fmt, u, spec, prof, sr_bits(plan.seed, plan.stream, 0, sr_index++, plan.variant)));
    } else if (from) {
      emit(convert(*from, parse_code(text, *from), fmt, spec, prof));
    } else {
      emit(round_pack(fmt, u, spec, prof));
    }
  };
  for_each_input(a.values, encode);
  return 0;
}

// ---- decode --------------------------------------------------------------------------------

struct DecodeArgs {
  std::string format, to;
  bool explain = false;
  std::vector<std::string> codes;
};

int run_decode(const DecodeArgs& a) {
  const Format fmt = parse_format(a.format);
  std::optional<Format> to;
  if (!a.to.empty()) to = parse_decode_target(a.to);
  Output out;
  auto decode = [&](std::string_view text) {
    const std::uint64_t code = parse_code(text, fmt);
    std::string s;
    if (to) {
      const RoundResult r = convert(fmt, code, *to);
      s = code_hex(r.code, to->bits);
      if (a.explain)
        s += " class=" + std::string(class_name(classify(*to, r.code))) + " flags=" + flags_string(r.flags) +
             " from=" + explain_code(fmt, code);
    } else {
      s = a.explain ? explain_code(fmt, code) : to_decimal(unpack(fmt, code));
    }
    out.line(s);
  };
  for_each_input(a.codes, decode);
  return 0;
}

// ---- formats, table, tables ----------------------------------------------------------------

struct FormatsArgs {
  std::string family, as = "text";
  int bits = 0;
};

int run_formats(const FormatsArgs& a) {
  std::vector<NamedFormat> list;
  std::set<std::string> families;
  std::vector<std::string> family_order;
  for (const auto& nf : named_formats())
    if (families.insert(nf.family).second) family_order.push_back(nf.family);
  if (!a.family.empty() && families.count(lower(a.family)) == 0) {
    std::string accepted;
    for (const auto& f : family_order) accepted += (accepted.empty() ? "" : ", ") + f;
    throw NameError("unknown family '" + a.family + "'; accepted: " + accepted);
  }
  if (a.bits < 0 || a.bits == 1 || a.bits == 2 || a.bits > 64)
    throw Error("--bits " + std::to_string(a.bits) + " is out of range; accepted: 3..64 (formats of that width)");
  for (const auto& nf : named_formats()) {
    if (!a.family.empty() && nf.family != lower(a.family)) continue;
    if (a.bits != 0 && nf.format.bits != a.bits) continue;
    list.push_back(nf);
  }
  const std::string as = lower(a.as);
  Output out;
  if (as == "text") out.write(render_catalogue_text(list));
  else if (as == "csv") out.write(render_catalogue(list, TableStyle::csv));
  else if (as == "md") out.write(render_catalogue(list, TableStyle::md));
  else throw NameError("unknown catalogue style '" + a.as + "'; accepted: text, csv, md");
  return 0;
}

struct TableArgs {
  std::string format, as = "csv", part = "all";
};

int run_table(const TableArgs& a) {
  const Format f = parse_format(a.format);
  const TableStyle style = parse<TableStyle>(a.as);
  const TablePart part = parse<TablePart>(a.part);
  const std::string text = render_table(format_name(f), f, style, part);
  Output out;
  out.write(text);
  return 0;
}

int run_tables(const std::string& dir) {
  const auto files = write_tables(dir);
  fmt::print("minifloat: wrote {} files under {}\n", files.size(), dir);
  return 0;
}

// ---- command line --------------------------------------------------------------------------

const std::vector<std::string> kCommands{"formats", "encode",  "decode",    "table", "tables", "quantize",
                                         "report",  "compare", "mma-check", "dot",   "train"};
/// Options that take a value (their value is never shielded as a negative number).
const std::set<std::string> kValueOptions{"-f",     "--format",  "-r",   "--round", "-o",    "--overflow",
                                          "-p",     "--profile", "--from", "--to",  "--as",  "--part",
                                          "--out",  "--family",  "--bits",
                                          // stochastic rounding (encode) and the other commands' valued options
                                          "--seed", "--stream", "--count", "--sr-variant", "--sr-bits", "--a", "--b",
                                          "--c", "--amax-epsilon", "--axis", "--data", "--dir", "--element",
                                          "--fp32-order", "--got", "--in", "--inf-block", "--model", "--mxint8-min",
                                          "--nan-block", "--out-codes", "--out-dequant", "--out-scales", "--out-tensor-scale", "--recipes",
                                          "--ref", "--scale-rule", "--scheme", "--schemes", "--seeds", "--show",
                                          "--steps", "--gemm", "--subnormal-amax", "--tensor", "--threads", "--zero-block"};

bool looks_negative_number(const std::string& t) {
  if (t.size() < 2 || t[0] != '-' || t[1] == '-') return false;
  if (std::isdigit(static_cast<unsigned char>(t[1])) || t[1] == '.') return true;
  const std::string rest = lower(std::string_view(t).substr(1));
  return rest == "inf" || rest == "infinity" || rest == "nan";
}

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // An unknown command gets a clear message before CLI11 sees it.
  if (!args.empty() && !args[0].empty() && args[0][0] != '-' &&
      std::find(kCommands.begin(), kCommands.end(), args[0]) == kCommands.end()) {
    std::string accepted;
    for (const auto& c : kCommands) accepted += (accepted.empty() ? "" : ", ") + c;
    throw NameError("unknown command '" + args[0] + "'; accepted: " + accepted);
  }
  // Shield negative numbers (`-.5`, `-inf`, `-1e-7`) so CLI11 takes them as positionals.
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (kValueOptions.count(args[i]) != 0) {
      ++i;
      continue;
    }
    if (looks_negative_number(args[i])) args[i].insert(0, 1, kNegMark);
  }

  CLI::App app{"minifloat: bit-exact conversions for the low-precision number formats of ML hardware", "minifloat"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "minifloat 0.1.0");

  FormatsArgs fa;
  auto* formats = app.add_subcommand("formats", "List every format with its parameters and limits");
  formats->add_option("--family", fa.family, "Only this family (ocp, fnuz, ieee-like, mx, scale, ieee754, p3109)");
  formats->add_option("--bits", fa.bits, "Only formats of this width");
  formats->add_option("--as", fa.as, "Output style: text (aligned, default), csv (exact decimals), md");

  EncodeArgs ea;
  auto* encode = app.add_subcommand("encode", "Round values into a format and print the codes");
  encode->add_option("-f,--format", ea.format, "Target format (see `minifloat formats`)")->required();
  encode->add_option("-r,--round", ea.round, "Rounding mode: rne (default) rna rtz rtp rtn rto sr");
  encode->add_option("-o,--overflow", ea.overflow, "Overflow policy: nonsat (default) satfinite satpropagate");
  encode->add_option("-p,--profile", ea.profile, "Vendor profile: ocp (default) nvidia ml_dtypes p3109");
  encode->add_option("--from", ea.from, "Read VALUEs as raw 0x… bits of this format (f32 f64 f16 bf16 or any)");
  encode->add_flag("-x,--explain", ea.explain, "Also print the exact decoded value, class and flags");
  encode->add_option("--sr-variant", ea.sr.sr_variant, "With --round sr: exact (default, 64 random bits) A B C equal");
  encode->add_option("--sr-bits", ea.sr.sr_bits, "With --round sr and variant A/B/C: random bits N, 1..32 (default 8)");
  encode->add_option("--seed", ea.sr.seed, "With --round sr: Philox seed (required), 0..18446744073709551615")
      ->check(cli::uint64_text);
  encode->add_option("--stream", ea.sr.stream, "With --round sr: stream/tensor id (default 0)");
  encode->add_option("--count", ea.sr.count,
                     "With --round sr: print K codes per VALUE; the i-th code printed (over all VALUEs and stdin "
                     "lines) uses element index i of the stream, so K codes of one VALUE are indices 0..K-1");
  encode->add_option("values", ea.values,
                     "Decimal (-1e-7, -.5), C99 hex float (0x1.8p3), inf, -inf, nan; none: one per line from stdin");

  DecodeArgs da;
  auto* decode = app.add_subcommand("decode", "Print the exact value of codes");
  decode->add_option("-f,--format", da.format, "Format of the codes")->required();
  decode->add_option("--to", da.to, "Print the value's bits in f32, f64, f16 or bf16 instead (rne)");
  decode->add_flag("-x,--explain", da.explain, "Also print the hex float, class (and flags with --to)");
  decode->add_option("codes", da.codes, "Codes as 0x…; none: one per line from stdin");

  TableArgs ta;
  auto* table = app.add_subcommand("table", "Print the code, midpoint and overflow tables of a format");
  table->add_option("format", ta.format, "Format of at most 16 bits")->required();
  table->add_option("--as", ta.as, "csv (default), md, json");
  table->add_option("--part", ta.part, "all (default), codes, midpoints, overflow");

  std::string out_dir;
  auto* tables = app.add_subcommand("tables", "Write the tables of every format of at most 8 bits (tables/)");
  tables->add_option("--out", out_dir, "Folder to write (created if needed)")->required();

  cli::QuantizeOptions qo;
  cli::add_quantize_command(app, qo);
  cli::ReportOptions ro;
  cli::add_report_command(app, ro);
  cli::CompareOptions co;
  cli::add_compare_command(app, co);
  cli::MmaCheckOptions mo;
  cli::add_mma_check_command(app, mo);
  cli::DotOptions dto;
  cli::add_dot_command(app, dto);
  cli::TrainOptions tro;
  cli::add_train_command(app, tro);

  std::vector<const char*> cargv{argv[0]};
  for (const auto& s : args) cargv.push_back(s.c_str());
  try {
    app.parse(static_cast<int>(cargv.size()), cargv.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "minifloat: error: {}\n", one_line(e.what()));
    return kExitBadInput;
  }

  if (formats->parsed()) return run_formats(fa);
  if (encode->parsed()) return run_encode(ea);
  if (decode->parsed()) return run_decode(da);
  if (table->parsed()) return run_table(ta);
  if (tables->parsed()) return run_tables(out_dir);
  for (CLI::App* sub : app.get_subcommands()) {
    const std::string name = sub->get_name();
    if (name == "quantize") return cli::run_quantize(qo);
    if (name == "report") return cli::run_report(ro);
    if (name == "compare") return cli::run_compare(co);
    if (name == "mma-check") return cli::run_mma_check(mo);
    if (name == "dot") return cli::run_dot(dto);
    if (name == "train") return cli::run_train(tro);
  }
  return kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const minifloat::Error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "minifloat: error: {}\n", one_line(e.what()));
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "minifloat: error: {}\n", one_line(e.what()));
  }
  return kExitBadInput;
}
