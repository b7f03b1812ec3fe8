// SPDX-License-Identifier: Apache-2.0
// format_dispatch.hpp (private to src/): a format as a compile-time constant (Fixed<F>) for the
// named formats that get a loop of their own, else as a run-time value (Dynamic), so the array
// loops of convert_array.cpp and convert_span.cpp constant-fold the descriptor.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

#include "minifloat/core/format.hpp"
#include "minifloat/core/named_formats.hpp"
#include "minifloat/core/rounding.hpp"

// Inline the whole engine into each loop so the compile-time descriptor is constant-folded
// (GCC and Clang otherwise keep round_pack out of line and pass the Format at run time).
#if defined(__GNUC__) || defined(__clang__)
#define MINIFLOAT_FLATTEN [[gnu::flatten]]
#else
#define MINIFLOAT_FLATTEN
#endif

namespace minifloat::detail {

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
/// The rows of kNamedFormats (core/named_formats.hpp) flagged `Paths`, in table order.
template <std::uint8_t Paths, std::size_t... I>
FormatList<nth_named_format(Paths, static_cast<int>(I))...> named_formats_with(std::index_sequence<I...>);
template <std::uint8_t Paths>
using FastList = decltype(named_formats_with<Paths>(std::make_index_sequence<count_named_formats(Paths)>{}));
/// Fast8: the formats flagged kArrayPath; Fast16: those flagged kHostLoop16.
using Fast8 = FastList<kArrayPath>;
using Fast16 = FastList<kHostLoop16>;

/// Call fn(Fixed<F>{}) for the F in the list equal to `f`, else fn(Dynamic{f}).
template <Format... Fs, class Fn>
Flags dispatch(FormatList<Fs...>, Format f, Fn&& fn) {
  Flags r = flag_none;
  const bool found = ((f == Fs ? (r = fn(Fixed<Fs>{}), true) : false) || ...);
  if (!found) r = fn(Dynamic{f});
  return r;
}

/// dispatch over Fast8 for 1-byte code words, Fast16 for 2-byte ones.
template <class Code, class Fn>
Flags dispatch_codes(Format f, Fn&& fn) {
  if constexpr (sizeof(Code) == 1) {
    return dispatch(Fast8{}, f, fn);
  } else {
    return dispatch(Fast16{}, f, fn);
  }
}

}  // namespace minifloat::detail
