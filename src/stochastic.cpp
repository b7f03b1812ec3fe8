// SPDX-License-Identifier: Apache-2.0
// stochastic.cpp: whole-array stochastic rounding: Philox bits per element (random.hpp layout),
// then the span conversions of convert_span.cpp, chunk by chunk, optionally over std::threads.
#include "minifloat/stochastic.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "minifloat/convert_span.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/registry.hpp"
#include "simd/convert_simd.hpp"
#include "simd/sr_table.hpp"

namespace minifloat {

void fill_sr_bits(const SrStream& s, SrVariant variant, std::span<std::uint64_t> out) noexcept {
  // The same words as random.hpp's sr_bits: Philox blocks are computed in vectors (simd::philox_blocks,
  // run-time dispatched Highway kernel), up to kBlocks at a time and never across a wrap of counter
  // word c0, then element i takes its one or two words of block (index_base + i)·words / 4.
  const std::uint64_t words = sr_words(variant);
  const auto k0 = static_cast<std::uint32_t>(s.seed);
  const auto k1 = static_cast<std::uint32_t>(s.seed >> 32);
  constexpr std::uint64_t kBlocks = 256;
  std::array<std::uint32_t, 4 * kBlocks> w;
  const std::size_t n = out.size();
  for (std::size_t i = 0; i < n;) {
    const std::uint64_t block = ((s.index_base + i) * words) >> 2;
    const std::uint64_t last_block = ((s.index_base + n - 1) * words) >> 2;
    const std::uint64_t to_wrap = (std::uint64_t{1} << 32) - (block & 0xFFFFFFFFu);
    const std::uint64_t nb = std::min({kBlocks, last_block - block + 1, to_wrap});
    simd::philox_blocks(static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32), s.stream, s.step,
                        k0, k1, static_cast<std::size_t>(nb), w.data());
    const std::uint64_t end = (block + nb) * 4;
    if (words == 2) {  // little-endian pairs (low word first) are the 64-bit words themselves
      const std::uint64_t off = (s.index_base + i) * 2;
      const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>((end - off) / 2, n - i));
      const std::size_t rel = static_cast<std::size_t>(off - block * 4);
      if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out.data() + i, w.data() + rel, m * 8);
      } else {
        for (std::size_t k = 0; k < m; ++k)
          out[i + k] = std::uint64_t{w[rel + 2 * k]} | (std::uint64_t{w[rel + 2 * k + 1]} << 32);
      }
      i += m;
      continue;
    }
    for (; i < n; ++i) {
      const std::uint64_t off = (s.index_base + i) * words;
      if (off >= end) break;
      const std::size_t rel = static_cast<std::size_t>(off - block * 4);
      out[i] = words == 2 ? (std::uint64_t{w[rel]} | (std::uint64_t{w[rel + 1]} << 32)) : std::uint64_t{w[rel]};
    }
  }
}

namespace {

std::string describe(Format f) {
  try {
    return format_name(f);
  } catch (const Error&) {
    return "the given format";
  }
}

void check_args(const std::string& fn, std::size_t n_in, std::size_t n_out, Format to, unsigned max_bits,
                const RoundingSpec& spec, unsigned threads) {
  if (spec.rounding != Rounding::sr)
    throw Error(fn + ": spec.rounding is " + std::string(rounding_name(spec.rounding)) +
                "; accepted: sr (use convert_f32/convert_f64 from convert_span.hpp for the deterministic modes)");
  if (spec.sr_bits < 1 || spec.sr_bits > 32)
    throw Error(fn + ": sr_bits is " + std::to_string(spec.sr_bits) + "; accepted: 1..32");
  if (threads == 0) throw Error(fn + ": threads is 0; accepted: 1 or more");
  if (n_in != n_out)
    throw Error(fn + ": the input has " + std::to_string(n_in) + " elements but the output has " +
                std::to_string(n_out) + "; they must be equal");
  if (validate(to) != FormatError::ok)
    throw Error(fn + ": invalid format descriptor " + describe(to) + " (validate() rejects it)");
  if (to.bits > max_bits)
    throw Error(fn + ": format " + describe(to) + " has " + std::to_string(to.bits) + " bits, but this overload's " +
                "codes hold at most " + std::to_string(max_bits) + " (use the std::uint16_t overload for 9..16 bits)");
}

enum class Source : std::uint8_t { f32, f64, f16, bf16 };

/// Convert in[0, n) with bits from element index s.index_base + 0…, chunk by chunk. With a table
/// (sr_path = ArrayPath::simd) the chunk's inputs are widened to binary32 bits and rounded by
/// simd::sr_encode_f32_bits; otherwise by the engine loop of convert_span.cpp.
template <Source Src, class T, class Code, class Conv>
Flags run_range(const T* in, Code* out, std::size_t n, Format to, const RoundingSpec& spec, SrStream s,
                const Profile& prof, const simd::SrTable* table, const simd::SrTable64* table64, Conv conv) {
  constexpr std::size_t kChunk = 1024;
  std::array<std::uint64_t, kChunk> rb;
  std::array<std::uint32_t, kChunk> x32;
  unsigned flags = 0;
  for (std::size_t start = 0; start < n; start += kChunk) {
    const std::size_t len = std::min(kChunk, n - start);
    SrStream c = s;
    c.index_base = s.index_base + start;
    if constexpr (sizeof(Code) == 1 && Src != Source::f64) {
      if (table != nullptr) {  // the fused kernel: random bits in registers, no rbits array
        const std::uint32_t* x = x32.data();
        if constexpr (Src == Source::f32) {
          x = reinterpret_cast<const std::uint32_t*>(in + start);  // as simd::encode_f32 reads f32 bits
        } else if constexpr (Src == Source::bf16) {
          for (std::size_t i = 0; i < len; ++i) x32[i] = std::uint32_t{in[start + i]} << 16;
        } else {
          simd::widen_f16(in + start, x32.data(), len);
        }
        flags |= simd::sr_fused_f32_bits(*table, spec, x, len, c, out + start);
        continue;
      }
    }
    fill_sr_bits(c, spec.sr_variant, std::span<std::uint64_t>(rb.data(), len));
    if constexpr (sizeof(Code) == 1 && Src == Source::f64) {
      if (table64 != nullptr) {
        std::array<std::uint64_t, kChunk> x64;
        std::memcpy(x64.data(), in + start, len * sizeof(double));
        flags |= simd::sr_encode_f64_bits(*table64, spec, x64.data(), rb.data(), out + start, len);
        continue;
      }
    }
    flags |= conv(std::span<const T>(in + start, len), std::span<Code>(out + start, len), to, spec, prof,
                  std::span<const std::uint64_t>(rb.data(), len));
  }
  return static_cast<Flags>(flags);
}

template <Source Src, class T, class Code, class Conv>
Flags sr_array(const char* name, std::span<const T> in, std::span<Code> out, Format to, const RoundingSpec& spec,
               const SrStream& s, const Profile& prof, unsigned threads, Conv conv) {
  check_args(name, in.size(), out.size(), to, sizeof(Code) == 1 ? 8u : 16u, spec, threads);
  const std::size_t n = in.size();
  const simd::SrTable* table = nullptr;
  const simd::SrTable64* table64 = nullptr;
  if constexpr (sizeof(Code) == 1) {
    if (sr_path(to, spec, prof) == ArrayPath::simd) {
      if constexpr (Src == Source::f64) {
        table64 = simd::sr_table64(to, spec, prof);  // nullptr for prof.source_via_f32
      } else {
        table = simd::sr_table(to, spec, prof);
      }
    }
  }
  const std::size_t t = std::min<std::size_t>(threads, std::max<std::size_t>(n / 4096, 1));
  if (t <= 1) return run_range<Src>(in.data(), out.data(), n, to, spec, s, prof, table, table64, conv);

  std::vector<Flags> flags(t, flag_none);
  std::vector<std::exception_ptr> errors(t);
  std::vector<std::thread> pool;
  pool.reserve(t);
  for (std::size_t k = 0; k < t; ++k) {
    const std::size_t lo = n * k / t, hi = n * (k + 1) / t;
    pool.emplace_back([&, k, lo, hi] {
      try {
        SrStream c = s;
        c.index_base = s.index_base + lo;
        flags[k] = run_range<Src>(in.data() + lo, out.data() + lo, hi - lo, to, spec, c, prof, table, table64, conv);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  unsigned all = 0;
  for (Flags f : flags) all |= f;
  return static_cast<Flags>(all);
}

// Overload sets of convert_span.hpp as callables.
struct ConvF32 {
  template <class Code>
  Flags operator()(std::span<const float> i, std::span<Code> o, Format to, const RoundingSpec& sp, const Profile& p,
                   std::span<const std::uint64_t> r) const {
    return convert_f32(i, o, to, sp, p, r);
  }
};
struct ConvF64 {
  template <class Code>
  Flags operator()(std::span<const double> i, std::span<Code> o, Format to, const RoundingSpec& sp, const Profile& p,
                   std::span<const std::uint64_t> r) const {
    return convert_f64(i, o, to, sp, p, r);
  }
};
struct ConvF16 {
  template <class Code>
  Flags operator()(std::span<const std::uint16_t> i, std::span<Code> o, Format to, const RoundingSpec& sp,
                   const Profile& p, std::span<const std::uint64_t> r) const {
    return convert_f16_bits(i, o, to, sp, p, r);
  }
};
struct ConvBf16 {
  template <class Code>
  Flags operator()(std::span<const std::uint16_t> i, std::span<Code> o, Format to, const RoundingSpec& sp,
                   const Profile& p, std::span<const std::uint64_t> r) const {
    return convert_bf16_bits(i, o, to, sp, p, r);
  }
};

}  // namespace

ArrayPath sr_path(Format to, RoundingSpec spec, Profile prof) {
  if (spec.rounding != Rounding::sr) return ArrayPath::engine;
  return simd::sr_table(to, spec, prof) != nullptr ? ArrayPath::simd : ArrayPath::engine;
}

Flags sr_convert_f32(std::span<const float> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof, unsigned threads) {
  return sr_array<Source::f32>("sr_convert_f32", in, out, to, spec, s, prof, threads, ConvF32{});
}
Flags sr_convert_f32(std::span<const float> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof, unsigned threads) {
  return sr_array<Source::f32>("sr_convert_f32", in, out, to, spec, s, prof, threads, ConvF32{});
}
Flags sr_convert_f64(std::span<const double> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof, unsigned threads) {
  return sr_array<Source::f64>("sr_convert_f64", in, out, to, spec, s, prof, threads, ConvF64{});
}
Flags sr_convert_f64(std::span<const double> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                     const SrStream& s, Profile prof, unsigned threads) {
  return sr_array<Source::f64>("sr_convert_f64", in, out, to, spec, s, prof, threads, ConvF64{});
}
Flags sr_convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to,
                          RoundingSpec spec, const SrStream& s, Profile prof, unsigned threads) {
  return sr_array<Source::f16>("sr_convert_f16_bits", in, out, to, spec, s, prof, threads, ConvF16{});
}
Flags sr_convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to,
                          RoundingSpec spec, const SrStream& s, Profile prof, unsigned threads) {
  return sr_array<Source::f16>("sr_convert_f16_bits", in, out, to, spec, s, prof, threads, ConvF16{});
}
Flags sr_convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to,
                           RoundingSpec spec, const SrStream& s, Profile prof, unsigned threads) {
  return sr_array<Source::bf16>("sr_convert_bf16_bits", in, out, to, spec, s, prof, threads, ConvBf16{});
}
Flags sr_convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to,
                           RoundingSpec spec, const SrStream& s, Profile prof, unsigned threads) {
  return sr_array<Source::bf16>("sr_convert_bf16_bits", in, out, to, spec, s, prof, threads, ConvBf16{});
}

}  // namespace minifloat
