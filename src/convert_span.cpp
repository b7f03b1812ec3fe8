// SPDX-License-Identifier: Apache-2.0
// convert_span.cpp: whole-array conversions; each element goes through the scalar `convert`
// (unpack → round_pack), compiled once per common format so the descriptor is a constant.
#include "minifloat/convert_span.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>

#include "minifloat/core/convert.hpp"
#include "minifloat/registry.hpp"

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
using Fast8 = FormatList<formats::e4m3fn, formats::e5m2, formats::e4m3fnuz, formats::e5m2fnuz, formats::e4m3b11fnuz,
                         formats::e4m3, formats::e3m4, formats::e3m2fn, formats::e2m3fn, formats::e2m1fn,
                         formats::e8m0fnu, formats::ue4m3>;
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

template <class Src, class Dst>
Flags encode(std::span<const typename Src::T> in, std::span<Dst> out, Format to, const RoundingSpec& spec,
             const Profile& prof, std::span<const std::uint64_t> rbits) {
  constexpr bool narrow = sizeof(Dst) == 1;
  const std::string fn = std::string("convert_") + Src::name;
  check_format(fn, to, narrow ? 8 : 16, narrow ? "std::uint8_t" : "std::uint16_t");
  check_sizes(fn, in.size(), out.size());
  check_rbits(fn, in.size(), spec, rbits.size());
  const std::uint64_t* rb = spec.rounding == Rounding::sr ? rbits.data() : nullptr;
  auto run = [&](auto fmt) { return encode_loop<Src>(in.data(), out.data(), in.size(), fmt, spec, prof, rb); };
  if constexpr (narrow) {
    return dispatch(Fast8{}, to, run);
  } else {
    return dispatch(Fast16{}, to, run);
  }
}

template <class Code, class Out, class From>
MINIFLOAT_FLATTEN Flags decode_loop(const Code* codes, Out* out, std::size_t n, From from, const Profile& prof,
                  const std::string& fn) {
  constexpr Format target = sizeof(Out) == 4 ? formats::f32 : formats::f64;
  using Bits = std::conditional_t<sizeof(Out) == 4, std::uint32_t, std::uint64_t>;
  const std::uint64_t mask = code_mask(from.format);
  unsigned flags = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if ((codes[i] & ~mask) != 0)
      throw Error(fn + ": code " + std::to_string(codes[i]) + " at index " + std::to_string(i) +
                  " is wider than the " + std::to_string(from.format.bits) + " bits of " + describe(from.format));
    const RoundResult r = convert(from.format, codes[i], target, RoundingSpec{}, prof);
    out[i] = detail::bit_cast<Out>(static_cast<Bits>(r.code));
    flags |= r.flags;
  }
  return static_cast<Flags>(flags);
}

template <class Code, class Out>
Flags decode(std::span<const Code> codes, std::span<Out> out, Format from, const Profile& prof) {
  constexpr bool narrow = sizeof(Code) == 1;
  const std::string fn = sizeof(Out) == 4 ? "decode_to_f32" : "decode_to_f64";
  check_format(fn, from, narrow ? 8 : 16, narrow ? "std::uint8_t" : "std::uint16_t");
  check_sizes(fn, codes.size(), out.size());
  auto run = [&](auto fmt) { return decode_loop(codes.data(), out.data(), codes.size(), fmt, prof, fn); };
  if constexpr (narrow) {
    return dispatch(Fast8{}, from, run);
  } else {
    return dispatch(Fast16{}, from, run);
  }
}

}  // namespace

Flags convert_f32(std::span<const float> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec, Profile prof,
                  std::span<const std::uint64_t> rbits) {
  return encode<F32Source>(in, out, to, spec, prof, rbits);
}
Flags convert_f32(std::span<const float> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                  Profile prof, std::span<const std::uint64_t> rbits) {
  return encode<F32Source>(in, out, to, spec, prof, rbits);
}
Flags convert_f64(std::span<const double> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                  Profile prof, std::span<const std::uint64_t> rbits) {
  return encode<F64Source>(in, out, to, spec, prof, rbits);
}
Flags convert_f64(std::span<const double> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                  Profile prof, std::span<const std::uint64_t> rbits) {
  return encode<F64Source>(in, out, to, spec, prof, rbits);
}
Flags convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                       Profile prof, std::span<const std::uint64_t> rbits) {
  return encode<F16Source>(in, out, to, spec, prof, rbits);
}
Flags convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to,
                       RoundingSpec spec, Profile prof, std::span<const std::uint64_t> rbits) {
  return encode<F16Source>(in, out, to, spec, prof, rbits);
}
Flags convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to,
                        RoundingSpec spec, Profile prof, std::span<const std::uint64_t> rbits) {
  return encode<Bf16Source>(in, out, to, spec, prof, rbits);
}
Flags convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to,
                        RoundingSpec spec, Profile prof, std::span<const std::uint64_t> rbits) {
  return encode<Bf16Source>(in, out, to, spec, prof, rbits);
}

Flags decode_to_f32(std::span<const std::uint8_t> codes, std::span<float> out, Format from, Profile prof) {
  return decode(codes, out, from, prof);
}
Flags decode_to_f32(std::span<const std::uint16_t> codes, std::span<float> out, Format from, Profile prof) {
  return decode(codes, out, from, prof);
}
Flags decode_to_f64(std::span<const std::uint8_t> codes, std::span<double> out, Format from, Profile prof) {
  return decode(codes, out, from, prof);
}
Flags decode_to_f64(std::span<const std::uint16_t> codes, std::span<double> out, Format from, Profile prof) {
  return decode(codes, out, from, prof);
}

}  // namespace minifloat
