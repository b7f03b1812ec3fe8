// SPDX-License-Identifier: Apache-2.0
// bench_simd.cpp: the array paths (issue 11) on a 64 MiB f32 input (bench_input.hpp), 1 and 2
// threads, each against a memcpy and a non-temporal copy of the same bytes timed in the same run.
// "before" rows force the engine loop in the same process with a profile that is outside the SIMD
// whitelist but gives the same codes (ocp + decode_ftz: decode_ftz only touches IEEE targets and
// subnormal f32 results, which e4m3fn/e2m1fn/e8m0fnu encodes and e4m3fn decodes never produce).
// Prints: operation, Gelem/s, time ratio to memcpy and to the non-temporal copy.
#include <benchmark/benchmark.h>
#include <emmintrin.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bench_input.hpp"
#include "minifloat/convert_span.hpp"
#include "minifloat/stochastic.hpp"
#include "simd/convert_simd.hpp"  // the table path of the same combination, for the "table" rows

namespace {

namespace mf = minifloat;
constexpr std::size_t kFloats = std::size_t{16} << 20;  // 64 MiB of f32
constexpr std::size_t kBytes = kFloats * sizeof(float);

const std::vector<float>& input() {
  static const std::vector<float> v = e4m3fn_bench_input(kFloats);
  return v;
}
const std::vector<std::uint8_t>& codes() {
  static const std::vector<std::uint8_t> c = [] {
    std::vector<std::uint8_t> o(kFloats);
    mf::convert_f32(input(), o, mf::formats::e4m3fn, {}, mf::profiles::ocp, {}, 2);
    return o;
  }();
  return c;
}
mf::Profile engine_profile() {
  mf::Profile p = mf::profiles::ocp;
  p.decode_ftz = true;
  return p;
}

void finish(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kFloats));
}

void memcpy_f32(benchmark::State& state) {
  std::vector<float> out(kFloats, 1.f);
  for (auto _ : state) {
    std::memcpy(out.data(), input().data(), kBytes);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}
void ntcopy_f32(benchmark::State& state) {  // streaming stores (movntdq), the same bytes
  std::vector<float> out(kFloats, 1.f);
  for (auto _ : state) {
    const auto* s = reinterpret_cast<const __m128i*>(input().data());
    auto* d = reinterpret_cast<__m128i*>(out.data());
    for (std::size_t i = 0; i < kBytes / 16; ++i) _mm_stream_si128(d + i, _mm_loadu_si128(s + i));
    _mm_sfence();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}

void encode(benchmark::State& state, mf::Format to, bool engine) {
  std::vector<std::uint8_t> out(kFloats, 1);
  const auto threads = static_cast<unsigned>(state.range(0));
  const mf::Profile prof = engine ? engine_profile() : mf::profiles::ocp;
  for (auto _ : state) {
    benchmark::DoNotOptimize(mf::convert_f32(input(), out, to, {}, prof, {}, threads));
    benchmark::ClobberMemory();
  }
  finish(state);
}
void decode(benchmark::State& state, bool engine) {
  std::vector<float> out(kFloats);
  const auto threads = static_cast<unsigned>(state.range(0));
  const mf::Profile prof = engine ? engine_profile() : mf::profiles::ocp;
  for (auto _ : state) {
    benchmark::DoNotOptimize(mf::decode_to_f32(codes(), out, mf::formats::e4m3fn, prof, threads));
    benchmark::ClobberMemory();
  }
  finish(state);
}
/// f16 / bf16 sources: the f32 input rounded (rne) to each, as 16-bit patterns; the ratios are
/// still to the memcpy of the f32 array (these read half its bytes).
const std::vector<std::uint16_t>& input16(mf::Format f) {
  static std::map<int, std::vector<std::uint16_t>> cache;
  auto& v = cache[f == mf::formats::f16 ? 0 : 1];
  if (v.empty()) {
    v.resize(kFloats);
    mf::convert_f32(input(), std::span<std::uint16_t>(v), f, {}, mf::profiles::ocp, {}, 2);
  }
  return v;
}
void encode16(benchmark::State& state, mf::Format src, mf::Format to) {
  std::vector<std::uint8_t> out(kFloats, 1);
  const auto threads = static_cast<unsigned>(state.range(0));
  const std::vector<std::uint16_t>& x = input16(src);
  for (auto _ : state) {
    if (src == mf::formats::f16)
      benchmark::DoNotOptimize(mf::convert_f16_bits(x, out, to, {}, mf::profiles::ocp, {}, threads));
    else
      benchmark::DoNotOptimize(mf::convert_bf16_bits(x, out, to, {}, mf::profiles::ocp, {}, threads));
    benchmark::ClobberMemory();
  }
  finish(state);
}
/// The same combination (rne nonsat ocp) through the table lookups (encode_keys) instead of the
/// arithmetic rne kernel (simd/encode_rne-inl.h): a copy of its table with the kernel switched off.
/// Arg 2: two std::threads on the two halves, as parallel_ranges splits.
void encode_table(benchmark::State& state, mf::Format src, mf::Format to) {
  mf::simd::EncodeTable t = *mf::simd::encode_table(to, {}, mf::profiles::ocp);
  t.rne = {};
  std::vector<std::uint8_t> out(kFloats, 1);
  const auto threads = static_cast<std::size_t>(state.range(0));
  const float* f = input().data();
  const std::uint16_t* h = src == mf::formats::f32 ? nullptr : input16(src).data();
  auto run = [&](std::size_t lo, std::size_t hi) {
    if (src == mf::formats::f32) return mf::simd::encode_f32(t, f + lo, out.data() + lo, hi - lo);
    if (src == mf::formats::f16) return mf::simd::encode_f16(t, h + lo, out.data() + lo, hi - lo);
    return mf::simd::encode_bf16(t, h + lo, out.data() + lo, hi - lo);
  };
  for (auto _ : state) {
    if (threads == 1) {
      benchmark::DoNotOptimize(run(0, kFloats));
    } else {
      unsigned a = 0;
      std::thread other([&] { a = run(kFloats / 2, kFloats); });
      benchmark::DoNotOptimize(run(0, kFloats / 2) | a);
      other.join();
    }
    benchmark::ClobberMemory();
  }
  finish(state);
}
/// Decode of the codes of `from` (the f32 input encoded rne nonsat) to f32.
void decode_fmt(benchmark::State& state, mf::Format from) {
  std::vector<std::uint8_t> c(kFloats);
  mf::convert_f32(input(), c, from, {}, mf::profiles::ocp, {}, 2);
  std::vector<float> out(kFloats);
  const auto threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(mf::decode_to_f32(c, out, from, mf::profiles::ocp, threads));
    benchmark::ClobberMemory();
  }
  finish(state);
}
/// Decode of 16 Ki codes of `from` (64 KiB of f32 output, in L2) repeated: the kernel's compute cost
/// without the memory traffic (its Gelem/s is the limit a memory-speed decode must stay under).
void decode_in_cache(benchmark::State& state, mf::Format from) {
  constexpr std::size_t kSmall = 16384;
  std::vector<std::uint8_t> c(kSmall);
  mf::convert_f32(std::span<const float>(input()).first(kSmall), c, from, {}, mf::profiles::ocp, {}, 1);
  std::vector<float> out(kSmall);
  for (auto _ : state) {
    benchmark::DoNotOptimize(mf::decode_to_f32(c, out, from, mf::profiles::ocp, 1));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kSmall));
}
/// Stochastic rounding into e4m3fn (satfinite), Philox bits per element; `engine` forces the
/// engine loop (the "before" row) with a modified profile, as encode/decode do.
void sr(benchmark::State& state, mf::SrVariant v, bool engine) {
  std::vector<std::uint8_t> out(kFloats);
  const auto threads = static_cast<unsigned>(state.range(0));
  const mf::Profile prof = engine ? engine_profile() : mf::profiles::ocp;
  const mf::RoundingSpec spec{.rounding = mf::Rounding::sr, .overflow = mf::Overflow::satfinite, .sr_variant = v};
  for (auto _ : state) {
    benchmark::DoNotOptimize(mf::sr_convert_f32(input(), out, mf::formats::e4m3fn, spec, mf::SrStream{.seed = 1}, prof,
                                                threads));
    benchmark::ClobberMemory();
  }
  finish(state);
}
/// f64 sources (the same values widened): ratios to the same run's memcpy of the f64 array
/// (memcpy_f64, 128 MiB) in the last column. rne into e4m3fn/e8m0fnu takes the f64 SIMD path
/// (simd/f64-inl.h: round-to-odd narrowing, or the rne f32 step under ml_dtypes), "engine_before" the
/// engine loop; SR exact the f64 table.
const std::vector<double>& input64() {
  static const std::vector<double> v(input().begin(), input().end());
  return v;
}
void memcpy_f64(benchmark::State& state) {
  std::vector<double> out(kFloats, 1.0);
  for (auto _ : state) {
    std::memcpy(out.data(), input64().data(), kFloats * sizeof(double));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}
void f64_rne(benchmark::State& state, mf::Format to, mf::Profile prof) {
  std::vector<std::uint8_t> out(kFloats);
  const auto threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(mf::convert_f64(input64(), out, to, {.overflow = mf::Overflow::satfinite}, prof, {}, threads));
    benchmark::ClobberMemory();
  }
  finish(state);
}
void f64_sr_exact(benchmark::State& state, bool engine) {
  std::vector<std::uint8_t> out(kFloats);
  const auto threads = static_cast<unsigned>(state.range(0));
  const mf::Profile prof = engine ? engine_profile() : mf::profiles::ocp;
  for (auto _ : state) {
    benchmark::DoNotOptimize(mf::sr_convert_f64(input64(), out, mf::formats::e4m3fn,
                                                {.rounding = mf::Rounding::sr, .overflow = mf::Overflow::satfinite},
                                                mf::SrStream{.seed = 1}, prof, threads));
    benchmark::ClobberMemory();
  }
  finish(state);
}

#define MF_BENCH(name, ...) \
  BENCHMARK_CAPTURE(name, __VA_ARGS__)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5)
BENCHMARK(memcpy_f32)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(ntcopy_f32)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
MF_BENCH(encode, e4m3fn_rne_simd, mf::formats::e4m3fn, false);
MF_BENCH(encode, e5m2_rne_simd, mf::formats::e5m2, false);
MF_BENCH(encode, e2m1fn_rne_simd, mf::formats::e2m1fn, false);
MF_BENCH(encode, e8m0fnu_rne_simd, mf::formats::e8m0fnu, false);
MF_BENCH(encode, e4m3fn_rne_engine_before, mf::formats::e4m3fn, true);
MF_BENCH(encode_table, e4m3fn_rne_table_before, mf::formats::f32, mf::formats::e4m3fn);
MF_BENCH(encode_table, e5m2_rne_table_before, mf::formats::f32, mf::formats::e5m2);
MF_BENCH(encode_table, e2m1fn_rne_table_before, mf::formats::f32, mf::formats::e2m1fn);
MF_BENCH(encode_table, e8m0fnu_rne_table_before, mf::formats::f32, mf::formats::e8m0fnu);
MF_BENCH(encode_table, f16_e4m3fn_rne_table_before, mf::formats::f16, mf::formats::e4m3fn);
MF_BENCH(encode_table, bf16_e4m3fn_rne_table_before, mf::formats::bf16, mf::formats::e4m3fn);
MF_BENCH(encode16, f16_e4m3fn_rne_simd, mf::formats::f16, mf::formats::e4m3fn);
MF_BENCH(encode16, bf16_e4m3fn_rne_simd, mf::formats::bf16, mf::formats::e4m3fn);
MF_BENCH(encode16, f16_e5m2_rne_simd, mf::formats::f16, mf::formats::e5m2);
MF_BENCH(encode16, bf16_e8m0fnu_rne_simd, mf::formats::bf16, mf::formats::e8m0fnu);
MF_BENCH(decode, e4m3fn_simd, false);
MF_BENCH(decode_fmt, e5m2_simd, mf::formats::e5m2);
MF_BENCH(decode_fmt, e2m1fn_simd, mf::formats::e2m1fn);
MF_BENCH(decode_fmt, e8m0fnu_simd, mf::formats::e8m0fnu);
MF_BENCH(decode, e4m3fn_engine_before, true);
BENCHMARK_CAPTURE(decode_in_cache, e4m3fn, mf::formats::e4m3fn)->Unit(benchmark::kMicrosecond)->MinTime(0.2);
BENCHMARK_CAPTURE(decode_in_cache, e5m2, mf::formats::e5m2)->Unit(benchmark::kMicrosecond)->MinTime(0.2);
BENCHMARK_CAPTURE(decode_in_cache, e2m1fn, mf::formats::e2m1fn)->Unit(benchmark::kMicrosecond)->MinTime(0.2);
BENCHMARK_CAPTURE(decode_in_cache, e8m0fnu, mf::formats::e8m0fnu)->Unit(benchmark::kMicrosecond)->MinTime(0.2);
MF_BENCH(sr, e4m3fn_exact_table, mf::SrVariant::exact, false);
MF_BENCH(sr, e4m3fn_a8_table, mf::SrVariant::a, false);
MF_BENCH(sr, e4m3fn_exact_engine_before, mf::SrVariant::exact, true);
BENCHMARK(memcpy_f64)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
MF_BENCH(f64_rne, e4m3fn_simd, mf::formats::e4m3fn, mf::profiles::ocp);
MF_BENCH(f64_rne, e4m3fn_ml_dtypes_simd, mf::formats::e4m3fn, mf::profiles::ml_dtypes);
MF_BENCH(f64_rne, e8m0fnu_simd, mf::formats::e8m0fnu, mf::profiles::ocp);
MF_BENCH(f64_rne, e4m3fn_engine_before, mf::formats::e4m3fn, engine_profile());
MF_BENCH(f64_sr_exact, table, false);
MF_BENCH(f64_sr_exact, engine_before, true);

/// Console output as usual, and each run's real time per iteration for the ratio table.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred && r.iterations > 0) {
        const std::string name = r.benchmark_name();
        if (seconds_.find(name) == seconds_.end()) order_.push_back(name);
        seconds_[name] = r.real_accumulated_time / static_cast<double>(r.iterations);
      }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> seconds_;
  std::vector<std::string> order_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  input();
  codes();
  RatioReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  const auto m = rep.seconds_.find("memcpy_f32/min_time:0.500/real_time");
  const auto nt = rep.seconds_.find("ntcopy_f32/min_time:0.500/real_time");
  if (m == rep.seconds_.end() || nt == rep.seconds_.end()) return 0;
  const auto m64 = rep.seconds_.find("memcpy_f64/min_time:0.500/real_time");
  std::printf("\n%-58s %9s %10s %10s %10s\n", "operation (64 MiB f32 = 16 Mi elements)", "Gelem/s", "/memcpy", "/nt-copy",
              "/memcpy64");
  for (const std::string& name : rep.order_) {
    const double s = rep.seconds_[name];
    std::printf("%-58s %9.3f %10.2f %10.2f", name.c_str(), static_cast<double>(kFloats) / s / 1e9, s / m->second,
                s / nt->second);
    if (name.rfind("f64_", 0) == 0 && m64 != rep.seconds_.end()) std::printf(" %10.2f", s / m64->second);  // f64 rows
    std::printf("\n");
  }
  return 0;
}
