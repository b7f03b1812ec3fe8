// SPDX-License-Identifier: Apache-2.0
// simd_sweep.cpp: `minifloat_simd_sweep`, the long sweep's SIMD mode: every binary32 bit pattern (or
// every S-th) through the SIMD array path (simd::encode_f32, the kernel the CPU dispatches to) and
// through THE engine (minifloat::convert, one element at a time), for each selected (format, mode,
// policy, profile); codes per element, flags per 64-element call. Prints the time per combination
// and the digest of the codes, computed as minifloat_sweep computes it (FNV-1a 64 over the code bytes
// of each 2^16-input chunk, then over the chunk digests), so it can be compared with the engine
// sweep's state file and with the CUDA issue's committed golden digests (--expect FILE, lines
// "<format> <mode> <policy> <16 hex digits>", profile ocp), where they exist. --simd-only times the
// SIMD path alone (no engine comparison: digest only) and, over all 2^32 inputs, prints its ratio to a
// memcpy of 20 GiB timed in the same run (issue 11's target: ≤ 4×).
#include <hwy/targets.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "minifloat/core/convert.hpp"
#include "minifloat/registry.hpp"
#include "simd/convert_simd.hpp"

namespace mf = minifloat;

namespace {

constexpr std::uint64_t kChunk = std::uint64_t{1} << 16;
constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> r;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) r.push_back(item);
  return r;
}

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr,
               "minifloat_simd_sweep: %s; usage: minifloat_simd_sweep [--formats A,B] [--modes A,B] "
               "[--policies A,B] [--profiles A,B] [--threads N] [--stride S] [--expect FILE] [--simd-only]\n",
               what.c_str());
  std::exit(2);
}

struct Result {
  std::uint64_t mismatches = 0, inputs = 0, digest = kFnvOffset;
  double seconds = 0;
};

Result run(mf::Format to, const mf::RoundingSpec& spec, const mf::Profile& prof, unsigned threads,
           std::uint64_t stride, bool simd_only) {
  const mf::simd::EncodeTable* t = mf::simd::encode_table(to, spec, prof);
  const std::uint64_t total = ((std::uint64_t{1} << 32) + stride - 1) / stride;  // inputs i·stride
  const std::uint64_t chunks = (total + kChunk - 1) / kChunk;
  std::vector<std::uint64_t> chunk_digest(chunks);
  std::atomic<std::uint64_t> next{0}, bad{0};
  const auto t0 = std::chrono::steady_clock::now();
  // --simd-only: kLanes chunks per turn, their FNV-1a digests interleaved (each chunk's digest is the
  // serial FNV-1a of its bytes, as below; kLanes independent chains hide the multiply's latency).
  constexpr std::uint64_t kLanes = 4;
  auto simd_worker = [&] {
    std::vector<std::uint32_t> in(kChunk);
    std::vector<std::uint8_t> out(kLanes * kChunk);
    for (std::uint64_t c0; (c0 = next.fetch_add(kLanes)) < chunks;) {
      const std::uint64_t nc = std::min(kLanes, chunks - c0);
      std::uint64_t len[kLanes] = {}, h[kLanes];
      for (std::uint64_t l = 0; l < nc; ++l) {
        const std::uint64_t lo = (c0 + l) * kChunk;
        len[l] = std::min(kChunk, total - lo);
        for (std::uint64_t i = 0; i < len[l]; ++i) in[i] = static_cast<std::uint32_t>((lo + i) * stride);
        mf::simd::encode_f32(*t, reinterpret_cast<const float*>(in.data()), out.data() + l * kChunk, len[l]);
      }
      for (std::uint64_t l = 0; l < kLanes; ++l) h[l] = kFnvOffset;
      if (nc == kLanes && len[kLanes - 1] == kChunk) {
        for (std::uint64_t k = 0; k < kChunk; ++k)
          for (std::uint64_t l = 0; l < kLanes; ++l) h[l] = (h[l] ^ out[l * kChunk + k]) * kFnvPrime;
      } else {
        for (std::uint64_t l = 0; l < nc; ++l)
          for (std::uint64_t k = 0; k < len[l]; ++k) h[l] = (h[l] ^ out[l * kChunk + k]) * kFnvPrime;
      }
      for (std::uint64_t l = 0; l < nc; ++l) chunk_digest[c0 + l] = h[l];
    }
  };
  auto worker = [&] {
    std::vector<std::uint32_t> in(kChunk);
    std::vector<std::uint8_t> out(kChunk);
    for (std::uint64_t c; (c = next.fetch_add(1)) < chunks;) {
      const std::uint64_t lo = c * kChunk, n = std::min(kChunk, total - lo);
      for (std::uint64_t i = 0; i < n; ++i) in[i] = static_cast<std::uint32_t>((lo + i) * stride);
      std::uint64_t h = kFnvOffset, miss = 0;
      for (std::uint64_t g = 0; g < n; g += 64) {
        const std::uint64_t m = std::min<std::uint64_t>(64, n - g);
        const unsigned got = mf::simd::encode_f32(*t, reinterpret_cast<const float*>(in.data() + g), out.data() + g, m);
        unsigned want = 0;
        for (std::uint64_t k = g; k < g + m; ++k) {
          const mf::RoundResult r = mf::convert(mf::formats::f32, in[k], to, spec, prof);
          want |= r.flags;
          if (out[k] != r.code && ++miss <= 2)
            std::fprintf(stderr, "mismatch: %s %s %s input 0x%08" PRIx32 ": simd 0x%02x engine 0x%02x\n",
                         std::string(mf::format_name(to)).c_str(), std::string(mf::rounding_name(spec.rounding)).c_str(),
                         std::string(mf::overflow_name(spec.overflow)).c_str(), in[k], unsigned{out[k]},
                         static_cast<unsigned>(r.code));
          h = (h ^ out[k]) * kFnvPrime;
        }
        if (got != want) ++miss;
      }
      chunk_digest[c] = h;
      bad += miss;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < threads; ++k) {
    if (simd_only) pool.emplace_back(simd_worker);  // the kernel alone, one call per chunk (timing of the SIMD path)
    else pool.emplace_back(worker);
  }
  for (auto& th : pool) th.join();
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.inputs = total;
  r.mismatches = bad;
  for (std::uint64_t d : chunk_digest)
    for (int b = 0; b < 8; ++b) r.digest = (r.digest ^ ((d >> (8 * b)) & 0xff)) * kFnvPrime;
  return r;
}

// The same run's baseline of issue 11's sweep target (2^32 inputs through one SIMD combination ≤ 4× a
// memcpy of 20 GiB, the f32 inputs and the code bytes): 80 copies of a 256 MiB buffer, split over
// `threads` as the sweep is. Returns seconds.
double memcpy_20gib_seconds(unsigned threads) {
  constexpr std::size_t kBytes = std::size_t{256} << 20, kRepeats = 80;  // 80 × 256 MiB = 20 GiB
  std::vector<char> src(kBytes, 1), dst(kBytes, 0);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < threads; ++k)
    pool.emplace_back([&, k] {
      const std::size_t lo = kBytes / threads * k, hi = k + 1 == threads ? kBytes : kBytes / threads * (k + 1);
      for (std::size_t r = 0; r < kRepeats; ++r) std::memcpy(dst.data() + lo, src.data() + lo, hi - lo);
    });
  for (auto& th : pool) th.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (dst[kBytes / 2] != 1) std::abort();  // the copies happened
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> formats;  // the whitelist's formats: the kArrayPath rows of core/named_formats.hpp
  for (const auto& r : mf::kNamedFormats)
    if (r.paths & mf::kArrayPath) formats.emplace_back(r.name);
  std::vector<std::string> modes = {"rne", "rna", "rtz", "rtp", "rtn", "rto"};
  std::vector<std::string> policies = {"nonsat", "satfinite", "satpropagate"};
  std::vector<std::string> profile_names = {"ocp"};
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::uint64_t stride = 1;
  std::string expect_file;
  bool simd_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--formats") formats = split(value());
    else if (a == "--modes") modes = split(value());
    else if (a == "--policies") policies = split(value());
    else if (a == "--profiles") profile_names = split(value());
    else if (a == "--threads") threads = static_cast<unsigned>(std::strtoul(value().c_str(), nullptr, 10));
    else if (a == "--stride") stride = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--expect") expect_file = value();
    else if (a == "--simd-only") simd_only = true;
    else usage_error("unknown argument '" + a + "'");
  }
  if (threads == 0) usage_error("--threads must be 1 or more");
  if (stride == 0) usage_error("--stride must be 1 or more");
  std::map<std::string, std::string> expected;
  if (!expect_file.empty()) {
    std::ifstream in(expect_file);
    if (!in) usage_error("cannot read --expect file '" + expect_file + "'");
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string f, m, p, d;
      if (!(ls >> f >> m >> p >> d)) usage_error("--expect file line '" + line + "' is not '<format> <mode> <policy> <digest>'");
      expected[f + " " + m + " " + p] = d;
    }
  }
  std::printf("Highway target %s, %u threads, stride %" PRIu64 "\n", mf::simd::target_name(), threads, stride);
  // --simd-only over all 2^32 inputs: the ratio to a memcpy of 20 GiB timed in the same run
  const double memcpy_s = simd_only && stride == 1 ? memcpy_20gib_seconds(threads) : 0.0;
  if (memcpy_s > 0) std::printf("memcpy of 20 GiB (80 x 256 MiB, %u threads, same run): %.2f s\n", threads, memcpy_s);
  std::uint64_t all_bad = 0, compared = 0;
  for (const std::string& pn : profile_names)
    for (const std::string& fn : formats)
      for (const std::string& mn : modes)
        for (const std::string& on : policies) {
          mf::Format to;
          mf::RoundingSpec spec;
          mf::Profile prof;
          try {
            to = mf::parse_format(fn);
            spec.rounding = mf::parse<mf::Rounding>(mn);
            spec.overflow = mf::parse<mf::Overflow>(on);
            prof = mf::parse_profile(pn);
          } catch (const mf::Error& e) {
            usage_error(e.what());
          }
          if (mf::simd::encode_table(to, spec, prof) == nullptr)
            usage_error(fn + " " + mn + " " + on + " " + pn + " has no SIMD path (see encode_path)");
          const Result r = run(to, spec, prof, threads, stride, simd_only);
          char digest[17];
          std::snprintf(digest, sizeof digest, "%016" PRIx64, r.digest);
          std::string golden = "-";
          const auto it = expected.find(fn + " " + mn + " " + on);
          if (pn == "ocp" && stride == 1 && it != expected.end()) {
            ++compared;
            golden = it->second == digest ? "golden=match" : "golden=MISMATCH";
            if (it->second != digest) ++all_bad;
          }
          char ratio[48] = "";
          if (memcpy_s > 0) std::snprintf(ratio, sizeof ratio, "  %.2fx memcpy 20 GiB", r.seconds / memcpy_s);
          std::printf("%-12s %-4s %-13s %-10s %s %10" PRIu64 " inputs %8.2f s%s  %" PRIu64 " mismatches  digest %s %s\n",
                      fn.c_str(), mn.c_str(), on.c_str(), pn.c_str(), r.mismatches ? "FAIL" : "ok  ", r.inputs,
                      r.seconds, ratio, r.mismatches, digest, golden.c_str());
          std::fflush(stdout);
          all_bad += r.mismatches;
        }
  std::printf("%" PRIu64 " mismatches; %" PRIu64 " golden digests compared\n", all_bad, compared);
  return all_bad == 0 ? 0 : 1;
}
