// SPDX-License-Identifier: Apache-2.0
// convert_span.cpp: whole-array conversions; each element goes through the scalar `convert`
// (unpack → round_pack), compiled once per common format so the descriptor is a constant, or,
// for the whitelist of encode_path/decode_path, through the Highway kernels of src/simd/, which
// look the engine's own results up in tables. Threads: contiguous ranges, one std::thread each.
#include "minifloat/convert_span.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <exception>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "minifloat/core/convert.hpp"
#include "minifloat/registry.hpp"
#include "simd/convert_simd.hpp"
#include "simd/f64_simd.hpp"

// Inline the whole engine into each loop so the compile-time descriptor is constant-folded
// (GCC and Clang otherwise keep round_pack out of line and pass the Format at run time).
#if defined(__GNUC__) || defined(__clang__)
#define MINIFLOAT_FLATTEN [[gnu::flatten]]
#else
#define MINIFLOAT_FLATTEN
#endif

namespace minifloat {
namespace {

// ---- format as a compile-time constant or a run-time value --------------------------------

template <Format F>
struct Fixed {
  static constexpr Format format = F;
};
struct Dynamic {
  Format format;
};

/// The formats that get a loop of their own; every other format runs the Dynamic loop.
template <Format... Fs>
struct FormatList {};
/// Fast8: the rows of kNamedFormats (core/named_formats.hpp) flagged kArrayPath, in table order.
template <std::size_t... I>
FormatList<nth_named_format(kArrayPath, static_cast<int>(I))...> array_path_formats(std::index_sequence<I...>);
using Fast8 = decltype(array_path_formats(std::make_index_sequence<count_named_formats(kArrayPath)>{}));
using Fast16 = FormatList<formats::f16, formats::bf16>;

/// Call fn(Fixed<F>{}) for the F in the list equal to `f`, else fn(Dynamic{f}).
template <Format... Fs, class Fn>
Flags dispatch(FormatList<Fs...>, Format f, Fn&& fn) {
  Flags r = flag_none;
  const bool found = ((f == Fs ? (r = fn(Fixed<Fs>{}), true) : false) || ...);
  if (!found) r = fn(Dynamic{f});
  return r;
}

// ---- sources ------------------------------------------------------------------------------

struct F32Source {
  using T = float;
  static constexpr Format format = formats::f32;
  static constexpr const char* name = "f32";
  static std::uint64_t bits(float v) noexcept { return detail::bit_cast<std::uint32_t>(v); }
};
struct F64Source {
  using T = double;
  static constexpr Format format = formats::f64;
  static constexpr const char* name = "f64";
  static std::uint64_t bits(double v) noexcept { return detail::bit_cast<std::uint64_t>(v); }
};
struct F16Source {
  using T = std::uint16_t;
  static constexpr Format format = formats::f16;
  static constexpr const char* name = "f16_bits";
  static std::uint64_t bits(std::uint16_t v) noexcept { return v; }
};
struct Bf16Source {
  using T = std::uint16_t;
  static constexpr Format format = formats::bf16;
  static constexpr const char* name = "bf16_bits";
  static std::uint64_t bits(std::uint16_t v) noexcept { return v; }
};

// ---- argument checks (the boundary: clear messages) -----------------------------------------

std::string describe(Format f) {
  try {
    return format_name(f);
  } catch (const Error&) {
    return "the given format";
  }
}

void check_format(const std::string& fn, Format f, unsigned max_bits, const char* storage) {
  if (validate(f) != FormatError::ok)
    throw Error(fn + ": invalid format descriptor " + describe(f) +
                " (validate() rejects it; see format.hpp for the accepted field ranges)");
  if (f.bits > max_bits)
    throw Error(fn + ": format " + describe(f) + " has " + std::to_string(f.bits) + " bits, but " + storage +
                " codes hold formats of at most " + std::to_string(max_bits) +
                " bits (use the std::uint16_t overload for formats of 9..16 bits)");
}

void check_sizes(const std::string& fn, std::size_t in, std::size_t out) {
  if (in != out)
    throw Error(fn + ": the input has " + std::to_string(in) + " elements but the output has " + std::to_string(out) +
                "; they must be equal");
}

void check_rbits(const std::string& fn, std::size_t n, const RoundingSpec& spec, std::size_t nr) {
  if (spec.rounding == Rounding::sr) {
    if (nr != n)
      throw Error(fn + ": stochastic rounding (sr) needs one 64-bit word of random bits per element: got " +
                  std::to_string(nr) + " for " + std::to_string(n) + " elements");
    if (spec.sr_bits < 1 || spec.sr_bits > 32)
      throw Error(fn + ": sr_bits is " + std::to_string(spec.sr_bits) + "; accepted: 1..32");
  } else if (nr != 0 && nr != n) {
    throw Error(fn + ": rbits has " + std::to_string(nr) + " elements; accepted: 0 or " + std::to_string(n) +
                " (it is read only with Rounding::sr)");
  }
}

void check_threads(const std::string& fn, unsigned threads) {
  if (threads == 0) throw Error(fn + ": threads is 0; accepted: 1 or more");
}

/// Run fn(lo, hi) → Flags over `threads` contiguous ranges of [0, n), one std::thread each (the
/// calling thread when 1); OR of the flags. An exception of the lowest range that threw is rethrown,
/// so an error names the first bad element whatever the thread count.
template <class Fn>
Flags parallel_ranges(std::size_t n, unsigned threads, Fn&& fn) {
  const std::size_t t = std::min<std::size_t>(threads, std::max<std::size_t>(n / 4096, 1));
  if (t <= 1) return fn(std::size_t{0}, n);
  std::vector<Flags> flags(t, flag_none);
  std::vector<std::exception_ptr> errors(t);
  std::vector<std::thread> pool;
  pool.reserve(t);
  for (std::size_t k = 0; k < t; ++k) {
    pool.emplace_back([&, k] {
      try {
        flags[k] = fn(n * k / t, n * (k + 1) / t);
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

// ---- the loops ----------------------------------------------------------------------------

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

template <class Src, class Dst>
Flags encode(std::span<const typename Src::T> in, std::span<Dst> out, Format to, const RoundingSpec& spec,
             const Profile& prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  constexpr bool narrow = sizeof(Dst) == 1;
  const std::string fn = std::string("convert_") + Src::name;
  check_format(fn, to, narrow ? 8 : 16, narrow ? "std::uint8_t" : "std::uint16_t");
  check_sizes(fn, in.size(), out.size());
  check_rbits(fn, in.size(), spec, rbits.size());
  check_threads(fn, threads);
  if constexpr (narrow && std::is_same_v<Src, F64Source>) {  // f64: narrowed to f32 patterns (simd/f64-inl.h)
    if (encode_path(to, spec, prof) == ArrayPath::simd) {
      const simd::EncodeTable* t = simd::encode_table(to, spec, prof);
      const simd::F64Encode plan = simd::f64_encode_plan(to, spec, prof);
      return parallel_ranges(in.size(), threads, [&](std::size_t lo, std::size_t hi) {
        return static_cast<Flags>(simd::encode_f64(*t, plan, in.data() + lo, out.data() + lo, hi - lo));
      });
    }
  }
  if constexpr (narrow && !std::is_same_v<Src, F64Source>) {
    if (encode_path(to, spec, prof) == ArrayPath::simd) {
      const simd::EncodeTable* t = simd::encode_table(to, spec, prof);
      return parallel_ranges(in.size(), threads, [&](std::size_t lo, std::size_t hi) {
        return static_cast<Flags>(encode_simd<Src>(*t, in.data() + lo, out.data() + lo, hi - lo));
      });
    }
  }
  const std::uint64_t* rb = spec.rounding == Rounding::sr ? rbits.data() : nullptr;
  return parallel_ranges(in.size(), threads, [&](std::size_t lo, std::size_t hi) {
    auto run = [&](auto fmt) {
      return encode_loop<Src>(in.data() + lo, out.data() + lo, hi - lo, fmt, spec, prof, rb ? rb + lo : nullptr);
    };
    if constexpr (narrow) {
      return dispatch(Fast8{}, to, run);
    } else {
      return dispatch(Fast16{}, to, run);
    }
  });
}

template <class Code, class Out, class From>
MINIFLOAT_FLATTEN Flags decode_loop(const Code* codes, Out* out, std::size_t n, From from, const Profile& prof,
                  const std::string& fn, std::size_t base) {
  constexpr Format target = sizeof(Out) == 4 ? formats::f32 : formats::f64;
  using Bits = std::conditional_t<sizeof(Out) == 4, std::uint32_t, std::uint64_t>;
  const std::uint64_t mask = code_mask(from.format);
  unsigned flags = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if ((codes[i] & ~mask) != 0)
      throw Error(fn + ": code " + std::to_string(codes[i]) + " at index " + std::to_string(base + i) +
                  " is wider than the " + std::to_string(from.format.bits) + " bits of " + describe(from.format));
    const RoundResult r = convert(from.format, codes[i], target, RoundingSpec{}, prof);
    out[i] = detail::bit_cast<Out>(static_cast<Bits>(r.code));
    flags |= r.flags;
  }
  return static_cast<Flags>(flags);
}

template <class Code, class Out>
Flags decode(std::span<const Code> codes, std::span<Out> out, Format from, const Profile& prof, unsigned threads) {
  constexpr bool narrow = sizeof(Code) == 1;
  const std::string fn = sizeof(Out) == 4 ? "decode_to_f32" : "decode_to_f64";
  check_format(fn, from, narrow ? 8 : 16, narrow ? "std::uint8_t" : "std::uint16_t");
  check_sizes(fn, codes.size(), out.size());
  check_threads(fn, threads);
  const simd::DecodeTable* t = nullptr;
  if constexpr (narrow && sizeof(Out) == 4) {
    if (decode_path(from, prof) == ArrayPath::simd) t = simd::decode_table(from, prof);
  }
  return parallel_ranges(codes.size(), threads, [&](std::size_t lo, std::size_t hi) {
    auto run = [&](auto fmt) {
      return decode_loop(codes.data() + lo, out.data() + lo, hi - lo, fmt, prof, fn, lo);
    };
    if constexpr (narrow && sizeof(Out) == 4) {
      // No code of a simd::DecodeTable raises a flag. A code wider than the format: the engine loop
      // rescans the range and names its index.
      if (t != nullptr && simd::decode_u8(*t, codes.data() + lo, out.data() + lo, hi - lo)) return flag_none;
    }
    if constexpr (narrow) {
      return dispatch(Fast8{}, from, run);
    } else {
      return dispatch(Fast16{}, from, run);
    }
  });
}

}  // namespace

unsigned default_threads() noexcept {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1u : n;
}

ArrayPath encode_path(Format to, RoundingSpec spec, Profile prof) {
  if (spec.rounding == Rounding::sr) return ArrayPath::engine;
  return simd::encode_table(to, spec, prof) != nullptr ? ArrayPath::simd : ArrayPath::engine;
}
ArrayPath decode_path(Format from, Profile prof) {
  return simd::decode_table(from, prof) != nullptr ? ArrayPath::simd : ArrayPath::engine;
}

Flags convert_f32(std::span<const float> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec, Profile prof,
                  std::span<const std::uint64_t> rbits, unsigned threads) {
  return encode<F32Source>(in, out, to, spec, prof, rbits, threads);
}
Flags convert_f32(std::span<const float> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                  Profile prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  return encode<F32Source>(in, out, to, spec, prof, rbits, threads);
}
Flags convert_f64(std::span<const double> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                  Profile prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  return encode<F64Source>(in, out, to, spec, prof, rbits, threads);
}
Flags convert_f64(std::span<const double> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                  Profile prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  return encode<F64Source>(in, out, to, spec, prof, rbits, threads);
}
Flags convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                       Profile prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  return encode<F16Source>(in, out, to, spec, prof, rbits, threads);
}
Flags convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to,
                       RoundingSpec spec, Profile prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  return encode<F16Source>(in, out, to, spec, prof, rbits, threads);
}
Flags convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to,
                        RoundingSpec spec, Profile prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  return encode<Bf16Source>(in, out, to, spec, prof, rbits, threads);
}
Flags convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to,
                        RoundingSpec spec, Profile prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  return encode<Bf16Source>(in, out, to, spec, prof, rbits, threads);
}

Flags decode_to_f32(std::span<const std::uint8_t> codes, std::span<float> out, Format from, Profile prof, unsigned threads) {
  return decode(codes, out, from, prof, threads);
}
Flags decode_to_f32(std::span<const std::uint16_t> codes, std::span<float> out, Format from, Profile prof, unsigned threads) {
  return decode(codes, out, from, prof, threads);
}
Flags decode_to_f64(std::span<const std::uint8_t> codes, std::span<double> out, Format from, Profile prof, unsigned threads) {
  return decode(codes, out, from, prof, threads);
}
Flags decode_to_f64(std::span<const std::uint16_t> codes, std::span<double> out, Format from, Profile prof, unsigned threads) {
  return decode(codes, out, from, prof, threads);
}

}  // namespace minifloat
