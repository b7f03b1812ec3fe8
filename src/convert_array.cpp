// SPDX-License-Identifier: Apache-2.0
// convert_array.cpp: the one array door (convert_array.hpp). It validates once, switches once on
// (input type, code width, SR source), and cuts the array into contiguous ranges run by
// parallel_for. Per range, each element goes through the scalar `convert` (unpack → round_pack),
// compiled once per common format so the descriptor is a constant (format_dispatch.hpp), or, for
// the whitelists of encode_path/sr_path, through the Highway kernels of src/simd/, which look the
// engine's own results up in tables.
#include "minifloat/convert_array.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>

#include "format_dispatch.hpp"
#include "minifloat/convert_span.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/decimal.hpp"
#include "minifloat/registry.hpp"
#include "minifloat/stochastic.hpp"
#include "simd/convert_simd.hpp"
#include "simd/f64_simd.hpp"
#include "simd/sr_table.hpp"

namespace minifloat {
namespace {

using detail::dispatch_codes;
using detail::Dynamic;
using detail::Fixed;

/// Elements per range below which a thread costs more than it saves.
constexpr std::size_t kGrain = 4096;

// ---- sources ------------------------------------------------------------------------------

struct F32Source {
  using T = float;
  static constexpr Format format = formats::f32;
  static std::uint64_t bits(float v) noexcept { return detail::bit_cast<std::uint32_t>(v); }
};
struct F64Source {
  using T = double;
  static constexpr Format format = formats::f64;
  static std::uint64_t bits(double v) noexcept { return detail::bit_cast<std::uint64_t>(v); }
};
struct F16Source {
  using T = std::uint16_t;
  static constexpr Format format = formats::f16;
  static std::uint64_t bits(std::uint16_t v) noexcept { return v; }
};
struct Bf16Source {
  using T = std::uint16_t;
  static constexpr Format format = formats::bf16;
  static std::uint64_t bits(std::uint16_t v) noexcept { return v; }
};

// ---- the engine loop ------------------------------------------------------------------------

template <class Src, class Dst, class To>
MINIFLOAT_FLATTEN Flags encode_loop(const typename Src::T* in, Dst* out, std::size_t n, To to, const RoundingSpec& spec,
                                    const Profile& prof, const std::uint64_t* rbits) {
  unsigned flags = 0;
  if (rbits != nullptr) {
    for (std::size_t i = 0; i < n; ++i) {
      const RoundResult r = convert(Src::format, Src::bits(in[i]), to.format, spec, prof, rbits[i]);
      out[i] = static_cast<Dst>(r.code);
      flags |= r.flags;
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const RoundResult r = convert(Src::format, Src::bits(in[i]), to.format, spec, prof);
      out[i] = static_cast<Dst>(r.code);
      flags |= r.flags;
    }
  }
  return static_cast<Flags>(flags);
}

/// The engine loop over one range, with the format dispatched to its own loop where it has one.
template <class Src, class Dst>
Flags engine_range(const typename Src::T* in, Dst* out, std::size_t n, Format to, const RoundingSpec& spec,
                   const Profile& prof, const std::uint64_t* rbits) {
  return dispatch_codes<Dst>(to, [&](auto fmt) { return encode_loop<Src>(in, out, n, fmt, spec, prof, rbits); });
}

/// The SIMD kernel of source Src (f32, f16 or bf16 into std::uint8_t codes).
template <class Src>
unsigned encode_simd(const simd::EncodeTable& t, const typename Src::T* in, std::uint8_t* out, std::size_t n) {
  if constexpr (std::is_same_v<Src, F32Source>) {
    return simd::encode_f32(t, in, out, n);
  } else if constexpr (std::is_same_v<Src, F16Source>) {
    return simd::encode_f16(t, in, out, n);
  } else {
    return simd::encode_bf16(t, in, out, n);
  }
}

// ---- deterministic modes, or SR with the caller's random bits --------------------------------

template <class Src, class Dst>
Flags encode_array(const typename Src::T* in, Dst* out, std::size_t n, const ConvertRequest& req,
                   const std::uint64_t* rb) {
  const Format to = req.to;
  const RoundingSpec& spec = req.spec;
  const Profile& prof = req.profile;
  if constexpr (sizeof(Dst) == 1) {
    if (encode_path(to, spec, prof) == ArrayPath::simd) {
      const simd::EncodeTable* t = simd::encode_table(to, spec, prof);
      if constexpr (std::is_same_v<Src, F64Source>) {  // narrowed to f32 patterns (simd/f64-inl.h)
        const simd::F64Encode plan = simd::f64_encode_plan(to, spec, prof);
        return parallel_ranges<Flags>(n, req.threads, kGrain, [&](std::size_t lo, std::size_t hi) {
          return static_cast<Flags>(simd::encode_f64(*t, plan, in + lo, out + lo, hi - lo));
        });
      } else {
        return parallel_ranges<Flags>(n, req.threads, kGrain, [&](std::size_t lo, std::size_t hi) {
          return static_cast<Flags>(encode_simd<Src>(*t, in + lo, out + lo, hi - lo));
        });
      }
    }
  }
  return parallel_ranges<Flags>(n, req.threads, kGrain, [&](std::size_t lo, std::size_t hi) {
    return engine_range<Src>(in + lo, out + lo, hi - lo, to, spec, prof, rb ? rb + lo : nullptr);
  });
}

// ---- SR from the Philox stream ------------------------------------------------------------------

/// Convert in[0, n) with bits from element index s.index_base + 0…, chunk by chunk. With a table
/// (sr_path = ArrayPath::simd) the chunk's inputs are widened to binary32 bits and rounded by the
/// fused kernel (f64: simd::sr_encode_f64_bits); otherwise by the engine loop.
template <class Src, class Dst>
Flags sr_range(const typename Src::T* in, Dst* out, std::size_t n, const ConvertRequest& req, SrStream s,
               const simd::SrTable* table, const simd::SrTable64* table64) {
  constexpr std::size_t kChunk = 1024;
  const RoundingSpec& spec = req.spec;
  std::array<std::uint64_t, kChunk> rb;
  std::array<std::uint32_t, kChunk> x32;
  unsigned flags = 0;
  for (std::size_t start = 0; start < n; start += kChunk) {
    const std::size_t len = std::min(kChunk, n - start);
    SrStream c = s;
    c.index_base = s.index_base + start;
    if constexpr (sizeof(Dst) == 1 && !std::is_same_v<Src, F64Source>) {
      if (table != nullptr) {  // the fused kernel: random bits in registers, no rbits array
        const std::uint32_t* x = x32.data();
        if constexpr (std::is_same_v<Src, F32Source>) {
          x = reinterpret_cast<const std::uint32_t*>(in + start);  // as simd::encode_f32 reads f32 bits
        } else if constexpr (std::is_same_v<Src, Bf16Source>) {
          for (std::size_t i = 0; i < len; ++i) x32[i] = std::uint32_t{in[start + i]} << 16;
        } else {
          simd::widen_f16(in + start, x32.data(), len);
        }
        flags |= simd::sr_fused_f32_bits(*table, spec, x, len, c, out + start);
        continue;
      }
    }
    fill_sr_bits(c, spec, std::span<std::uint64_t>(rb.data(), len));
    if constexpr (sizeof(Dst) == 1 && std::is_same_v<Src, F64Source>) {
      if (table64 != nullptr) {
        std::array<std::uint64_t, kChunk> x64;
        std::memcpy(x64.data(), in + start, len * sizeof(double));
        flags |= simd::sr_encode_f64_bits(*table64, spec, x64.data(), rb.data(), out + start, len);
        continue;
      }
    }
    flags |= engine_range<Src>(in + start, out + start, len, req.to, spec, req.profile, rb.data());
  }
  return static_cast<Flags>(flags);
}

template <class Src, class Dst>
Flags sr_array(const typename Src::T* in, Dst* out, std::size_t n, const ConvertRequest& req) {
  const simd::SrTable* table = nullptr;
  const simd::SrTable64* table64 = nullptr;
  if constexpr (sizeof(Dst) == 1) {
    if (sr_path(req.to, req.spec, req.profile) == ArrayPath::simd) {
      if constexpr (std::is_same_v<Src, F64Source>) {
        table64 = simd::sr_table64(req.to, req.spec, req.profile);  // nullptr for prof.source_via_f32
      } else {
        table = simd::sr_table(req.to, req.spec, req.profile);
      }
    }
  }
  const SrStream& s = *req.sr;
  return parallel_ranges<Flags>(n, req.threads, kGrain, [&](std::size_t lo, std::size_t hi) {
    SrStream c = s;
    c.index_base = s.index_base + lo;
    return sr_range<Src>(in + lo, out + lo, hi - lo, req, c, table, table64);
  });
}

// ---- codes → codes ----------------------------------------------------------------------------

/// Decode → round once, element by element; a code with bits above from.bits throws naming its index.
/// SR bits: rbits[i], or the Philox stream's words for the element's index, chunk by chunk.
template <class Code, class Dst>
Flags codes_range(const Code* in, Dst* out, std::size_t n, std::size_t base, Format from, const ConvertRequest& req,
                  const std::uint64_t* rbits, const char* caller) {
  constexpr std::size_t kChunk = 1024;
  const std::uint64_t mask = code_mask(from);
  const bool stream = req.spec.rounding == Rounding::sr && req.sr.has_value();
  std::array<std::uint64_t, kChunk> rb{};
  unsigned flags = 0;
  for (std::size_t start = 0; start < n; start += kChunk) {
    const std::size_t len = std::min(kChunk, n - start);
    const std::uint64_t* r = rbits != nullptr ? rbits + start : nullptr;
    if (stream) {
      SrStream c = *req.sr;
      c.index_base = req.sr->index_base + base + start;
      fill_sr_bits(c, req.spec, std::span<std::uint64_t>(rb.data(), len));
      r = rb.data();
    }
    for (std::size_t i = start; i < start + len; ++i) {
      const std::uint64_t code = in[i];
      if ((code & ~mask) != 0)
        throw Error(std::string(caller) + ": code " + code_hex(code, 8 * static_cast<int>(sizeof(Code))) +
                    " at index " + std::to_string(base + i) + " is wider than the " + std::to_string(from.bits) +
                    " bits of " + format_name(from));
      const RoundResult res = convert(from, code, req.to, req.spec, req.profile, r ? r[i - start] : 0);
      out[i] = static_cast<Dst>(res.code);
      flags |= res.flags;
    }
  }
  return static_cast<Flags>(flags);
}

template <class Code, class Dst>
Flags codes_array(const Code* in, Dst* out, std::size_t n, Format from, const ConvertRequest& req,
                  const std::uint64_t* rb, const char* caller) {
  return parallel_ranges<Flags>(n, req.threads, kGrain, [&](std::size_t lo, std::size_t hi) {
    return codes_range(in + lo, out + lo, hi - lo, lo, from, req, rb ? rb + lo : nullptr, caller);
  });
}

// ---- the switch ---------------------------------------------------------------------------------

template <class Dst>
Flags run(const ArrayIn& in, Dst* out, const ConvertRequest& req, const char* caller) {
  const bool stream = req.spec.rounding == Rounding::sr && req.sr.has_value();
  const std::uint64_t* rb = req.spec.rounding == Rounding::sr && !stream ? req.rbits.data() : nullptr;
  auto floats = [&](auto src, const auto* x) {
    using Src = decltype(src);
    return stream ? sr_array<Src>(x, out, in.n, req) : encode_array<Src>(x, out, in.n, req, rb);
  };
  switch (in.type) {
    case ArrayType::f32: return floats(F32Source{}, static_cast<const float*>(in.data));
    case ArrayType::f64: return floats(F64Source{}, static_cast<const double*>(in.data));
    case ArrayType::f16: return floats(F16Source{}, static_cast<const std::uint16_t*>(in.data));
    case ArrayType::bf16: return floats(Bf16Source{}, static_cast<const std::uint16_t*>(in.data));
    case ArrayType::codes: break;
  }
  const Format from = in.code_format;
  switch (in.code_bytes) {
    case 1: return codes_array(static_cast<const std::uint8_t*>(in.data), out, in.n, from, req, rb, caller);
    case 2: return codes_array(static_cast<const std::uint16_t*>(in.data), out, in.n, from, req, rb, caller);
    case 4: return codes_array(static_cast<const std::uint32_t*>(in.data), out, in.n, from, req, rb, caller);
    default: return codes_array(static_cast<const std::uint64_t*>(in.data), out, in.n, from, req, rb, caller);
  }
}

// ---- validation (the boundary: one clear message each) -----------------------------------------

void check(const ArrayIn& in, const CodesOut& out, const ConvertRequest& req, const std::string& fn) {
  const Format to = req.to;
  const unsigned max_bits = out.bytes == 1 ? 8 : 16;
  if (validate(to) != FormatError::ok)
    throw Error(fn + ": invalid format descriptor " + format_name(to) +
                " (validate() rejects it; see format.hpp for the accepted field ranges)");
  if (out.bytes != 1 && out.bytes != 2)
    throw Error(fn + ": output code words of " + std::to_string(out.bytes) + " bytes; accepted: 1 or 2");
  if (to.bits > max_bits)
    throw Error(fn + ": format " + format_name(to) + " has " + std::to_string(to.bits) + " bits, but " +
                (out.bytes == 1 ? "std::uint8_t" : "std::uint16_t") + " codes hold formats of at most " +
                std::to_string(max_bits) + " bits (use the std::uint16_t overload for formats of 9..16 bits)");
  if (in.n != out.n)
    throw Error(fn + ": the input has " + std::to_string(in.n) + " elements but the output has " +
                std::to_string(out.n) + "; they must be equal");
  if (in.type == ArrayType::codes) {
    const Format from = in.code_format;
    if (in.code_bytes != 1 && in.code_bytes != 2 && in.code_bytes != 4 && in.code_bytes != 8)
      throw Error(fn + ": input code words of " + std::to_string(in.code_bytes) + " bytes; accepted: 1, 2, 4 or 8");
    if (validate(from) != FormatError::ok)
      throw Error(fn + ": invalid source format descriptor " + format_name(from) +
                  " (validate() rejects it; see format.hpp for the accepted field ranges)");
    if (from.bits > 8u * in.code_bytes)
      throw Error(fn + ": codes of " + format_name(from) + " are " + std::to_string(from.bits) +
                  " bits wide; the input's code words have " + std::to_string(8 * in.code_bytes));
  }
  const RoundingSpec& spec = req.spec;
  const std::size_t nr = req.rbits.size();
  if (req.sr && spec.rounding != Rounding::sr)
    throw Error(fn + ": spec.rounding is " + std::string(rounding_name(spec.rounding)) +
                "; accepted: sr (an SR stream is given; the deterministic modes take none)");
  if (spec.rounding == Rounding::sr) {
    if (req.sr && nr != 0) throw Error(fn + ": both an SR stream and rbits are given; accepted: one of them");
    if (!req.sr && nr != in.n)
      throw Error(fn + ": stochastic rounding (sr) needs one 64-bit word of random bits per element: got " +
                  std::to_string(nr) + " for " + std::to_string(in.n) + " elements");
    if (const std::string p = sr_bits_problem(spec.sr_bits); !p.empty()) throw Error(fn + ": sr_bits " + p);
  } else if (nr != 0 && nr != in.n) {
    throw Error(fn + ": rbits has " + std::to_string(nr) + " elements; accepted: 0 or " + std::to_string(in.n) +
                " (it is read only with Rounding::sr)");
  }
}

}  // namespace

std::string sr_bits_problem(long long n) {
  if (n >= kMinSrBits && n <= kMaxSrBits) return {};
  return std::to_string(n) + " is out of range; accepted: " + std::to_string(kMinSrBits) + ".." +
         std::to_string(kMaxSrBits);
}

Flags convert_array(const ArrayIn& in, CodesOut out, const ConvertRequest& req, const char* caller) {
  check(in, out, req, caller);
  if (out.bytes == 1) return run(in, static_cast<std::uint8_t*>(out.data), req, caller);
  return run(in, static_cast<std::uint16_t*>(out.data), req, caller);
}

}  // namespace minifloat
