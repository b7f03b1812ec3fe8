// SPDX-License-Identifier: Apache-2.0
// device_check_mma.cu: stage S5 of minifloat_device_check, the tensor-core probes (issue 10 item 4;
// ../shared/training-sim.md §1.6). Kernels issue, by inline PTX,
//   mma.sync.aligned.m16n8k32.row.col.f32.{e4m3,e5m2}.{e4m3,e5m2}.f32   (sm_89+; one warp per 16-row slice)
//   mma.sync.aligned.m16n8k32.row.col.f16.{e4m3,e5m2}.{e4m3,e5m2}.f16   (sm_89+)
//   wgmma.mma_async.sync.aligned.m64n8k32.f32.{e4m3,e5m2}.{e4m3,e5m2}   (sm_90a; A in registers, B in shared
//                                                                         memory through a descriptor)
// over the probe and random tiles of cuda/mma_probe.hpp (built on the host from exact values); the results
// come back and are compared on the host with every hypothesis (T-FDPA presets and variants). A binary
// without the instruction for this device reports "needs sm_89+" / "needs sm_90a" for it.
// The stage's mismatches are the dots where the device differs from the preset of its architecture
// (sm_89 ada-fp8 / ada-fp8-f16, sm_90 hopper-fp8 / hopper-fp8-f16-unvalidated, sm_100+ blackwell-fp8; none
// for f16 there) plus the dots where wgmma and mma.sync differ on the same tiles.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "device_check_mma.hpp"
#include "minifloat/cuda/mma_fragments.hpp"
#include "minifloat/cuda/mma_probe.hpp"
#include "minifloat/error.hpp"
#include "minifloat/registry.hpp"

namespace mf = minifloat;
namespace mc = minifloat::cuda;

namespace {

constexpr int kDots = mc::kMmaTileRows * mc::kMmaTileCols;
enum MmaCaps : unsigned { mma_caps_sync_fp8 = 1, mma_caps_wgmma = 2 };

__global__ void mma_caps_kernel(unsigned* out) {
  unsigned c = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  c |= mma_caps_sync_fp8;
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  c |= mma_caps_wgmma;
#endif
  *out = c;
}

/// One block of 4 warps per tile; warp w computes rows 16w..16w+15 with mma.sync, f32 accumulate.
template <bool E5>
__global__ void mma_sync_f32_kernel(const mc::MmaTile* tiles, std::uint32_t* d) {
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const mc::MmaTile& t = tiles[blockIdx.x];
  std::uint32_t a[4], b[2], c[4];
  mc::pack_a(t, 16 * warp, lane, a);
  mc::pack_b(t, lane, b);
  mc::pack_c_f32(t, 16 * warp, lane, c);
  float r0 = __uint_as_float(c[0]), r1 = __uint_as_float(c[1]), r2 = __uint_as_float(c[2]), r3 = __uint_as_float(c[3]);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if constexpr (E5)
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(r0), "+f"(r1), "+f"(r2), "+f"(r3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(r0), "+f"(r1), "+f"(r2), "+f"(r3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)a, (void)b;
#endif
  const std::uint32_t out[4] = {__float_as_uint(r0), __float_as_uint(r1), __float_as_uint(r2), __float_as_uint(r3)};
  mc::unpack_d_f32(out, 16 * warp, lane, d + static_cast<std::size_t>(blockIdx.x) * kDots);
}

/// As mma_sync_f32_kernel with f16 accumulate (C and D f16x2 registers).
template <bool E5>
__global__ void mma_sync_f16_kernel(const mc::MmaTile* tiles, std::uint32_t* d) {
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const mc::MmaTile& t = tiles[blockIdx.x];
  std::uint32_t a[4], b[2], c[2];
  mc::pack_a(t, 16 * warp, lane, a);
  mc::pack_b(t, lane, b);
  mc::pack_c_f16(t, 16 * warp, lane, c);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if constexpr (E5)
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)a, (void)b;
#endif
  mc::unpack_d_f16(c, 16 * warp, lane, d + static_cast<std::size_t>(blockIdx.x) * kDots);
}

/// One warpgroup (128 threads) per tile: wgmma m64n8k32, A from registers, B from shared memory
/// (K-major, no swizzle, cuda/mma_fragments.hpp), D = A·B + C (scale-d = 1).
template <bool E5>
__global__ void wgmma_f32_kernel(const mc::MmaTile* tiles, std::uint32_t* d) {
  __shared__ alignas(128) std::uint8_t sb[mc::kWgmmaBBytes];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const mc::MmaTile& t = tiles[blockIdx.x];
  for (int n = 0; n < mc::kMmaTileCols; ++n)
    for (int k = static_cast<int>(threadIdx.x); k < mc::kMmaTileK; k += static_cast<int>(blockDim.x))
      sb[mc::wgmma_b_offset(n, k)] = t.b[n * mc::kMmaTileK + k];
  __syncthreads();
  std::uint32_t a[4], c[4];
  mc::pack_a(t, 16 * warp, lane, a);
  mc::pack_c_f32(t, 16 * warp, lane, c);
  float r0 = __uint_as_float(c[0]), r1 = __uint_as_float(c[1]), r2 = __uint_as_float(c[2]), r3 = __uint_as_float(c[3]);
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  const std::uint64_t desc = mc::wgmma_b_descriptor(static_cast<std::uint32_t>(__cvta_generic_to_shared(sb)));
  asm volatile("" : "+f"(r0), "+f"(r1), "+f"(r2), "+f"(r3)::"memory");
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  if constexpr (E5)
    asm volatile(
        "{ .reg .pred p; setp.ne.b32 p, %9, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, p, 1, 1; }"
        : "+f"(r0), "+f"(r1), "+f"(r2), "+f"(r3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(1)
        : "memory");
  else
    asm volatile(
        "{ .reg .pred p; setp.ne.b32 p, %9, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, p, 1, 1; }"
        : "+f"(r0), "+f"(r1), "+f"(r2), "+f"(r3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(1)
        : "memory");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  // keep the accumulator reads after the wait (CUTLASS warpgroup_fence_operand)
  asm volatile("" : "+f"(r0), "+f"(r1), "+f"(r2), "+f"(r3)::"memory");
#else
  (void)a;  // this architecture has no wgmma: the caps kernel reports it and the kernel is never launched
#endif
  const std::uint32_t out[4] = {__float_as_uint(r0), __float_as_uint(r1), __float_as_uint(r2), __float_as_uint(r3)};
  mc::unpack_d_f32(out, 16 * warp, lane, d + static_cast<std::size_t>(blockIdx.x) * kDots);
}

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw mf::Error(std::string("S5 ") + what + ": " + cudaGetErrorString(e));
}

enum class Instr { mma_sync_f32, mma_sync_f16, wgmma_f32 };

/// The D of every tile of `tiles` through `instr` (operands e5m2 when `e5`).
std::vector<std::uint32_t> run_tiles(Instr instr, bool e5, const std::vector<mc::MmaTile>& tiles) {
  std::vector<std::uint32_t> d(tiles.size() * kDots, 0);
  if (tiles.empty()) return d;
  mc::MmaTile* dt = nullptr;
  std::uint32_t* dd = nullptr;
  ck(cudaMalloc(&dt, tiles.size() * sizeof(mc::MmaTile)), "cudaMalloc");
  ck(cudaMalloc(&dd, d.size() * sizeof(std::uint32_t)), "cudaMalloc");
  ck(cudaMemcpy(dt, tiles.data(), tiles.size() * sizeof(mc::MmaTile), cudaMemcpyHostToDevice), "cudaMemcpy");
  const auto grid = static_cast<unsigned>(tiles.size());
  switch (instr) {
    case Instr::mma_sync_f32:
      if (e5) mma_sync_f32_kernel<true><<<grid, 128>>>(dt, dd);
      else mma_sync_f32_kernel<false><<<grid, 128>>>(dt, dd);
      break;
    case Instr::mma_sync_f16:
      if (e5) mma_sync_f16_kernel<true><<<grid, 128>>>(dt, dd);
      else mma_sync_f16_kernel<false><<<grid, 128>>>(dt, dd);
      break;
    case Instr::wgmma_f32:
      if (e5) wgmma_f32_kernel<true><<<grid, 128>>>(dt, dd);
      else wgmma_f32_kernel<false><<<grid, 128>>>(dt, dd);
      break;
  }
  ck(cudaGetLastError(), "kernel launch");
  ck(cudaDeviceSynchronize(), "kernel");
  ck(cudaMemcpy(d.data(), dd, d.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaFree(dt);
  cudaFree(dd);
  return d;
}

std::string primary_for(int major, int minor, mf::Format dest) {
  const bool f32 = dest == mf::formats::f32;
  if (major == 8 && minor >= 9) return f32 ? mf::mma_models::ada_fp8.name : mf::mma_models::ada_fp8_f16.name;
  if (major == 9) return f32 ? mf::mma_models::hopper_fp8.name : mf::mma_models::hopper_fp8_f16_unvalidated.name;
  if (major >= 10 && f32) return mf::mma_models::blackwell_fp8.name;
  return "";
}

const char* instr_ptx(Instr i, bool e5) {
  switch (i) {
    case Instr::mma_sync_f32: return e5 ? "mma.sync.m16n8k32.f32.e5m2.e5m2.f32" : "mma.sync.m16n8k32.f32.e4m3.e4m3.f32";
    case Instr::mma_sync_f16: return e5 ? "mma.sync.m16n8k32.f16.e5m2.e5m2.f16" : "mma.sync.m16n8k32.f16.e4m3.e4m3.f16";
    case Instr::wgmma_f32: return e5 ? "wgmma.m64n8k32.f32.e5m2.e5m2" : "wgmma.m64n8k32.f32.e4m3.e4m3";
  }
  return "?";
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) (s += s.empty() ? "" : " | ") += x;
  return s.empty() ? "(none)" : s;
}

}  // namespace

/// The zero-rule probes (issue 26 item 4) that S5 runs, by question: hardware has not decided these rules.
static std::string zero_rule_probes() {
  std::string s =
      "\n      zero-rule probes (TfdpaZeroRules: not decided by the measured vectors; an H100/H200 run decides them for"
      " mma.sync/wgmma FP8, a B200 for tcgen05 and an A100 for the zero-C exponent of bf16/tf32, which FP8 products "
      "cannot reach):";
  for (const mf::Format dest : {mf::formats::f32, mf::formats::f16}) {
    std::size_t zero_term = 0;
    for (const auto& p : mc::mma_probes(mf::formats::e4m3fn, dest)) {
      if (p.question == "zero-term exponent") ++zero_term;
      else if (p.question.rfind("zero", 0) == 0)
        s += "\n        e4m3 " + mf::format_name(dest) + " | " + p.question + " | " + p.name;
    }
    s += "\n        e4m3 " + mf::format_name(dest) + " | zero-term exponent | " + std::to_string(zero_term) +
         " probes: zero products or min_sub^2 + 2^e (e = -14 .. -149)";
  }
  return s;
}

std::string device_check_tensor_cores_plan() {
  const std::size_t p4 = mc::mma_probes(mf::formats::e4m3fn, mf::formats::f32).size() +
                         mc::mma_probes(mf::formats::e4m3fn, mf::formats::f16).size();
  const std::size_t p5 = mc::mma_probes(mf::formats::e5m2, mf::formats::f32).size() +
                         mc::mma_probes(mf::formats::e5m2, mf::formats::f16).size();
  return "S5  tensor-core probes: mma.sync.m16n8k32 e4m3/e5m2 f32 and f16 accumulate (sm_89+), wgmma.m64n8k32 f32 "
         "(sm_90a); " +
         std::to_string(p4) + " e4m3 + " + std::to_string(p5) +
         " e5m2 probe tiles (f32 + f16 destinations) + 256 random tiles per instruction, vs " +
         std::to_string(mc::mma_hypotheses(mf::formats::f32).size()) + " f32 / " +
         std::to_string(mc::mma_hypotheses(mf::formats::f16).size()) +
         " f16 T-FDPA hypotheses on the CPU; budget 30 s (GPU < 1 s)" + zero_rule_probes();
}

TensorCoreStage device_check_tensor_cores(const std::string& out_dir, int sm_major, int sm_minor, bool quick) {
  TensorCoreStage s;
  s.status = "ok";
  const auto t0 = std::chrono::steady_clock::now();
  unsigned* dcaps = nullptr;
  unsigned caps = 0;
  ck(cudaMalloc(&dcaps, sizeof(unsigned)), "cudaMalloc");
  mma_caps_kernel<<<1, 1>>>(dcaps);
  ck(cudaMemcpy(&caps, dcaps, sizeof caps, cudaMemcpyDeviceToHost), "mma_caps_kernel");
  cudaFree(dcaps);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t nrandom = quick ? 8 : 256;

  std::ostringstream detail, note;
  detail << "S5 tensor-core probes on sm_" << sm_major << sm_minor << " (per question: the hypotheses that reproduce "
         << "every probe of it bit for bit; per hypothesis: mismatching dots of " << nrandom
         << " random 64x8x32 tiles)\n";
  std::vector<std::string> skipped;
  std::vector<std::uint32_t> sync_probe_d[2], sync_random_d[2];  // mma.sync f32 results per format, for wgmma
  std::string error;
  // wgmma last: a fault there (a sticky CUDA error) must not cost the mma.sync results
  try {
    for (const Instr instr : {Instr::mma_sync_f32, Instr::mma_sync_f16, Instr::wgmma_f32}) {
      for (const bool e5 : {false, true}) {
        const mf::Format op = e5 ? mf::formats::e5m2 : mf::formats::e4m3fn;
        const char* name = instr_ptx(instr, e5);
        const unsigned need = instr == Instr::wgmma_f32 ? mma_caps_wgmma : mma_caps_sync_fp8;
        if ((caps & need) == 0) {
          skipped.push_back(std::string(name) + ": needs " + (instr == Instr::wgmma_f32 ? "sm_90a" : "sm_89+"));
          continue;
        }
        const mf::Format dest = instr == Instr::mma_sync_f16 ? mf::formats::f16 : mf::formats::f32;
        const auto probes = mc::mma_probes(op, dest);
        std::vector<mc::MmaTile> ptiles;
        for (const auto& p : probes) ptiles.push_back(p.tile);
        const auto random = mc::mma_random_tiles(op, dest, nrandom, 0x5eed0005u + (e5 ? 1u : 0u));
        const auto pd = run_tiles(instr, e5, ptiles);
        const auto rd = run_tiles(instr, e5, random);
        const std::string primary = primary_for(sm_major, sm_minor, dest);
        const mc::MmaReport rep = mc::mma_evaluate(op, dest, probes, pd.data(), random, rd.data(), primary, threads);
        s.inputs += (ptiles.size() + random.size()) * kDots;
        s.mismatches += rep.primary_mismatches;
        for (const auto& f : rep.first)
          if (s.first.size() < 16) s.first.push_back(std::string(name) + ": " + f);
        detail << "\n"
               << name << " (primary " << (primary.empty() ? "none" : primary) << ": " << rep.primary_mismatches
               << " mismatching dots)\n";
        for (const auto& f : rep.findings)
          detail << "  " << f.question << " [" << f.probes << "]: " << join(f.supported) << "\n";
        for (const auto& [h, n] : rep.random_mismatches) detail << "  random " << h << ": " << n << "\n";
        for (const auto& p : probes) {
          const std::size_t i = static_cast<std::size_t>(&p - probes.data());
          char b[32];
          std::snprintf(b, sizeof b, "0x%08x", pd[i * kDots]);
          detail << "    probe " << p.question << " / " << p.name << ": d(0,0) = " << b << "\n";
        }
        if (instr == Instr::mma_sync_f32) {
          note << (note.tellp() > 0 ? "; " : "") << (e5 ? "e5m2" : "e4m3") << " mma.sync f32:";
          for (const auto& f : rep.findings)
            if (f.question == "C in the alignment" || f.question == "zero-term exponent" ||
                f.question == "NaN/Inf and the canonical NaN" || f.question == "zero result sign")
              note << " [" << f.question << ": " << (f.supported.empty() ? std::string("(none)") : f.supported.front())
                   << "]";
          sync_probe_d[e5] = pd;
          sync_random_d[e5] = rd;
        }
        if (instr == Instr::mma_sync_f16)
          for (const auto& f : rep.findings)
            if (f.question == "finite overflow")
              note << "; " << (e5 ? "e5m2" : "e4m3") << " mma.sync f16 [finite overflow: "
                   << (f.supported.empty() ? std::string("(none)") : join(f.supported)) << "]";
        if (instr == Instr::wgmma_f32 && !sync_probe_d[e5].empty()) {
          unsigned long long diff = 0;
          for (std::size_t k = 0; k < pd.size(); ++k) diff += pd[k] != sync_probe_d[e5][k];
          for (std::size_t k = 0; k < rd.size(); ++k) diff += rd[k] != sync_random_d[e5][k];
          s.mismatches += diff;
          detail << "  wgmma vs mma.sync on the same tiles: " << diff << " differing dots\n";
          note << "; " << (e5 ? "e5m2" : "e4m3") << " [wgmma vs mma.sync: " << diff << " differing dots]";
          if (diff && s.first.size() < 16)
            s.first.push_back(std::string(name) + ": differs from mma.sync in " + std::to_string(diff) + " dots");
        }
      }
    }
  } catch (const std::exception& ex) {  // report what ran; the CUDA context may be unusable now
    error = ex.what();
    detail << "\nERROR: " << error << "\n";
  }
  for (const auto& k : skipped) detail << "skipped " << k << "\n";
  if (!skipped.empty())
    note << (note.tellp() > 0 ? "; " : "") << skipped.size() << " instruction(s) skipped (" << skipped.front()
         << ", ...)";
  std::ofstream f(out_dir + "/tensor_cores.txt");
  if (!f) throw mf::IoError("cannot write " + out_dir + "/tensor_cores.txt");
  f << detail.str();
  s.note = (error.empty() ? "" : "ERROR " + error + "; ") + note.str() + " (details: tensor_cores.txt)";
  if (!error.empty()) s.status = "error";
  else if (caps == 0) s.status = "skipped";
  else s.status = s.mismatches ? "MISMATCH" : "ok";
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}
