// SPDX-License-Identifier: Apache-2.0
// excerpt.hpp (internal to the compiled library): how an error message quotes input text, so a
// message stays one short line whatever the input holds (a megabyte of digits, binary bytes, a
// newline): printable ASCII as is, every other byte as \xNN, at most `max_bytes` input bytes,
// then "…" when the text was longer.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace minifloat::detail {

/// Default number of input bytes an error message quotes.
inline constexpr std::size_t kExcerptBytes = 40;

inline std::string excerpt(std::string_view text, std::size_t max_bytes = kExcerptBytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  const std::size_t n = text.size() < max_bytes ? text.size() : max_bytes;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (text.size() > max_bytes) out += "…";
  return out;
}

/// excerpt() between single quotes. (Built with += : GCC 12 at -O3 reports a false -Wrestrict
/// for "'" + std::string + "'".)
inline std::string quoted_excerpt(std::string_view text, std::size_t max_bytes = kExcerptBytes) {
  std::string out(1, '\'');
  out += excerpt(text, max_bytes);
  out += '\'';
  return out;
}

}  // namespace minifloat::detail
