// SPDX-License-Identifier: Apache-2.0
// sweep_main.cpp: `minifloat_sweep`, the exhaustive f32 sweep: every binary32 bit pattern through
// the engine and the independent NearestOracle, per (format, mode, policy); sharded, resumable,
// multi-threaded, with a per-combination digest of the output codes.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/digest.hpp"
#include "minifloat/core/named_formats.hpp"
#include "nearest_oracle.hpp"

namespace {

using minifloat_test::sweep::FormatSpec;
using minifloat_test::sweep::Mode;
using minifloat_test::sweep::NearestOracle;
using minifloat_test::sweep::OracleResult;
using minifloat_test::sweep::Policy;

constexpr std::uint64_t kAllInputs = std::uint64_t{1} << 32;
constexpr std::uint64_t kChunk = minifloat::kSweepChunk;  // inputs per work unit and per chunk digest
constexpr std::uint64_t kFnvOffset = minifloat::kFnv1a64Offset;  // core/digest.hpp: shared with the CUDA sweep kernel

const char* const kUsage =
    "usage: minifloat_sweep [--formats A,B] [--modes A,B] [--policies A,B] [--threads N]\n"
    "                       [--shard I/N] [--state FILE] [--limit-inputs N | --stride S | --structured]\n"
    "                       [--max-examples K] [--list]\n"
    "Runs every binary32 bit pattern (or every S-th one) through minifloat::convert (profile ocp)\n"
    "and the independent NearestOracle for each (format, mode, policy) combination and compares\n"
    "the codes and the inexact/overflow flags.\n"
    "  --formats     names of the oracle's formats (nearest_oracle.cpp; --list shows them; default: all)\n"
    "  --modes       rne rna rtz rtp rtn rto rnz rnu (default: all)\n"
    "  --policies    nonsat satfinite satpropagate (default: all)\n"
    "  --threads N   worker threads (default: std::thread::hardware_concurrency())\n"
    "  --shard I/N   run only combinations whose index in the selected list is I mod N (0 <= I < N)\n"
    "  --state FILE  resumable progress file: one line per finished combination (result, mismatches,\n"
    "                seconds, digest); combinations already in it are skipped; written atomically\n"
    "  --limit-inputs N  quick run: about N inputs per combination, every S-th pattern, S odd\n"
    "  --stride S    every S-th pattern (0, S, 2S, ...); the digest depends on S\n"
    "  --structured  every top-16-bit prefix (sign, exponent, 7 mantissa bits) with the low 16 bits\n"
    "                0000 0001 7fff 8000 8001 ffff: every tie, and its neighbours, of every format\n"
    "                with at most 6 mantissa bits (393216 inputs)\n"
    "  --max-examples K  mismatching inputs printed per combination (default 8)\n"
    "  --list        print the selected combinations and exit\n"
    "Digest: FNV-1a 64 over the engine's output code bytes of each 2^16-input chunk, in input order;\n"
    "the chunk digests (8 bytes little-endian each, in order) are hashed again with FNV-1a 64.\n"
    "Exit status: 0 no mismatch, 1 mismatches found, 2 bad arguments or I/O error.\n";

[[noreturn]] void fail_usage(const std::string& msg) {
  std::fprintf(stderr, "minifloat_sweep: %s\n", msg.c_str());
  std::exit(2);
}

/// The engine's descriptor for a name the oracle knows: its row of the core's kNamedFormats (the oracle
/// keeps its own layouts).
minifloat::Format engine_format(std::string_view name) {
  for (const auto& r : minifloat::kNamedFormats)
    if (name == r.name) return r.format;
  fail_usage("the oracle's format " + std::string(name) + " is not a row of core/named_formats.hpp");
}

minifloat::Rounding engine_rounding(Mode m) {
  switch (m) {
    case Mode::rne: return minifloat::Rounding::rne;
    case Mode::rna: return minifloat::Rounding::rna;
    case Mode::rtz: return minifloat::Rounding::rtz;
    case Mode::rtp: return minifloat::Rounding::rtp;
    case Mode::rtn: return minifloat::Rounding::rtn;
    case Mode::rto: return minifloat::Rounding::rto;
    case Mode::rnz: return minifloat::Rounding::rnz;
    case Mode::rnu: return minifloat::Rounding::rnu;
  }
  return minifloat::Rounding::rne;
}

minifloat::Overflow engine_overflow(Policy p) {
  switch (p) {
    case Policy::nonsat: return minifloat::Overflow::nonsat;
    case Policy::satfinite: return minifloat::Overflow::satfinite;
    case Policy::satpropagate: return minifloat::Overflow::satpropagate;
  }
  return minifloat::Overflow::nonsat;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::uint64_t parse_u64(const std::string& opt, const std::string& s) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (s.empty() || *end != '\0' || errno != 0 || s[0] == '-')
    fail_usage(opt + " expects a non-negative integer, got '" + s + "'");
  return v;
}

struct Combo {
  const FormatSpec* spec;
  Mode mode;
  Policy policy;
  std::string label() const {
    return std::string(spec->name) + " " + std::string(mode_name(mode)) + " " + std::string(policy_name(policy));
  }
};

struct Example {
  std::uint32_t input;
  std::uint64_t got_code;
  unsigned got_flags;
  OracleResult want;
};

struct ChunkResult {
  std::uint64_t digest = kFnvOffset;
  std::uint64_t code_mismatches = 0;
  std::uint64_t flag_mismatches = 0;
  std::vector<Example> examples;
};

struct ComboResult {
  std::uint64_t inputs = 0;
  std::uint64_t code_mismatches = 0;
  std::uint64_t flag_mismatches = 0;
  std::uint64_t digest = kFnvOffset;
  double seconds = 0;
  std::vector<Example> examples;
};

/// Which binary32 patterns a run visits: all of them, every S-th one, or the structured set.
struct Sampling {
  std::uint64_t stride = 1;
  bool structured = false;
  minifloat::SweepSampling kind() const {
    return structured ? minifloat::SweepSampling::structured : minifloat::SweepSampling::strided;
  }
  std::uint64_t count() const { return minifloat::sweep_input_count(kind(), stride); }
  std::uint32_t input(std::uint64_t i) const { return minifloat::sweep_input(kind(), stride, i); }
  std::string name() const { return structured ? "structured16" : "stride=" + std::to_string(stride); }
};

ComboResult run_combo(const Combo& c, const Sampling& sampling, unsigned threads, std::size_t max_examples) {
  const NearestOracle oracle(*c.spec);
  const minifloat::Format fmt = engine_format(c.spec->name);
  const minifloat::RoundingSpec rs{engine_rounding(c.mode), engine_overflow(c.policy)};
  const Mode mode = c.mode;
  const Policy policy = c.policy;
  const std::uint64_t count = sampling.count();
  const std::uint64_t nchunks = (count + kChunk - 1) / kChunk;
  std::vector<ChunkResult> chunks(nchunks);
  std::atomic<std::uint64_t> next{0};

  auto worker = [&]() {
    for (;;) {
      const std::uint64_t k = next.fetch_add(1);
      if (k >= nchunks) return;
      ChunkResult& r = chunks[k];
      const std::uint64_t end = std::min(count, (k + 1) * kChunk);
      std::uint64_t h = kFnvOffset;
      for (std::uint64_t i = k * kChunk; i < end; ++i) {
        const std::uint32_t bits = sampling.input(i);
        const minifloat::RoundResult got = minifloat::convert(minifloat::formats::f32, bits, fmt, rs, minifloat::profiles::ocp);
        const OracleResult want = oracle.round_f32(bits, mode, policy);
        h = minifloat::fnv1a64_byte(h, static_cast<std::uint8_t>(got.code & 0xff));
        const bool inexact = (got.flags & minifloat::flag_inexact) != 0;
        const bool overflow = (got.flags & minifloat::flag_overflow) != 0;
        const bool code_bad = got.code != want.code;
        const bool flag_bad = inexact != want.inexact || overflow != want.overflow;
        if (code_bad || flag_bad) [[unlikely]] {
          if (code_bad)
            ++r.code_mismatches;
          else
            ++r.flag_mismatches;
          if (r.examples.size() < max_examples) r.examples.push_back({bits, got.code, got.flags, want});
        }
      }
      r.digest = h;
    }
  };

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(threads, nchunks));
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  const auto t1 = std::chrono::steady_clock::now();

  ComboResult res;
  res.inputs = count;
  res.seconds = std::chrono::duration<double>(t1 - t0).count();
  for (const ChunkResult& r : chunks) {
    res.code_mismatches += r.code_mismatches;
    res.flag_mismatches += r.flag_mismatches;
    res.digest = minifloat::fnv1a64_u64le(res.digest, r.digest);
    for (const Example& e : r.examples)
      if (res.examples.size() < max_examples) res.examples.push_back(e);
  }
  return res;
}

std::string state_key(const Combo& c, const Sampling& sampling) {
  return c.label() + " " + sampling.name();
}

/// The first four fields of a state line ("format mode policy stride=S|structured16"), or "" for comments.
std::string key_of_line(const std::string& line) {
  if (line.empty() || line[0] == '#') return "";
  std::istringstream in(line);
  std::string a, b, c, d;
  if (!(in >> a >> b >> c >> d)) return "";
  return a + " " + b + " " + c + " " + d;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

/// Add (or replace) one finished combination in the state file: lock FILE.lock, re-read the file
/// (other shards may have written meanwhile), write FILE.tmp.PID, rename it over FILE.
void record_state(const std::string& path, const std::string& line) {
  const std::string lock_path = path + ".lock";
  const int fd = ::open(lock_path.c_str(), O_CREAT | O_RDWR, 0644);
  if (fd < 0 || ::flock(fd, LOCK_EX) != 0) fail_usage("cannot lock state file " + lock_path);
  std::vector<std::string> lines = read_lines(path);
  const std::string key = key_of_line(line);
  lines.erase(std::remove_if(lines.begin(), lines.end(), [&](const std::string& l) { return key_of_line(l) == key; }),
              lines.end());
  if (lines.empty())
    lines.push_back("# minifloat_sweep state: format mode policy sampling inputs result code_mismatches "
                    "flag_mismatches seconds threads digest");
  lines.push_back(line);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const std::string& l : lines) out << l << '\n';
    out.flush();
    if (!out) fail_usage("cannot write state file " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail_usage("cannot rename " + tmp + " to " + path);
  ::flock(fd, LOCK_UN);
  ::close(fd);
}

std::string hex(std::uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*" PRIx64, digits, v);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace minifloat_test::sweep;
  std::vector<std::string> formats, modes, policies;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::uint64_t shard_i = 0, shard_n = 1;
  Sampling sampling;
  std::size_t max_examples = 8;
  std::string state;
  bool list_only = false;

  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail_usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--formats") {
      formats = split_list(value());
    } else if (a == "--modes") {
      modes = split_list(value());
    } else if (a == "--policies") {
      policies = split_list(value());
    } else if (a == "--threads") {
      threads = static_cast<unsigned>(parse_u64(a, value()));
      if (threads == 0 || threads > 1024) fail_usage("--threads expects 1..1024");
    } else if (a == "--shard") {
      const std::string v = value();
      const auto slash = v.find('/');
      if (slash == std::string::npos) fail_usage("--shard expects I/N (e.g. 0/4), got '" + v + "'");
      shard_i = parse_u64(a, v.substr(0, slash));
      shard_n = parse_u64(a, v.substr(slash + 1));
      if (shard_n == 0 || shard_i >= shard_n) fail_usage("--shard expects I/N with 0 <= I < N, got '" + v + "'");
    } else if (a == "--state") {
      state = value();
    } else if (a == "--limit-inputs") {
      const std::uint64_t n = parse_u64(a, value());
      if (n == 0) fail_usage("--limit-inputs expects a positive count");
      sampling.stride = (kAllInputs + n - 1) / n;
      if (sampling.stride > 1 && sampling.stride % 2 == 0) ++sampling.stride;
    } else if (a == "--stride") {
      sampling.stride = parse_u64(a, value());
      if (sampling.stride == 0 || sampling.stride > kAllInputs) fail_usage("--stride expects 1..2^32");
    } else if (a == "--structured") {
      sampling.structured = true;
    } else if (a == "--max-examples") {
      max_examples = static_cast<std::size_t>(parse_u64(a, value()));
    } else if (a == "--list") {
      list_only = true;
    } else {
      fail_usage("unknown argument '" + a + "' (see --help)");
    }
  }

  std::vector<const FormatSpec*> fsel;
  if (formats.empty()) {
    for (const FormatSpec& f : sweep_formats()) fsel.push_back(&f);
  } else {
    for (const std::string& n : formats) {
      const FormatSpec* f = find_format(n);
      if (!f) {
        std::string names;
        for (const FormatSpec& g : sweep_formats()) names.append(" ").append(g.name);
        fail_usage("unknown format '" + n + "'; accepted:" + names);
      }
      fsel.push_back(f);
    }
  }
  std::vector<Mode> msel;
  if (modes.empty()) {
    msel = {Mode::rne, Mode::rna, Mode::rtz, Mode::rtp, Mode::rtn, Mode::rto, Mode::rnz, Mode::rnu};
  } else {
    for (const std::string& n : modes) {
      Mode m;
      if (!parse_mode(n, m)) fail_usage("unknown mode '" + n + "'; accepted: rne rna rtz rtp rtn rto rnz rnu");
      msel.push_back(m);
    }
  }
  std::vector<Policy> psel;
  if (policies.empty()) {
    psel = {Policy::nonsat, Policy::satfinite, Policy::satpropagate};
  } else {
    for (const std::string& n : policies) {
      Policy p;
      if (!parse_policy(n, p)) fail_usage("unknown policy '" + n + "'; accepted: nonsat satfinite satpropagate");
      psel.push_back(p);
    }
  }

  std::vector<Combo> combos;
  std::size_t index = 0;
  for (const FormatSpec* f : fsel)
    for (Mode m : msel)
      for (Policy p : psel) {
        if (index++ % shard_n == shard_i) combos.push_back({f, m, p});
      }

  if (list_only) {
    for (const Combo& c : combos) std::printf("%s\n", c.label().c_str());
    return 0;
  }

  std::map<std::string, std::string> done;
  if (!state.empty())
    for (const std::string& l : read_lines(state)) {
      const std::string k = key_of_line(l);
      if (!k.empty()) done[k] = l;
    }

  std::printf("minifloat_sweep: %zu combination(s) (shard %" PRIu64 "/%" PRIu64 "), %" PRIu64
              " inputs each (%s), %u thread(s)%s%s\n",
              combos.size(), shard_i, shard_n, sampling.count(), sampling.name().c_str(), threads, state.empty() ? "" : ", state ",
              state.c_str());
  std::fflush(stdout);

  std::size_t ran = 0, skipped = 0, bad = 0;
  double total_seconds = 0;
  for (const Combo& c : combos) {
    const std::string key = state_key(c, sampling);
    if (auto it = done.find(key); it != done.end()) {
      ++skipped;
      if (it->second.find("result=ok") == std::string::npos) ++bad;
      std::printf("%-28s skipped (in state file): %s\n", c.label().c_str(), it->second.c_str());
      continue;
    }
    const ComboResult r = run_combo(c, sampling, threads, max_examples);
    ++ran;
    total_seconds += r.seconds;
    const std::uint64_t mism = r.code_mismatches + r.flag_mismatches;
    if (mism) ++bad;
    std::printf("%-28s %11" PRIu64 " inputs  mismatches %" PRIu64 " (code %" PRIu64 ", flags %" PRIu64
                ")  %8.2f s  %7.1f Minputs/s  digest %s\n",
                c.label().c_str(), r.inputs, mism, r.code_mismatches, r.flag_mismatches, r.seconds,
                static_cast<double>(r.inputs) / r.seconds / 1e6, hex(r.digest, 16).c_str());
    for (const Example& e : r.examples) {
      std::printf("    input 0x%08" PRIx32 " (%.9g): engine 0x%s%s%s, oracle 0x%s%s%s\n", e.input,
                  static_cast<double>(std::bit_cast<float>(e.input)), hex(e.got_code, 2).c_str(),
                  (e.got_flags & minifloat::flag_inexact) ? " inexact" : "",
                  (e.got_flags & minifloat::flag_overflow) ? " overflow" : "", hex(e.want.code, 2).c_str(),
                  e.want.inexact ? " inexact" : "", e.want.overflow ? " overflow" : "");
    }
    std::fflush(stdout);
    if (!state.empty()) {
      char line[512];
      std::snprintf(line, sizeof line,
                    "%s inputs=%" PRIu64 " result=%s code_mismatches=%" PRIu64 " flag_mismatches=%" PRIu64
                    " seconds=%.2f threads=%u digest=%s",
                    key.c_str(), r.inputs, mism ? "MISMATCH" : "ok", r.code_mismatches, r.flag_mismatches,
                    r.seconds, threads, hex(r.digest, 16).c_str());
      record_state(state, line);
    }
  }
  std::printf("minifloat_sweep: ran %zu, skipped %zu, combinations with mismatches %zu, %.1f s\n", ran, skipped,
              bad, total_seconds);
  return bad ? 1 : 0;
}
