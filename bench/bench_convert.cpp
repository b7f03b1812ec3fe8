// SPDX-License-Identifier: Apache-2.0
// bench_convert.cpp: f32 → e4m3fn (rne, nonsat) of a 64 MiB array through the public span API,
// against a memcpy of the same 64 MiB in the same run; prints the time-per-byte ratio.
#include <benchmark/benchmark.h>

#include "bench_input.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "minifloat/convert_span.hpp"

namespace {

constexpr std::size_t kBytes = std::size_t{64} << 20;  // 64 MiB of input
constexpr std::size_t kFloats = kBytes / sizeof(float);

const std::vector<float>& input() {
  static const std::vector<float> v = e4m3fn_bench_input(kFloats);
  return v;
}

void f32_to_e4m3fn_rne(benchmark::State& state) {
  const std::vector<float>& in = input();
  std::vector<std::uint8_t> out(kFloats, 1);
  for (auto _ : state) {
    const minifloat::Flags f = minifloat::convert(std::span<const float>(in), std::span<std::uint8_t>(out),
                                                  minifloat::formats::e4m3fn,
                                                  {minifloat::Rounding::rne, minifloat::Overflow::nonsat});
    benchmark::DoNotOptimize(f);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kBytes));
}

void memcpy_64mib(benchmark::State& state) {
  const std::vector<float>& in = input();
  std::vector<float> out(kFloats, 1.f);
  for (auto _ : state) {
    std::memcpy(out.data(), in.data(), kBytes);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kBytes));
}

BENCHMARK(f32_to_e4m3fn_rne)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(memcpy_64mib)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

/// Console output as usual, and remembers each benchmark's real time per iteration.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred && r.iterations > 0)
        seconds_[r.run_name.function_name] = r.real_accumulated_time / static_cast<double>(r.iterations);
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> seconds_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  input();  // build the input outside the timed runs
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  const auto c = reporter.seconds_.find("f32_to_e4m3fn_rne");
  const auto m = reporter.seconds_.find("memcpy_64mib");
  if (c != reporter.seconds_.end() && m != reporter.seconds_.end()) {
    std::printf("f32->e4m3fn rne: %.3f ns/byte, memcpy: %.3f ns/byte, ratio convert/memcpy = %.1f\n",
                c->second * 1e9 / static_cast<double>(kBytes), m->second * 1e9 / static_cast<double>(kBytes),
                c->second / m->second);
  }
  return 0;
}
