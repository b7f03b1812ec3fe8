// SPDX-License-Identifier: Apache-2.0
// bench_quant.cpp: block quantization (issue 11) of a 64 MiB f32 tensor [4096, 4096] of N(0, 0.02)
// values, 1 and 2 threads, each against a memcpy and a non-temporal copy of the same bytes timed
// in the same run. "engine_before" rows force the scalar reference loops of src/quant/tile_loops.cpp in the
// same process (BlockQuantizer with ArrayPath::engine), i.e. the code before the fast path.
// Prints: operation, Gelem/s, wall-time ratio to memcpy and to the non-temporal copy, and the ratio of
// the process CPU time (every thread) to memcpy's CPU time.
//   build/bench/bench_quant [--benchmark_filter=REGEX]
#include <benchmark/benchmark.h>
#include <emmintrin.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "minifloat/quant.hpp"
#include "minifloat/scheme.hpp"

namespace {

namespace mf = minifloat;
constexpr std::size_t kRows = 4096, kCols = 4096, kFloats = kRows * kCols;  // 64 MiB of f32
constexpr std::size_t kBytes = kFloats * sizeof(float);

const std::vector<float>& input() {
  static const std::vector<float> v = [] {
    std::vector<float> x(kFloats);
    std::mt19937 rng(12345);
    std::normal_distribution<float> d(0.0f, 0.02f);
    for (auto& f : x) f = d(rng);
    return x;
  }();
  return v;
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

// The whole tensor as one piece (the library's quantize(); NVFP4 observes it first).
void quantize(benchmark::State& state, const char* scheme, mf::ArrayPath path) {
  std::vector<std::uint8_t> codes(kFloats, 1);
  const auto threads = static_cast<unsigned>(state.range(0));
  const mf::Scheme s = mf::parse_scheme(scheme);
  for (auto _ : state) {
    mf::BlockQuantizer bq({kRows, kCols}, s, {}, path);
    const mf::QuantPlan plan = bq.plan(kFloats);
    const mf::QuantPiece p = plan.piece(0);
    if (plan.first_pass) bq.observe(p, input(), threads);
    bq.quantize(p, input(), codes, threads);
    benchmark::DoNotOptimize(codes.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}
// NVFP4's two passes apart, to show where its time goes: pass 1 is observe() alone (the tensor amax: one read
// of the tensor), pass 2 quantize() after an observe() made outside the timing (the fused rows).
void nvfp4_pass(benchmark::State& state, int pass) {
  std::vector<std::uint8_t> codes(kFloats, 1);
  const auto threads = static_cast<unsigned>(state.range(0));
  const mf::Scheme s = mf::parse_scheme("nvfp4");
  for (auto _ : state) {
    state.PauseTiming();
    mf::BlockQuantizer bq({kRows, kCols}, s, {});
    const mf::QuantPlan plan = bq.plan(kFloats);
    const mf::QuantPiece p = plan.piece(0);
    if (pass == 2) bq.observe(p, input(), threads);
    state.ResumeTiming();
    if (pass == 1) bq.observe(p, input(), threads);
    else bq.quantize(p, input(), codes, threads);
    benchmark::DoNotOptimize(codes.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}
void dequantize(benchmark::State& state, const char* scheme) {
  const mf::Scheme s = mf::parse_scheme(scheme);
  mf::BlockQuantizer bq({kRows, kCols}, s, {});
  const mf::QuantPlan plan = bq.plan(kFloats);
  const mf::QuantPiece p = plan.piece(0);
  std::vector<std::uint8_t> codes(kFloats);
  if (plan.first_pass) bq.observe(p, input());
  bq.quantize(p, input(), codes, 2);
  std::vector<float> out(kFloats);
  for (auto _ : state) {
    bq.dequantize(p, codes, std::span<float>(out));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}

// CPU time is the process's (every worker thread), so that CPU/memcpy is comparable at 1 and 2 threads.
#define MF_BENCH(name, ...)                                                                                         \
  BENCHMARK_CAPTURE(name, __VA_ARGS__)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime() \
      ->MinTime(0.5)
BENCHMARK(memcpy_f32)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(ntcopy_f32)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
MF_BENCH(quantize, mxfp8_e4m3_simd, "mxfp8_e4m3", mf::ArrayPath::simd);
MF_BENCH(quantize, mxfp4_simd, "mxfp4", mf::ArrayPath::simd);
MF_BENCH(quantize, nvfp4_simd, "nvfp4", mf::ArrayPath::simd);
MF_BENCH(nvfp4_pass, nvfp4_pass1_observe, 1);
MF_BENCH(nvfp4_pass, nvfp4_pass2_quantize, 2);
MF_BENCH(quantize, fp8_1x128_simd, "fp8_1x128", mf::ArrayPath::simd);
MF_BENCH(quantize, mxint8_simd, "mxint8", mf::ArrayPath::simd);
MF_BENCH(quantize, mxfp6_e2m3_simd, "mxfp6_e2m3", mf::ArrayPath::simd);
MF_BENCH(quantize, mxfp6_e3m2_simd, "mxfp6_e3m2", mf::ArrayPath::simd);
// issue 25 item 9's targets, against nvfp4_simd / mxfp8_e4m3_simd / memcpy in the same run
MF_BENCH(quantize, nvfp4_rht16_te, "e2m1fn/1x16/ue4m3:nvfp4/transform=rht16:te", mf::ArrayPath::simd);
MF_BENCH(quantize, nvfp4_tensor_scale, "e2m1fn/1x16/ue4m3:nvfp4/tensor-scale=64", mf::ArrayPath::simd);
MF_BENCH(quantize, nvfp4_ue5m3, "nvfp4_ue5m3", mf::ArrayPath::simd);
MF_BENCH(quantize, mxfp8_rceil_fp32, "e4m3fn/1x32/e8m0fnu:rceil_fp32", mf::ArrayPath::simd);
BENCHMARK_CAPTURE(quantize, mxfp8_e4m3_engine_before, "mxfp8_e4m3", mf::ArrayPath::engine)
    ->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK_CAPTURE(quantize, mxfp4_engine_before, "mxfp4", mf::ArrayPath::engine)
    ->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK_CAPTURE(quantize, nvfp4_engine_before, "nvfp4", mf::ArrayPath::engine)
    ->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK_CAPTURE(dequantize, mxfp8_e4m3_f32, "mxfp8_e4m3")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK_CAPTURE(dequantize, nvfp4_f32, "nvfp4")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK_CAPTURE(dequantize, mxfp4_f32, "mxfp4")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK_CAPTURE(dequantize, fp8_1x128_f32, "fp8_1x128")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK_CAPTURE(dequantize, mxint8_f32, "mxint8")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK_CAPTURE(quantize, mxint8_engine_before, "mxint8", mf::ArrayPath::engine)
    ->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
// issue 25 item 9: 4over6 (target ≤ 2× nvfp4_simd of the same run) and amax-scope row on the SIMD path, and the
// engine's loop they took before (MeasureProcessCPUTime, as MF_BENCH, for the CPU-time table of docs/benchmarks.md)
MF_BENCH(quantize, nvfp4_4over6_mae, "e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mae", mf::ArrayPath::simd);
MF_BENCH(quantize, nvfp4_4over6_mse, "e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mse", mf::ArrayPath::simd);
MF_BENCH(quantize, nvfp4_amax_row, "e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row", mf::ArrayPath::simd);
BENCHMARK_CAPTURE(quantize, nvfp4_4over6_mae_engine_before, "e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mae",
                  mf::ArrayPath::engine)
    ->Arg(1)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime()->MinTime(0.5);
BENCHMARK_CAPTURE(quantize, nvfp4_4over6_mse_engine_before, "e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mse",
                  mf::ArrayPath::engine)
    ->Arg(1)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime()->MinTime(0.5);
BENCHMARK_CAPTURE(quantize, nvfp4_amax_row_engine_before, "e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row",
                  mf::ArrayPath::engine)
    ->Arg(1)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime()->MinTime(0.5);

/// Console output as usual, and each run's real time per iteration for the ratio table.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred && r.iterations > 0) {
        const std::string name = r.benchmark_name();
        if (seconds_.find(name) == seconds_.end()) order_.push_back(name);
        seconds_[name] = r.real_accumulated_time / static_cast<double>(r.iterations);
        cpu_seconds_[name] = r.cpu_accumulated_time / static_cast<double>(r.iterations);
      }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> seconds_, cpu_seconds_;
  std::vector<std::string> order_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  input();
  RatioReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  const auto m = rep.seconds_.find("memcpy_f32/min_time:0.500/real_time");
  const auto nt = rep.seconds_.find("ntcopy_f32/min_time:0.500/real_time");
  if (m == rep.seconds_.end() || nt == rep.seconds_.end()) return 0;
  // wall: real time / memcpy's real time; cpu: process CPU time (all threads) / memcpy's CPU time
  std::printf("\n%-70s %9s %10s %10s %10s\n", "operation (64 MiB f32 = 16 Mi elements)", "Gelem/s", "/memcpy", "/nt-copy",
              "cpu/memcpy");
  const double mc = rep.cpu_seconds_["memcpy_f32/min_time:0.500/real_time"];
  for (const std::string& name : rep.order_) {
    const double s = rep.seconds_[name];
    std::printf("%-70s %9.3f %10.2f %10.2f %10.2f\n", name.c_str(), static_cast<double>(kFloats) / s / 1e9, s / m->second,
                s / nt->second, rep.cpu_seconds_[name] / mc);
  }
  return 0;
}
