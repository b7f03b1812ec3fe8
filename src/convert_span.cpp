// SPDX-License-Identifier: Apache-2.0
// convert_span.cpp: the named span functions. The encoders (convert_f32 … convert_bf16_bits) are
// one-line wrappers over the array door (convert_array.cpp); the decoders run here: each code through
// the scalar `convert`, compiled once per common format, or for the whitelist of decode_path through
// the Highway kernel of src/simd/. Threads: contiguous ranges, parallel_for.hpp.
#include "minifloat/convert_span.hpp"

#include <cstddef>
#include <string>
#include <type_traits>

#include "format_dispatch.hpp"
#include "minifloat/convert_array.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/registry.hpp"
#include "simd/convert_simd.hpp"

namespace minifloat {
namespace {

using detail::dispatch_codes;

void check_format(const std::string& fn, Format f, unsigned max_bits, const char* storage) {
  if (validate(f) != FormatError::ok)
    throw Error(fn + ": invalid format descriptor " + format_name(f) +
                " (validate() rejects it; see format.hpp for the accepted field ranges)");
  if (f.bits > max_bits)
    throw Error(fn + ": format " + format_name(f) + " has " + std::to_string(f.bits) + " bits, but " + storage +
                " codes hold formats of at most " + std::to_string(max_bits) +
                " bits (use the std::uint16_t overload for formats of 9..16 bits)");
}

void check_sizes(const std::string& fn, std::size_t in, std::size_t out) {
  if (in != out)
    throw Error(fn + ": the input has " + std::to_string(in) + " elements but the output has " + std::to_string(out) +
                "; they must be equal");
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
                  " is wider than the " + std::to_string(from.format.bits) + " bits of " + format_name(from.format));
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
  const simd::DecodeTable* t = nullptr;
  if constexpr (narrow && sizeof(Out) == 4) {
    if (decode_path(from, prof) == ArrayPath::simd) t = simd::decode_table(from, prof);
  }
  return parallel_ranges<Flags>(codes.size(), threads, 4096, [&](std::size_t lo, std::size_t hi) {
    auto run = [&](auto fmt) { return decode_loop(codes.data() + lo, out.data() + lo, hi - lo, fmt, prof, fn, lo); };
    if constexpr (narrow && sizeof(Out) == 4) {
      // No code of a simd::DecodeTable raises a flag. A code wider than the format: the engine loop
      // rescans the range and names its index.
      if (t != nullptr && simd::decode_u8(*t, codes.data() + lo, out.data() + lo, hi - lo)) return flag_none;
    }
    return dispatch_codes<Code>(from, run);
  });
}

}  // namespace

ArrayPath encode_path(Format to, RoundingSpec spec, Profile prof) {
  if (spec.rounding == Rounding::sr) return ArrayPath::engine;
  return simd::encode_table(to, spec, prof) != nullptr ? ArrayPath::simd : ArrayPath::engine;
}
ArrayPath decode_path(Format from, Profile prof) {
  return simd::decode_table(from, prof) != nullptr ? ArrayPath::simd : ArrayPath::engine;
}

Flags convert_f32(std::span<const float> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec, Profile prof,
                  std::span<const std::uint64_t> rbits, unsigned threads) {
  return convert_array(ArrayIn::f32(in), out, {to, spec, prof, {}, rbits, threads}, "convert_f32");
}
Flags convert_f32(std::span<const float> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec, Profile prof,
                  std::span<const std::uint64_t> rbits, unsigned threads) {
  return convert_array(ArrayIn::f32(in), out, {to, spec, prof, {}, rbits, threads}, "convert_f32");
}
Flags convert_f64(std::span<const double> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec, Profile prof,
                  std::span<const std::uint64_t> rbits, unsigned threads) {
  return convert_array(ArrayIn::f64(in), out, {to, spec, prof, {}, rbits, threads}, "convert_f64");
}
Flags convert_f64(std::span<const double> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec, Profile prof,
                  std::span<const std::uint64_t> rbits, unsigned threads) {
  return convert_array(ArrayIn::f64(in), out, {to, spec, prof, {}, rbits, threads}, "convert_f64");
}
Flags convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                       Profile prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  return convert_array(ArrayIn::f16(in), out, {to, spec, prof, {}, rbits, threads}, "convert_f16_bits");
}
Flags convert_f16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                       Profile prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  return convert_array(ArrayIn::f16(in), out, {to, spec, prof, {}, rbits, threads}, "convert_f16_bits");
}
Flags convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Format to, RoundingSpec spec,
                        Profile prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  return convert_array(ArrayIn::bf16(in), out, {to, spec, prof, {}, rbits, threads}, "convert_bf16_bits");
}
Flags convert_bf16_bits(std::span<const std::uint16_t> in, std::span<std::uint16_t> out, Format to, RoundingSpec spec,
                        Profile prof, std::span<const std::uint64_t> rbits, unsigned threads) {
  return convert_array(ArrayIn::bf16(in), out, {to, spec, prof, {}, rbits, threads}, "convert_bf16_bits");
}

Flags decode_to_f32(std::span<const std::uint8_t> codes, std::span<float> out, Format from, Profile prof,
                    unsigned threads) {
  return decode(codes, out, from, prof, threads);
}
Flags decode_to_f32(std::span<const std::uint16_t> codes, std::span<float> out, Format from, Profile prof,
                    unsigned threads) {
  return decode(codes, out, from, prof, threads);
}
Flags decode_to_f64(std::span<const std::uint8_t> codes, std::span<double> out, Format from, Profile prof,
                    unsigned threads) {
  return decode(codes, out, from, prof, threads);
}
Flags decode_to_f64(std::span<const std::uint16_t> codes, std::span<double> out, Format from, Profile prof,
                    unsigned threads) {
  return decode(codes, out, from, prof, threads);
}

}  // namespace minifloat
