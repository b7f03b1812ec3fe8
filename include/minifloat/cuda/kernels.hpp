// SPDX-License-Identifier: Apache-2.0
// cuda/kernels.hpp: the bodies of minifloat's CUDA kernels, as host-device functors of one index
// (element, pair or chunk), so that the same code runs on the GPU (src/cuda/kernels.cu, a grid-stride
// __global__ wrapper) and on CPU threads over the same grid (cuda/launch_cpu.hpp). Header-only, built
// on the device-safe core only (no exceptions, no allocation). Validation of the arguments (which
// format, mode and policy each path accepts) is the host API's (cuda/api.hpp); a body assumes it.
//
// Storage: a code of a format of at most 8 bits takes one byte, at most 16 bits two, f32 four and f64
// eight (right-aligned, little-endian host order). One element per storage word (no FP4 nibble
// packing here: pack.hpp packs the codes afterwards).
#pragma once
#include <cstdint>

#include "../core/convert.hpp"
#include "../core/digest.hpp"
#include "../core/format.hpp"
#include "../core/profile.hpp"
#include "../core/random.hpp"
#include "../core/rounding.hpp"
#include "ptx.hpp"

namespace minifloat::cuda {

/// The counter of the stochastic-rounding stream of one array (the fields of stochastic.hpp's
/// SrStream; kept here so this header stays on the core): element i reads
/// sr_bits(seed, stream, step, index_base + i, spec) (core/random.hpp).
struct SrCounter {
  std::uint64_t seed = 0;
  std::uint32_t stream = 0;
  std::uint32_t step = 0;
  std::uint64_t index_base = 0;
};

/// Bytes of storage per code of `f` (1, 2, 4 or 8).
MINIFLOAT_HOST_DEVICE constexpr unsigned storage_bytes(Format f) noexcept {
  return f.bits <= 8 ? 1u : f.bits <= 16 ? 2u : f.bits <= 32 ? 4u : 8u;
}

namespace detail {
MINIFLOAT_HOST_DEVICE inline std::uint64_t load_code(const void* p, unsigned bytes, std::uint64_t i) noexcept {
  switch (bytes) {
    case 1: return static_cast<const std::uint8_t*>(p)[i];
    case 2: return static_cast<const std::uint16_t*>(p)[i];
    case 4: return static_cast<const std::uint32_t*>(p)[i];
    default: return static_cast<const std::uint64_t*>(p)[i];
  }
}
MINIFLOAT_HOST_DEVICE inline void store_code(void* p, unsigned bytes, std::uint64_t i, std::uint64_t code) noexcept {
  switch (bytes) {
    case 1: static_cast<std::uint8_t*>(p)[i] = static_cast<std::uint8_t>(code); break;
    case 2: static_cast<std::uint16_t*>(p)[i] = static_cast<std::uint16_t>(code); break;
    case 4: static_cast<std::uint32_t*>(p)[i] = static_cast<std::uint32_t>(code); break;
    default: static_cast<std::uint64_t*>(p)[i] = code; break;
  }
}
}  // namespace detail

/// Engine path, one element per index: out[i] = convert(from, in[i], to, spec, prof, rbits_i).code,
/// rbits_i = sr_bits(sr.seed, sr.stream, sr.step, sr.index_base + i, spec) when
/// spec.rounding is Rounding::sr (else 0) — exactly stochastic.hpp's rule, so the codes equal
/// sr_convert_* for the same stream. Decoding (codes → f32/f16/bf16) is the same body with
/// `to` = f32/f16/bf16. `flags` (nullable) receives each element's Flags.
struct ConvertBody {
  const void* in = nullptr;
  Format from = formats::f32;
  void* out = nullptr;
  Format to = formats::e4m3fn;
  RoundingSpec spec{};
  Profile prof = profiles::ocp;
  SrCounter sr{};
  std::uint8_t* flags = nullptr;

  MINIFLOAT_HOST_DEVICE void operator()(std::uint64_t i) const noexcept {
    const std::uint64_t code = detail::load_code(in, storage_bytes(from), i);
    const std::uint64_t rbits =
        spec.rounding == Rounding::sr ? sr_bits(sr.seed, sr.stream, sr.step, sr.index_base + i, spec) : 0;
    const RoundResult r = convert(from, code, to, spec, prof, rbits);
    detail::store_code(out, storage_bytes(to), i, r.code);
    if (flags) flags[i] = static_cast<std::uint8_t>(r.flags);
  }
};

/// Hardware path, one PAIR of elements per index p (elements 2p and 2p + 1; an odd last element is
/// paired with 0 and only its own code is stored): the PTX cvt `op` (cuda/ptx.hpp) on the device,
/// its model (ptx.hpp `model_cvt`: the engine under profiles::nvidia) on the host. `status`
/// (device memory, nullable) is set to 1 when the running binary was built for an architecture
/// without the instruction (the host API refuses that case before launching: cuda/api.hpp).
struct HardwareBody {
  const void* in = nullptr;     ///< f32 (4 bytes) or f16/bf16 (2 bytes) elements, per `op`'s source
  std::uint8_t* out = nullptr;  ///< one code per byte
  std::uint64_t n = 0;          ///< elements
  HwCvt op = HwCvt::e4m3x2_f32_rn_satfinite;
  Relu relu = Relu::off;
  unsigned* status = nullptr;

  MINIFLOAT_HOST_DEVICE void operator()(std::uint64_t p) const noexcept {
    const std::uint64_t i = 2 * p;
    const unsigned bytes = hw_source(op).bits == 32 ? 4u : 2u;
    const std::uint32_t a = static_cast<std::uint32_t>(detail::load_code(in, bytes, i));
    const std::uint32_t b = i + 1 < n ? static_cast<std::uint32_t>(detail::load_code(in, bytes, i + 1)) : 0u;
    std::uint8_t ca = 0, cb = 0;
    // cvt's first source goes to the high half: cvt(a, b) → (code(a) << 8) | code(b) (cuda-notes A1.2).
    if (!cvt_pair(op, relu, a, b, ca, cb)) {
      if (status) *status = 1;
      return;
    }
    out[i] = ca;
    if (i + 1 < n) out[i + 1] = cb;
  }
};

/// The long sweep on the device, one 2^16-input chunk per index k: chunk_digests[k] = FNV-1a 64 over
/// the low code byte of convert(f32, sweep_input(k · 2^16 + j), to, spec, prof) for j in input order
/// (core/digest.hpp; the same bytes as tests/sweep/sweep_main.cpp's engine digest).
struct SweepChunkBody {
  Format to = formats::e4m3fn;
  RoundingSpec spec{};
  Profile prof = profiles::ocp;
  SweepSampling sampling = SweepSampling::strided;
  std::uint64_t stride = 1;
  std::uint64_t* chunk_digests = nullptr;

  MINIFLOAT_HOST_DEVICE void operator()(std::uint64_t k) const noexcept {
    const std::uint64_t count = sweep_input_count(sampling, stride);
    const std::uint64_t begin = k * kSweepChunk;
    const std::uint64_t end = begin + kSweepChunk < count ? begin + kSweepChunk : count;
    std::uint64_t h = kFnv1a64Offset;
    for (std::uint64_t i = begin; i < end; ++i) {
      const RoundResult r = convert(formats::f32, sweep_input(sampling, stride, i), to, spec, prof);
      h = fnv1a64_byte(h, static_cast<std::uint8_t>(r.code & 0xff));
    }
    chunk_digests[k] = h;
  }
};

/// Number of chunks of a sweep (the index range of SweepChunkBody).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t sweep_chunks(SweepSampling sampling, std::uint64_t stride) noexcept {
  return (sweep_input_count(sampling, stride) + kSweepChunk - 1) / kSweepChunk;
}
/// The combination digest from the chunk digests (core/digest.hpp).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t combine_chunk_digests(const std::uint64_t* chunk,
                                                                    std::uint64_t count) noexcept {
  std::uint64_t h = kFnv1a64Offset;
  for (std::uint64_t k = 0; k < count; ++k) h = fnv1a64_u64le(h, chunk[k]);
  return h;
}

/// The launch grid both launchers use: `threads` per block, `blocks` blocks, and a grid-stride
/// loop: index i runs on block (i / threads) mod blocks, thread i mod threads.
struct Grid {
  std::uint32_t blocks = 1;
  std::uint32_t threads = 256;
};
/// The grid for `n` indices: 256 threads per block, at most 65535 · 4 blocks.
MINIFLOAT_HOST_DEVICE constexpr Grid grid_for(std::uint64_t n) noexcept {
  const std::uint64_t b = (n + 255) / 256;
  const std::uint64_t cap = 65535ull * 4;
  return Grid{static_cast<std::uint32_t>(b == 0 ? 1 : (b > cap ? cap : b)), 256};
}

/// One grid thread's share: every index i ≡ block · threads + thread (mod blocks · threads).
template <class Body>
MINIFLOAT_HOST_DEVICE inline void run_grid_thread(const Body& body, std::uint64_t n, Grid g, std::uint32_t block,
                                                  std::uint32_t thread) noexcept {
  const std::uint64_t stride = std::uint64_t{g.blocks} * g.threads;
  for (std::uint64_t i = std::uint64_t{block} * g.threads + thread; i < n; i += stride) body(i);
}

}  // namespace minifloat::cuda
