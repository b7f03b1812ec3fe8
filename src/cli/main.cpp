// SPDX-License-Identifier: Apache-2.0
// main.cpp: the `minifloat` command-line tool: formats, encode (incl. stochastic rounding),
// decode, table, tables, quantize, report, compare, convert, probe gen/check, mma-check, dot, train, names, docs. Every valued
// option's accepted names come from the registry (registry.hpp; options.hpp).
// Exit status: 0 success, 2 bad input (one line on stderr), 1 reserved for "checked and found
// a mismatch" in later commands.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/core/round_pack.hpp"
#include "minifloat/decimal.hpp"
#include "minifloat/names.hpp"
#include "minifloat/parse.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/tables.hpp"
#include "minifloat/check/names.hpp"
#include "minifloat/cuda/names.hpp"
#include "minifloat/train/study.hpp"

#include "cmd_compare.hpp"
#include "cmd_mma.hpp"
#include "cmd_probe.hpp"
#include "cmd_quantize.hpp"
#include "cmd_report.hpp"
#include "cmd_sr_encode.hpp"
#include "cmd_train.hpp"
#include "common.hpp"
#include "options.hpp"

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
  cli::SrEncodeFlags sr;                              ///< --sr-variant --seed (stochastic rounding)
  std::optional<std::string> sr_bits, stream, count;  ///< as typed; ranges in cmd_sr_encode.hpp
  std::optional<std::string> rbits;  ///< --rbits 0x…: one explicit random word instead of the Philox stream
  bool ftz = false, daz = false;     ///< --ftz, --daz (RoundingSpec::ftz/daz)
};

std::optional<long long> int_option(const char* option, const std::optional<std::string>& text, cli::IntRange r) {
  if (!text) return std::nullopt;
  return cli::parse_int_option(option, *text, r);
}

int run_encode(const EncodeArgs& a) {
  const Format fmt = cli::with_option("--format", [&] { return parse_format(a.format); });
  RoundingSpec spec;
  spec.rounding = cli::parse_option<Rounding>("--round", a.round);
  spec.overflow = cli::parse_option<Overflow>("--overflow", a.overflow);
  spec.ftz = a.ftz;
  spec.daz = a.daz;
  const Profile prof = cli::parse_option("--profile", profile_table(), a.profile).value;
  std::optional<Format> from;
  if (!a.from.empty()) from = cli::with_option("--from", [&] { return parse_format(a.from); });

  cli::SrEncodeFlags srf = a.sr;
  srf.rounding = spec.rounding;
  srf.sr_bits = int_option("--sr-bits", a.sr_bits, cli::kSrBitsRange);
  srf.stream = int_option("--stream", a.stream, cli::kStreamRange);
  srf.count = int_option("--count", a.count, cli::kCountRange);
  std::optional<std::uint64_t> rbits;
  if (a.rbits) {  // `probe check`'s reproduce lines: the random word of one case, instead of --seed
    if (spec.rounding != Rounding::sr) throw Error("--rbits needs --round sr");
    if (srf.seed || srf.stream || srf.count)
      throw Error("--rbits replaces --seed, --stream and --count; give one or the other");
    rbits = parse_code(*a.rbits, formats::f64);  // any 64-bit word, 0x… or decimal
    srf.seed = 0;
  }
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
    } else {  // a negative value into an unsigned format follows Profile::unsigned_negative, as raw bits do
      u = parse_value(text);
    }
    if (rbits) {
      spec.sr_variant = plan.variant;
      spec.sr_bits = plan.sr_bits;
      emit(from ? convert(*from, parse_code(text, *from), fmt, spec, prof, *rbits)
                : round_pack(fmt, u, spec, prof, *rbits));
    } else if (spec.rounding ==
               Rounding::sr) {  // the i-th code printed is element i of the stream (seed, stream, step 0)
      spec.sr_variant = plan.variant;
      spec.sr_bits = plan.sr_bits;
      for (std::uint64_t k = 0; k < plan.count; ++k)
        emit(round_pack(fmt, u, spec, prof, sr_bits(plan.seed, plan.stream, 0, sr_index++, spec)));
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
  std::string format, to, in, out;
  std::optional<std::string> threads;  ///< --threads (with --in only)
  bool explain = false;
  std::vector<std::string> codes;
};

int run_decode(const DecodeArgs& a) {
  if (!a.in.empty()) {
    if (!a.codes.empty()) throw Error("decode --in reads the codes from the file; give no CODES");
    return cli::run_decode_file(a.in, a.format, a.to.empty() ? "f32" : a.to, a.out, a.threads.value_or("0"));
  }
  if (a.threads) throw Error("decode --threads needs --in FILE.npy (codes given as text are decoded one by one)");
  if (!a.out.empty()) throw Error("decode --out needs --in FILE.npy");
  const Format fmt = cli::with_option("--format", [&] { return parse_format(a.format); });
  std::optional<Format> to;
  if (!a.to.empty()) to = cli::parse_option("--to", decode_target_table(), a.to).value;
  Output out;
  auto decode = [&](std::string_view text) {
    const std::uint64_t code = parse_code(text, fmt);
    std::string s;
    if (to) {
      const RoundResult r = convert(fmt, code, *to);
      // -x: the result's fields as encode -x prints them (one class=, the result's), then the input code
      s = a.explain
              ? explain_code(*to, r.code) + " flags=" + flags_string(r.flags) + " from=" + code_hex(code, fmt.bits)
              : code_hex(r.code, to->bits);
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
  std::optional<std::string> bits;
};

/// The families of named_formats(), in table order.
std::vector<std::string> format_families() {
  std::vector<std::string> order;
  for (const auto& nf : named_formats())
    if (std::find(order.begin(), order.end(), family_name(nf.family)) == order.end())
      order.push_back(family_name(nf.family));
  return order;
}
std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) (s += s.empty() ? "" : ", ") += x;
  return s;
}

int run_formats(const FormatsArgs& a) {
  const std::vector<std::string> families = format_families();
  const bool all = lower(a.family) == "all";
  if (!a.family.empty() && !all && std::find(families.begin(), families.end(), lower(a.family)) == families.end())
    throw NameError("--family: unknown format family '" + quote_input(a.family) + "'; accepted: " + joined(families) +
                    ", all");
  const int bits = a.bits ? static_cast<int>(cli::parse_int_option("--bits", *a.bits, {3, 64})) : 0;
  const CatalogueStyle style = cli::parse_option<CatalogueStyle>("--as", a.as);
  std::vector<NamedFormat> list;
  for (const auto& nf : named_formats()) {
    // default: the named formats (the P3109 family's 504 come with --family p3109 or all)
    if (a.family.empty() ? nf.family == FormatFamily::p3109 : !all && family_name(nf.family) != lower(a.family))
      continue;
    if (bits != 0 && nf.format.bits != bits) continue;
    list.push_back(nf);
  }
  Output out;
  switch (style) {
    case CatalogueStyle::text: out.write(render_catalogue_text(list)); break;
    case CatalogueStyle::csv: out.write(render_catalogue(list, TableStyle::csv)); break;
    case CatalogueStyle::md: out.write(render_catalogue(list, TableStyle::md)); break;
  }
  return 0;
}

struct TableArgs {
  std::string format, as = "csv", part = "all";
};

int run_table(const TableArgs& a) {
  const Format f = cli::with_option("format", [&] { return parse_format(a.format); });
  const TableStyle style = cli::parse_option<TableStyle>("--as", a.as);
  const TablePart part = cli::parse_option<TablePart>("--part", a.part);
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

/// CLI11's texts for two errors name nothing a user can act on; these say what is accepted.
/// "A subcommand is required" → the commands of the deepest command given; "--x: At Most 1
/// required but received 2" → the option was given twice; an unexpected argument with a `--` among the
/// arguments (`double_dash`) → where `--` goes. Every other text is CLI11's own.
std::string cli_error_text(const CLI::ParseError& e, const CLI::App& app, bool double_dash) {
  const std::string what = e.what();
  if (what == "A subcommand is required") {
    const CLI::App* at = &app;
    for (bool deeper = true; deeper;) {
      deeper = false;
      for (const CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; }))
        if (sub->parsed()) {
          at = sub;
          deeper = true;
          break;
        }
    }
    std::string names;
    for (const CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; }))
      (names += names.empty() ? "" : ", ") += sub->get_name();
    return (at == &app ? std::string("a command is required") : "'" + at->get_name() + "' needs a command") +
           "; accepted: " + names + " (--help lists them)";
  }
  if (what.rfind("The following argument was not expected: ", 0) == 0 && double_dash)
    // `encode -f e4m3fn 1 -- -0`: CLI11 takes no value after a `--` that follows a value
    return what +
           "; `--` goes before the first value (encode -f e4m3fn -- 1 -0), or give negative values as they "
           "are (encode -f e4m3fn 1 -0)";
  const std::string mark = ": At Most 1 required but received ";
  if (const auto at = what.find(mark); at != std::string::npos)
    return what.substr(0, at) + " was given " + what.substr(at + mark.size()) +
           " times; it takes one value: give it once";
  return what;
}

// ---- names ---------------------------------------------------------------------------------

/// Every kind the tool names: the library's, then the checker's, the training layer's and the CUDA layer's.
std::vector<NameListing> all_listings() {
  std::vector<NameListing> v = name_listings();
  for (auto& l : check::name_listings()) v.push_back(std::move(l));
  for (auto& l : train::name_listings()) v.push_back(std::move(l));
  for (auto& l : cuda::name_listings()) v.push_back(std::move(l));
  return v;
}

int run_names(const std::string& kind) {
  const std::vector<NameListing> all = all_listings();
  std::vector<const NameListing*> chosen;
  for (const auto& l : all)
    if (kind.empty() || iequals(l.id, kind)) chosen.push_back(&l);
  if (chosen.empty()) {
    std::string ids;
    for (const auto& l : all) (ids += ids.empty() ? "" : ", ") += l.id;
    throw NameError("unknown kind '" + quote_input(kind) + "'; accepted: " + ids);
  }
  std::size_t wk = 0, wn = 0;
  for (const NameListing* l : chosen) {
    wk = std::max(wk, l->id.size());
    for (const auto& [n, _] : l->names) wn = std::max(wn, n.size());
    for (const auto& p : l->patterns) wn = std::max(wn, p.pattern.size());
  }
  wn = std::min<std::size_t>(wn, 32);
  Output out;
  auto row = [&](const std::string& k, std::string_view n, const std::string& summary) {
    std::string line = k + std::string(wk - k.size() + 2, ' ') + std::string(n);
    line += n.size() < wn ? std::string(wn - n.size() + 2, ' ') : std::string("  ");
    out.line(line + summary);
  };
  for (const NameListing* l : chosen) {
    for (const auto& [n, summary] : l->names) row(l->id, n, summary);
    for (const auto& p : l->patterns) row(l->id, p.pattern, "pattern: " + std::string(p.summary));
  }
  return 0;
}

// ---- command line --------------------------------------------------------------------------

bool looks_negative_number(const std::string& t) {
  if (t.size() < 2 || t[0] != '-' || t[1] == '-') return false;
  if (std::isdigit(static_cast<unsigned char>(t[1])) || t[1] == '.') return true;
  const std::string rest = lower(std::string_view(t).substr(1));
  return rest == "inf" || rest == "infinity" || rest == "nan";
}

/// Every option of every command and nested command (`probe gen`, `probe check`) that takes a value (its
/// value is never shielded as a negative number): read from the commands themselves.
void add_value_options(const CLI::App& app, std::set<std::string>& v) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_positional() || o->get_items_expected_min() == 0) continue;
      for (const auto& n : o->get_lnames()) v.insert("--" + n);
      for (const auto& n : o->get_snames()) v.insert("-" + n);
    }
    add_value_options(*sub, v);
  }
}
std::set<std::string> value_options(const CLI::App& app) {
  std::set<std::string> v;
  add_value_options(app, v);
  return v;
}

int run(int argc, char** argv) {
  CLI::App app{"minifloat: bit-exact conversions for the low-precision number formats of ML hardware", "minifloat"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "minifloat 0.1.0");

  FormatsArgs fa;
  auto* formats = app.add_subcommand(
      "formats", "List the named formats (P3109 with --family p3109, every one with --family all) and their limits");
  formats->add_option(
      "--family", fa.family,
      "Only this family: " + joined(format_families()) + "; all: every family (default: every family but p3109)");
  formats->add_option("--bits", fa.bits, "Only formats of this width, 3..64");
  formats->add_option("--as", fa.as, "Output style: " + cli::choices<CatalogueStyle>("text"));

  EncodeArgs ea;
  auto* encode = app.add_subcommand("encode", "Round values into a format and print the codes");
  encode->add_option("-f,--format", ea.format, "Target format (see `minifloat formats`, `minifloat names format`)")
      ->required();
  encode->add_option("-r,--round", ea.round, "Rounding mode: " + cli::choices<Rounding>("rne"));
  encode->add_option("-o,--overflow", ea.overflow, "Overflow policy: " + cli::choices<Overflow>("nonsat"));
  encode->add_option("-p,--profile", ea.profile, "Vendor profile: " + cli::choices(profile_table(), "ocp"));
  encode->add_option("--from", ea.from,
                     "Read VALUEs as raw 0x… bits of this format (f32, f64, f16, bf16 or any format)");
  encode->add_flag("-x,--explain", ea.explain, "Also print the exact decoded value, class and flags");
  encode->add_option("--sr-variant", ea.sr.sr_variant,
                     "With --round sr: " + cli::choices<SrVariant>("exact") + " (exact reads 64 random bits, equal 1)");
  encode->add_option("--sr-bits", ea.sr_bits, cli::kSrBitsHelp);
  encode->add_flag("--ftz", ea.ftz, cli::kFtzHelp);
  encode->add_flag("--daz", ea.daz, cli::kDazHelp);
  encode->add_option("--seed", ea.sr.seed, "With --round sr: Philox seed (required), 0..18446744073709551615")
      ->type_name("UINT64")
      ->check(cli::uint64_text);
  encode->add_option("--stream", ea.stream, "With --round sr: stream/tensor id, 0..4294967295 (default 0)");
  encode->add_option("--count", ea.count,
                     "With --round sr: print K codes per VALUE, 1..100000000 (default 1); the i-th code printed (over "
                     "all VALUEs and stdin lines) uses element index i of the stream, so K codes of one VALUE are "
                     "indices 0..K-1");
  encode->add_option("--rbits", ea.rbits,
                     "With --round sr: round with this one random word (0x… or decimal) instead of --seed's stream");
  encode->add_option("values", ea.values,
                     "Decimal (-1e-7, -.5), C99 hex float (0x1.8p3; p±N is required: 0x7e alone is refused, "
                     "--from reads codes), inf, -inf, nan; none: one per line from stdin "
                     "(blank lines skipped; an error names its line). Negative values are given as they are "
                     "(`encode -f e4m3fn 1 -0`), or after a `--` placed before the first value "
                     "(`encode -f e4m3fn -- 1 -0`). A "
                     "negative value into an unsigned format follows the profile's unsigned_negative rule");

  DecodeArgs da;
  auto* decode = app.add_subcommand("decode", "Print the exact value of codes");
  decode->add_option("-f,--format", da.format, "Format of the codes")->required();
  decode->add_option("--to", da.to,
                     "Print the value's bits in this format instead (rne): " + cli::choices(decode_target_table()));
  decode->add_flag("-x,--explain", da.explain, "Also print the hex float, class (and flags with --to)");
  decode->add_option("--in", da.in,
                     "Decode every code of this .npy (|u1, <u2, <V1, <V2) instead (needs --out; --to f32 or f64)");
  decode->add_option("--out", da.out, "With --in: the decoded values as .npy (<f4 or <f8, same shape)");
  decode->add_option("--threads", da.threads,
                     "With --in: threads, 0..1024 (default 0: all cores); the output bytes do not depend on it");
  decode->add_option("codes", da.codes, "Codes as 0x…; none: one per line from stdin (blank lines skipped)");

  TableArgs ta;
  auto* table = app.add_subcommand("table", "Print the code, midpoint and overflow tables of a format");
  table->add_option("format", ta.format, "Format of at most 16 bits")->required();
  table->add_option("--as", ta.as, cli::choices<TableStyle>("csv"));
  table->add_option("--part", ta.part, cli::choices<TablePart>("all"));

  std::string out_dir;
  auto* tables = app.add_subcommand("tables", "Write the tables of every format of at most 8 bits (tables/)");
  tables
      ->add_option("--out", out_dir,
                   "Folder to write (created when its parent folder exists); every file is replaced together, or none "
                   "on an error")
      ->required();

  cli::QuantizeOptions qo;
  cli::add_quantize_command(app, qo);
  cli::ReportOptions ro;
  cli::add_report_command(app, ro);
  cli::CompareOptions co;
  cli::add_compare_command(app, co);
  cli::ConvertOptions cvo;
  cli::add_convert_command(app, cvo);
  cli::ProbeGenOptions pgo;
  cli::ProbeCheckOptions pco;
  CLI::App* probe_gen = nullptr;
  CLI::App* probe_check = nullptr;
  cli::add_probe_command(app, pgo, pco, probe_gen, probe_check);
  cli::MmaCheckOptions mo;
  cli::add_mma_check_command(app, mo);
  cli::DotOptions dto;
  cli::add_dot_command(app, dto);
  cli::TrainOptions tro;
  cli::add_train_command(app, tro);

  std::string names_kind;
  auto* names = app.add_subcommand("names", "List every name the tool accepts, by kind, with a one-line summary");
  std::string kinds;
  for (const auto& l : all_listings()) (kinds += kinds.empty() ? "" : ", ") += l.id;
  names->add_option("kind", names_kind, "Only this kind: " + kinds);

  std::string docs_dir;
  auto* docs = app.add_subcommand("docs", "Write the generated reference pages formats.md and names.md (docs/)");
  docs->add_option("--out", docs_dir,
                   "Folder to write (created when its parent folder exists); both files are replaced together")
      ->required();

  std::vector<std::string> args(argv + 1, argv + argc);
  // An unknown command gets a clear message before CLI11 sees it.
  const auto subs = app.get_subcommands({});
  const auto is_command = [&](const std::string& a) {
    return std::any_of(subs.begin(), subs.end(), [&](const CLI::App* c) { return c->get_name() == a; });
  };
  if (!args.empty() && !args[0].empty() && args[0][0] != '-' && !is_command(args[0])) {
    std::string accepted;
    for (const CLI::App* sub : subs) (accepted += accepted.empty() ? "" : ", ") += sub->get_name();
    throw NameError("unknown command '" + quote_input(args[0]) + "'; accepted: " + accepted);
  }
  // Shield negative numbers (`-.5`, `-inf`, `-1e-7`) so CLI11 takes them as positionals.
  const std::set<std::string> valued = value_options(app);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (valued.count(args[i]) != 0) {
      ++i;
      continue;
    }
    if (looks_negative_number(args[i])) args[i].insert(0, 1, kNegMark);
  }

  std::vector<const char*> cargv{argv[0]};
  for (const auto& s : args) cargv.push_back(s.c_str());
  try {
    app.parse(static_cast<int>(cargv.size()), cargv.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "minifloat: error: {}\n",
               one_line(cli_error_text(e, app, std::find(args.begin(), args.end(), "--") != args.end())));
    return kExitBadInput;
  }

  if (formats->parsed()) return run_formats(fa);
  if (encode->parsed()) return run_encode(ea);
  if (decode->parsed()) return run_decode(da);
  if (table->parsed()) return run_table(ta);
  if (tables->parsed()) return run_tables(out_dir);
  if (names->parsed()) return run_names(names_kind);
  if (docs->parsed()) {
    for (const auto& f : write_docs(docs_dir, all_listings()))
      fmt::print("minifloat: wrote {}\n", (std::filesystem::path(docs_dir) / f).string());
    return 0;
  }
  for (CLI::App* sub : app.get_subcommands()) {
    const std::string name = sub->get_name();
    if (name == "quantize") return cli::run_quantize(qo);
    if (name == "report") return cli::run_report(ro);
    if (name == "compare") return cli::run_compare(co);
    if (name == "convert") return cli::run_convert(cvo);
    if (name == "probe") return probe_gen->parsed() ? cli::run_probe_gen(pgo) : cli::run_probe_check(pco);
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
  } catch (const minifloat::cli::Interrupted& e) {  // scratch folders and temporaries are gone with the stack
    std::fflush(stdout);
    std::signal(e.sig, SIG_DFL);
    std::raise(e.sig);
    return 128 + e.sig;
  } catch (const minifloat::Error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "minifloat: error: {}\n", one_line(e.what()));
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "minifloat: error: {}\n", one_line(e.what()));
  }
  return kExitBadInput;
}
