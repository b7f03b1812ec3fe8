// SPDX-License-Identifier: Apache-2.0
// device_check.cu: `minifloat_device_check`, the staged validation of minifloat::cuda on a GPU
// (issue 10 item 4; ../shared/cuda-notes.md A4). Run by scripts/device-check; writes report.json and
// a one-screen report.txt into --out. Stages (each: inputs, mismatches, first mismatches in hex):
//   S0  known answers: spec-digest traps through the hardware cvt and the engine (expected codes from
//       the OCP OFP8 table, not from the code under test); x2 operand order; curand_init(42,1,0) words
//   S1a hardware cvt vs the engine (its model, cuda/ptx.hpp) on the device: every f32 input (2^32) for
//       e4m3x2/e5m2x2 .f32 (± .relu), every f16x2 pair (2^32) for the .f16x2 forms
//   S1b the sm_100a-family forms (e2m1x2 e2m3x2 e3m2x2 ue8m0x2): same, or skipped "needs sm_100a"
//   S2  the engine on the device vs the committed CPU golden digests (tests/cuda/golden/sweep_digests.txt);
//       combinations without one: a random sample of 2^16-input chunks recomputed on this machine's CPU
//   S3  the Philox stream: curand_init/curand words vs minifloat::curand_word on the device, and SR
//       conversions on the device vs the CPU launcher for three seeds
//   S4  block kernels on the device vs quant.hpp on the CPU (src/cuda/device_check_blocks.cu)
//   S5  tensor-core probes (device_check_mma.cu): mma.sync m16n8k32 / wgmma m64n8k32 FP8 vs the T-FDPA models
// Exit status: 0 every stage that ran has 0 mismatches; 1 mismatches; 2 usage or I/O error.
// --dry-run prints the stages and why it cannot run (no device), exit 0. With no device and no
// --dry-run it prints "SKIPPED: no CUDA device: ..." and exits 0 (the `gpu` ctest label's skip).
#include <cuda_runtime.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "device_check_blocks.hpp"
#include "device_check_mma.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/cuda/cuda.hpp"
#include "minifloat/error.hpp"
#include "minifloat/registry.hpp"

namespace mf = minifloat;
namespace mc = minifloat::cuda;

cudaError_t device_check_curand_words(const unsigned long long* d_seeds, int nseeds, int nsubs, int words,
                                      unsigned* d_out);
cudaError_t device_check_curand_kat(unsigned long long seed, unsigned long long sub, unsigned* out4);

namespace {

constexpr int kMaxFirst = 16;

struct Mismatch {
  unsigned long long input;
  unsigned got, want;
};
struct DevCounters {
  unsigned long long mismatches;
  unsigned long long recorded;
  Mismatch first[kMaxFirst];
};

__device__ void record(DevCounters* c, unsigned long long input, unsigned got, unsigned want) {
  atomicAdd(&c->mismatches, 1ull);
  const unsigned long long k = atomicAdd(&c->recorded, 1ull);
  if (k < kMaxFirst) c->first[k] = Mismatch{input, got, want};
}

/// S1: pair p of the sweep of `op`: f32 sources (a, b) = (2p, 2p + 1); 16-bit sources (p >> 16, p & 0xffff).
__global__ void hw_vs_model_kernel(mc::HwCvt op, mc::Relu relu, unsigned long long pairs, DevCounters* c) {
  const bool wide = mc::hw_source(op).bits == 32;
  for (unsigned long long p = blockIdx.x * 1ull * blockDim.x + threadIdx.x; p < pairs;
       p += 1ull * gridDim.x * blockDim.x) {
    const std::uint32_t a = wide ? static_cast<std::uint32_t>(2 * p) : static_cast<std::uint32_t>(p >> 16);
    const std::uint32_t b = wide ? static_cast<std::uint32_t>(2 * p + 1) : static_cast<std::uint32_t>(p & 0xffff);
    std::uint8_t ha = 0, hb = 0;
    if (!mc::cvt_pair(op, relu, a, b, ha, hb)) {
      record(c, ~0ull, 0xdead, 0);
      return;
    }
    const std::uint8_t ma = mc::model_cvt(op, relu, a), mb = mc::model_cvt(op, relu, b);
    if (ha != ma) record(c, wide ? a : (std::uint64_t{a} << 16 | b), ha, ma);
    if (hb != mb) record(c, wide ? b : (std::uint64_t{a} << 16 | b) | (1ull << 40), hb, mb);
  }
}

/// S0: one pair through the hardware cvt.
__global__ void hw_pair_kernel(mc::HwCvt op, mc::Relu relu, std::uint32_t a, std::uint32_t b, unsigned* out) {
  std::uint8_t ca = 0, cb = 0;
  const bool ok = mc::cvt_pair(op, relu, a, b, ca, cb);
  out[0] = ok ? ca : 0x100u;
  out[1] = ok ? cb : 0x100u;
}

/// S3: the words cuRAND gave (device_check_curand.cu) vs minifloat::curand_word, same (seed, subsequence, k).
__global__ void curand_compare_kernel(const unsigned long long* seeds, int nseeds, int nsubs, int words,
                                      const unsigned* got, DevCounters* c) {
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (t >= nseeds * nsubs) return;
  const unsigned long long seed = seeds[t / nsubs];
  const unsigned long long sub = (static_cast<unsigned long long>(t % nsubs) * 0x9e3779b97f4a7c15ull) >> 13;
  for (int k = 0; k < words; ++k) {
    const unsigned w = got[static_cast<std::size_t>(t) * words + k];
    const unsigned m = mf::curand_word(seed, sub, static_cast<std::uint64_t>(k));
    if (w != m) record(c, (static_cast<unsigned long long>(t) << 32) | static_cast<unsigned>(k), w, m);
  }
}

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw mf::Error(std::string(what) + ": " + cudaGetErrorString(e));
}

struct Stage {
  std::string name, status, note;
  unsigned long long inputs = 0, mismatches = 0;
  double seconds = 0;
  std::vector<std::string> first;
};

std::string hex(unsigned long long v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", v);
  return b;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

DevCounters* d_counters() {
  static DevCounters* d = nullptr;
  if (!d) ck(cudaMalloc(&d, sizeof(DevCounters)), "cudaMalloc");
  ck(cudaMemset(d, 0, sizeof(DevCounters)), "cudaMemset");
  return d;
}
void collect(Stage& s, DevCounters* d) {
  DevCounters h{};
  ck(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost), "cudaMemcpy");
  s.mismatches += h.mismatches;
  for (unsigned long long k = 0; k < h.recorded && k < kMaxFirst && s.first.size() < kMaxFirst; ++k)
    s.first.push_back("in " + hex(h.first[k].input) + " got " + hex(h.first[k].got) + " want " + hex(h.first[k].want));
}

// ---- S0 -----------------------------------------------------------------------------------
Stage stage_known_answers(unsigned caps) {
  Stage s{"S0 known answers", "ok", "", 0, 0, 0, {}};
  const double t0 = now();
  struct Kat {
    mc::HwCvt op;
    mc::Relu relu;
    float a, b;
    unsigned ca, cb;
    const char* what;
  };
  const float nan = __builtin_nanf("");
  const float inf = __builtin_inff();
  // Expected codes from OCP OFP8 v1.0 Table 1 / PTX .satfinite text (spec-digest §11 traps).
  const std::vector<Kat> kats = {
      {mc::HwCvt::e4m3x2_f32_rn_satfinite, mc::Relu::off, 1.0f, 2.0f, 0x38, 0x40,
       "operand order: first source -> high byte"},
      {mc::HwCvt::e4m3x2_f32_rn_satfinite, mc::Relu::off, 448.0f, 464.0f, 0x7e, 0x7e,
       "448; 464 = tie 448|480 -> 448 (even)"},
      {mc::HwCvt::e4m3x2_f32_rn_satfinite, mc::Relu::off, 480.0f, inf, 0x7e, 0x7e, "satfinite: 480 and +Inf -> 448"},
      {mc::HwCvt::e4m3x2_f32_rn_satfinite, mc::Relu::off, -0.0f, 0x1p-9f, 0x80, 0x01, "-0; min subnormal 2^-9"},
      {mc::HwCvt::e4m3x2_f32_rn_satfinite, mc::Relu::off, 0x1p-10f, 0x1.8p-9f, 0x00, 0x02,
       "2^-10 tie -> 0; 1.5*2^-9 tie -> 2^-8"},
      {mc::HwCvt::e4m3x2_f32_rn_satfinite, mc::Relu::off, nan, -inf, 0x7f, 0xfe, "NaN -> 0x7f; -Inf -> -448"},
      {mc::HwCvt::e5m2x2_f32_rn_satfinite, mc::Relu::off, 1.0f, 57344.0f, 0x3c, 0x7b, "1; max 57344"},
      {mc::HwCvt::e5m2x2_f32_rn_satfinite, mc::Relu::off, 61440.0f, -inf, 0x7b, 0xfb,
       "61440 tie rounds to overflow -> sat max; -Inf"},
      {mc::HwCvt::e4m3x2_f32_rn_satfinite, mc::Relu::on, -1.0f, 1.0f, 0x00, 0x38, ".relu: -1 -> +0"},
      {mc::HwCvt::e2m1x2_f32_rn_satfinite, mc::Relu::off, 1.0f, 7.0f, 0x2, 0x7, "e2m1: 1; 7 -> 6 (sat)"},
      {mc::HwCvt::e2m1x2_f32_rn_satfinite, mc::Relu::off, 0.25f, 2.5f, 0x0, 0x4, "0.25 tie -> 0; 2.5 tie -> 2"},
      {mc::HwCvt::ue8m0x2_f32_rp_satfinite, mc::Relu::off, 1.0f, 1.5f, 0x7f, 0x80, "e8m0 rp: 1 -> 0x7f; 1.5 -> 2"},
      {mc::HwCvt::ue8m0x2_f32_rz, mc::Relu::off, 1.5f, 0x1p-127f, 0x7f, 0x00, "e8m0 rz: 1.5 -> 1; 2^-127 -> 0x00"},
  };
  unsigned* d = nullptr;
  ck(cudaMalloc(&d, 2 * sizeof(unsigned)), "cudaMalloc");
  int skipped = 0;
  for (const Kat& k : kats) {
    if ((caps & mc::hw_needs(k.op)) == 0) {
      ++skipped;
      continue;
    }
    const auto ua = mf::detail::bit_cast<std::uint32_t>(k.a), ub = mf::detail::bit_cast<std::uint32_t>(k.b);
    hw_pair_kernel<<<1, 1>>>(k.op, k.relu, ua, ub, d);
    unsigned h[2] = {0, 0};
    ck(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), "hw_pair_kernel");
    // The model (engine, profile nvidia) must give the same expected codes.
    const unsigned ma = mc::model_cvt(k.op, k.relu, ua), mb = mc::model_cvt(k.op, k.relu, ub);
    s.inputs += 2;
    for (int j = 0; j < 2; ++j) {
      const unsigned want = j ? k.cb : k.ca, hw = h[j], model = j ? mb : ma;
      if (hw != want || model != want) {
        ++s.mismatches;
        s.first.push_back(std::string(mc::ptx_name(k.op)) + (k.relu == mc::Relu::on ? " .relu " : " ") + k.what +
                          ": hw " + hex(hw) + " model " + hex(model) + " want " + hex(want));
      }
    }
  }
  cudaFree(d);
  // curand_init(42, 1, 0): spec-digest §10.
  unsigned kat[4] = {0, 0, 0, 0};
  ck(device_check_curand_kat(42ull, 1ull, kat), "curand_kat_kernel");
  const unsigned want[4] = {0x02933769u, 0x2051e913u, 0x3b68b038u, 0xb62c409cu};
  for (int k = 0; k < 4; ++k) {
    ++s.inputs;
    const unsigned m = mf::curand_word(42, 1, static_cast<std::uint64_t>(k));
    if (kat[k] != want[k] || m != want[k]) {
      ++s.mismatches;
      s.first.push_back("curand_init(42,1,0) word " + std::to_string(k) + ": device " + hex(kat[k]) + " curand_word " +
                        hex(m) + " want " + hex(want[k]));
    }
  }
  if (skipped) s.note = std::to_string(skipped) + " known answers need sm_100a-family cvt (skipped)";
  s.status = s.mismatches ? "MISMATCH" : "ok";
  s.seconds = now() - t0;
  return s;
}

// ---- S1 -----------------------------------------------------------------------------------
Stage stage_hw_vs_engine(const char* name, const std::vector<mc::HwCvt>& ops, unsigned caps, bool quick) {
  Stage s{name, "ok", "", 0, 0, 0, {}};
  const double t0 = now();
  for (mc::HwCvt op : ops) {
    if ((caps & mc::hw_needs(op)) == 0) {
      s.status = "skipped";
      s.note = std::string("needs ") + std::string(mc::hw_architectures(op)) + " (this device's binary lacks " +
               std::string(mc::ptx_name(op)) + ")";
      s.seconds = now() - t0;
      return s;
    }
    for (mc::Relu relu : {mc::Relu::off, mc::Relu::on}) {
      if (relu == mc::Relu::on && !mc::hw_has_relu(op)) continue;
      const bool wide = mc::hw_source(op).bits == 32;
      unsigned long long pairs = wide ? (1ull << 31) : (1ull << 32);
      if (quick) pairs >>= 12;
      DevCounters* c = d_counters();
      hw_vs_model_kernel<<<132 * 16, 256>>>(op, relu, pairs, c);
      ck(cudaGetLastError(), "hw_vs_model_kernel");
      ck(cudaDeviceSynchronize(), "hw_vs_model_kernel");
      s.inputs += 2 * pairs;
      collect(s, c);
    }
  }
  s.status = s.mismatches ? "MISMATCH" : "ok";
  s.seconds = now() - t0;
  return s;
}

// ---- S2 -----------------------------------------------------------------------------------
struct Combo {
  std::string fmt, mode, policy;
};
std::vector<Combo> all_combos() {
  std::vector<Combo> v;
  for (const mf::NamedFormatRow& r : mf::kNamedFormats) {  // the array paths' formats, in table order
    if (!(r.paths & mf::kArrayPath)) continue;
    const char* f = r.name;
    for (const char* m : {"rne", "rna", "rtz", "rtp", "rtn", "rto"})
      for (const char* p : {"nonsat", "satfinite", "satpropagate"}) v.push_back({f, m, p});
  }
  return v;
}
std::map<std::string, std::uint64_t> read_golden(const std::string& path) {
  std::map<std::string, std::uint64_t> g;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string f, m, p, d;
    if (ls >> f >> m >> p >> d) g[f + " " + m + " " + p] = std::strtoull(d.c_str(), nullptr, 16);
  }
  return g;
}

Stage stage_sweep(const std::string& golden_path, bool quick, unsigned seed) {
  Stage s{"S2 engine on device vs CPU golden digests", "ok", "", 0, 0, 0, {}};
  const double t0 = now();
  const auto golden = read_golden(golden_path);
  const std::uint64_t chunks = mc::sweep_chunks(mf::SweepSampling::strided, 1);
  std::uint64_t* d = nullptr;
  ck(cudaMalloc(&d, chunks * sizeof(std::uint64_t)), "cudaMalloc");
  std::vector<std::uint64_t> h(chunks);
  std::mt19937_64 rng(seed);
  int with_golden = 0, sampled = 0;
  for (const Combo& c : all_combos()) {
    const std::string key = c.fmt + " " + c.mode + " " + c.policy;
    const mf::Format fmt = mf::parse_format(c.fmt);
    const mf::RoundingSpec spec{mf::parse<mf::Rounding>(c.mode), mf::parse<mf::Overflow>(c.policy)};
    const auto it = golden.find(key);
    if (quick && it == golden.end()) continue;
    mc::sweep_chunk_digests(fmt, spec, mf::profiles::ocp, mf::SweepSampling::strided, 1, d, nullptr);
    ck(cudaMemcpy(h.data(), d, chunks * sizeof(std::uint64_t), cudaMemcpyDeviceToHost), "sweep kernel");
    if (it != golden.end()) {
      ++with_golden;
      s.inputs += std::uint64_t{1} << 32;
      const std::uint64_t got = mc::combine_chunk_digests(h.data(), chunks);
      if (got != it->second) {
        ++s.mismatches;
        s.first.push_back(key + ": device " + hex(got) + " golden " + hex(it->second));
      }
      if (quick) break;
    } else {
      ++sampled;
      std::vector<std::uint64_t> cpu_chunks(chunks, 0);
      const mc::SweepChunkBody body{fmt, spec, mf::profiles::ocp, mf::SweepSampling::strided, 1, cpu_chunks.data()};
      for (int j = 0; j < 4; ++j) {
        const std::uint64_t k = rng() % chunks;
        body(k);  // the same body on this machine's CPU
        const std::uint64_t cpu = cpu_chunks[k];
        s.inputs += mf::kSweepChunk;
        if (cpu != h[k]) {
          ++s.mismatches;
          s.first.push_back(key + " chunk " + std::to_string(k) + ": device " + hex(h[k]) + " cpu " + hex(cpu));
        }
      }
    }
  }
  cudaFree(d);
  s.note = std::to_string(with_golden) + " combinations vs golden digests, " + std::to_string(sampled) +
           " by 4 random chunks recomputed on the CPU";
  s.status = s.mismatches ? "MISMATCH" : "ok";
  s.seconds = now() - t0;
  return s;
}

// ---- S3 -----------------------------------------------------------------------------------
Stage stage_philox(bool quick) {
  Stage s{"S3 Philox stream and SR on device", "ok", "", 0, 0, 0, {}};
  const double t0 = now();
  const std::vector<unsigned long long> seeds = {0ull, 42ull, 0x0123456789abcdefull};
  unsigned long long* ds = nullptr;
  unsigned* dw = nullptr;
  const int nsubs = quick ? 64 : 1024, words = quick ? 64 : 1024;
  const int threads = static_cast<int>(seeds.size()) * nsubs;
  ck(cudaMalloc(&ds, seeds.size() * sizeof(unsigned long long)), "cudaMalloc");
  ck(cudaMalloc(&dw, static_cast<std::size_t>(threads) * words * sizeof(unsigned)), "cudaMalloc");
  ck(cudaMemcpy(ds, seeds.data(), seeds.size() * sizeof(unsigned long long), cudaMemcpyHostToDevice), "cudaMemcpy");
  ck(device_check_curand_words(ds, static_cast<int>(seeds.size()), nsubs, words, dw), "curand_words_kernel");
  DevCounters* c = d_counters();
  curand_compare_kernel<<<(threads + 127) / 128, 128>>>(ds, static_cast<int>(seeds.size()), nsubs, words, dw, c);
  ck(cudaGetLastError(), "curand_compare_kernel");
  ck(cudaDeviceSynchronize(), "curand_compare_kernel");
  s.inputs += static_cast<unsigned long long>(threads) * words;
  collect(s, c);
  cudaFree(ds);
  cudaFree(dw);
  // SR conversions: device engine vs the CPU launcher, same (seed, stream, step, index).
  const std::size_t n = quick ? (1u << 12) : (1u << 22);
  std::vector<float> x(n);
  std::mt19937 rng(7);
  for (auto& v : x)
    v = std::ldexp(static_cast<float>(rng() % 2000001) / 1e6f - 1.0f, static_cast<int>(rng() % 20) - 10);
  float* dx = nullptr;
  std::uint16_t* dy = nullptr;
  ck(cudaMalloc(&dx, n * sizeof(float)), "cudaMalloc");
  ck(cudaMalloc(&dy, n * sizeof(std::uint16_t)), "cudaMalloc");
  ck(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  std::vector<std::uint16_t> got(n), want(n);
  for (unsigned long long seed : seeds)
    for (mf::Format to : {mf::formats::e4m3fn, mf::formats::e2m1fn, mf::formats::bf16})
      for (mf::SrVariant var : {mf::SrVariant::exact, mf::SrVariant::a}) {
        mc::ConvertRequest r;
        r.from = mf::formats::f32;
        r.to = to;
        r.spec = {mf::Rounding::sr, mf::Overflow::satfinite};
        r.spec.sr_variant = var;
        r.spec.sr_bits = 13;
        r.sr = {seed, 3, 5, 1000};
        if (to.bits > 8) {
          mc::convert(dx, dy, nullptr, n, r, nullptr);
          ck(cudaMemcpy(got.data(), dy, n * 2, cudaMemcpyDeviceToHost), "sr convert");
          mc::cpu::convert(x.data(), want.data(), nullptr, n, r, 4);
        } else {
          std::vector<std::uint8_t> g8(n), w8(n);
          mc::convert(dx, dy, nullptr, n, r, nullptr);
          ck(cudaMemcpy(g8.data(), dy, n, cudaMemcpyDeviceToHost), "sr convert");
          mc::cpu::convert(x.data(), w8.data(), nullptr, n, r, 4);
          for (std::size_t i = 0; i < n; ++i) got[i] = g8[i], want[i] = w8[i];
        }
        for (std::size_t i = 0; i < n; ++i) {
          if (got[i] != want[i]) {
            ++s.mismatches;
            if (s.first.size() < kMaxFirst)
              s.first.push_back("SR " + mf::format_name(to) + " seed " + hex(seed) + " index " + std::to_string(i) +
                                ": device " + hex(got[i]) + " cpu " + hex(want[i]));
          }
        }
        s.inputs += n;
      }
  cudaFree(dx);
  cudaFree(dy);
  s.status = s.mismatches ? "MISMATCH" : "ok";
  s.seconds = now() - t0;
  return s;
}

const char* const kStages[] = {
    "S0  known answers (OFP8 traps through every hardware cvt and the model; x2 operand order; curand_init(42,1,0))",
    "S1a hardware cvt vs engine: e4m3x2/e5m2x2 .f32 (+.relu) on all 2^32 f32, .f16x2 on all 2^32 pairs (sm_89+)",
    "S1b hardware cvt vs engine: e2m1x2 e2m3x2 e3m2x2 ue8m0x2 (sm_100a family; skipped elsewhere)",
    "S2  engine on device vs committed CPU golden digests (tests/cuda/golden/sweep_digests.txt); others: sampled "
    "chunks vs this CPU",
    "S3  curand_init/curand vs minifloat::curand_word; SR on device vs the CPU launcher, 3 seeds",
    mc::kBlockStageLine,
};

/// --dry-run: which S2 combinations have a golden digest and which are sampled instead.
void print_golden_plan(const std::map<std::string, std::uint64_t>& golden) {
  std::map<std::string, std::string> sampled, digested;
  std::vector<std::string> order;
  std::size_t n_sampled = 0, n_digested = 0;
  for (const Combo& c : all_combos()) {
    if (sampled.count(c.fmt) == 0 && digested.count(c.fmt) == 0) order.push_back(c.fmt);
    const bool has = golden.count(c.fmt + " " + c.mode + " " + c.policy) != 0;
    std::string& l = has ? digested[c.fmt] : sampled[c.fmt];
    (l += l.empty() ? "" : " ") += c.mode + "/" + c.policy;
    (has ? n_digested : n_sampled) += 1;
    if (has) sampled[c.fmt];
    else digested[c.fmt];
  }
  std::printf(
      "S2 plan: %zu of %zu combinations against a golden digest, %zu sampled instead "
      "(4 random 2^16-input chunks each, recomputed on this machine's CPU)\n",
      n_digested, n_digested + n_sampled, n_sampled);
  for (const std::string& f : order) {
    if (!digested[f].empty()) std::printf("  golden  %-12s %s\n", f.c_str(), digested[f].c_str());
    if (!sampled[f].empty()) std::printf("  sampled %-12s %s\n", f.c_str(), sampled[f].c_str());
  }
}

void write_reports(const std::string& dir, const std::vector<Stage>& stages, const std::string& device) {
  std::ofstream j(dir + "/report.json"), t(dir + "/report.txt");
  if (!j || !t) throw mf::IoError("cannot write report.json / report.txt in " + dir);
  j << "{\n  \"device\": \"" << device << "\",\n  \"stages\": [\n";
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const Stage& s = stages[i];
    j << "    {\"stage\": \"" << s.name << "\", \"status\": \"" << s.status << "\", \"inputs\": " << s.inputs
      << ", \"mismatches\": " << s.mismatches << ", \"seconds\": " << s.seconds << ", \"note\": \"" << s.note
      << "\", \"first\": [";
    for (std::size_t k = 0; k < s.first.size(); ++k) j << (k ? ", " : "") << "\"" << s.first[k] << "\"";
    j << "]}" << (i + 1 < stages.size() ? "," : "") << "\n";
  }
  j << "  ]\n}\n";
  t << "minifloat_device_check on " << device << "\n";
  char line[512];
  for (const Stage& s : stages) {
    std::snprintf(line, sizeof line, "%-44s %-9s inputs %14llu  mismatches %llu  %.2f s  %s\n", s.name.c_str(),
                  s.status.c_str(), s.inputs, s.mismatches, s.seconds, s.note.c_str());
    t << line;
    for (std::size_t k = 0; k < s.first.size() && k < 4; ++k) t << "    " << s.first[k] << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool dry = false, quick = false;
  std::string out = ".", golden = std::string(MINIFLOAT_SOURCE_DIR) + "/tests/cuda/golden/sweep_digests.txt";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dry-run") dry = true;
    else if (a == "--quick") quick = true;
    else if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--golden" && i + 1 < argc) golden = argv[++i];
    else if (a == "--help") {
      std::puts("usage: minifloat_device_check [--dry-run] [--quick] [--out DIR] [--golden FILE]");
      return 0;
    } else {
      std::fprintf(
          stderr,
          "minifloat_device_check: unknown argument '%s'; accepted: --dry-run --quick --out DIR --golden FILE\n",
          a.c_str());
      return 2;
    }
  }
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  const std::string no_device = e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e)
                                                 : (count == 0 ? "no CUDA device: 0 devices" : "");
  if (dry) {
    std::puts("minifloat_device_check --dry-run: stages");
    for (const char* s : kStages) std::printf("  %s\n", s);
    std::printf("  %s\n", device_check_tensor_cores_plan().c_str());
    std::printf("golden digests: %s (%zu combinations)\n", golden.c_str(), read_golden(golden).size());
    print_golden_plan(read_golden(golden));
    if (!no_device.empty()) std::printf("cannot run here: %s\n", no_device.c_str());
    else std::puts("a CUDA device is present: run without --dry-run");
    return 0;
  }
  if (!no_device.empty()) {
    std::printf("SKIPPED: %s\n", no_device.c_str());
    return 0;
  }
  try {
    cudaDeviceProp prop{};
    ck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    const std::string device =
        std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ")";
    const unsigned caps = mc::device_hw_caps();
    std::vector<Stage> stages;
    stages.push_back(stage_known_answers(caps));
    stages.push_back(stage_hw_vs_engine("S1a hardware cvt vs engine (FP8)",
                                        {mc::HwCvt::e4m3x2_f32_rn_satfinite, mc::HwCvt::e5m2x2_f32_rn_satfinite,
                                         mc::HwCvt::e4m3x2_f16x2_rn_satfinite, mc::HwCvt::e5m2x2_f16x2_rn_satfinite},
                                        caps, quick));
    stages.push_back(stage_hw_vs_engine(
        "S1b hardware cvt vs engine (FP6/FP4/UE8M0)",
        {mc::HwCvt::e2m1x2_f32_rn_satfinite, mc::HwCvt::e2m3x2_f32_rn_satfinite, mc::HwCvt::e3m2x2_f32_rn_satfinite,
         mc::HwCvt::ue8m0x2_f32_rz, mc::HwCvt::ue8m0x2_f32_rz_satfinite, mc::HwCvt::ue8m0x2_f32_rp,
         mc::HwCvt::ue8m0x2_f32_rp_satfinite, mc::HwCvt::ue8m0x2_bf16x2_rp_satfinite},
        caps, quick));
    stages.push_back(stage_sweep(golden, quick, 12345));
    stages.push_back(stage_philox(quick));
    {
      const mc::BlockStageResult b = mc::device_check_blocks(quick);
      stages.push_back(
          Stage{"S4 block kernels vs quant.hpp", b.status, b.note, b.inputs, b.mismatches, b.seconds, b.first});
    }
    {
      const TensorCoreStage t = device_check_tensor_cores(out, prop.major, prop.minor, quick);
      stages.push_back(Stage{"S5 tensor-core probes", t.status, t.note, t.inputs, t.mismatches, t.seconds, t.first});
    }
    write_reports(out, stages, device);
    bool bad = false;
    for (const Stage& s : stages) {
      std::printf("%-44s %-9s inputs %llu mismatches %llu %.2f s %s\n", s.name.c_str(), s.status.c_str(), s.inputs,
                  s.mismatches, s.seconds, s.note.c_str());
      bad = bad || s.mismatches != 0 || s.status == "error";
    }
    return bad ? 1 : 0;
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "minifloat_device_check: %s\n", ex.what());
    return 2;
  }
}
