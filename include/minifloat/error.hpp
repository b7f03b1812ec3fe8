// SPDX-License-Identifier: Apache-2.0
// error.hpp: exceptions of the compiled library's boundary (registry, parsing, files, CLI).
// The header-only core never throws: it returns Flags.
#pragma once
#include <stdexcept>
#include <string>

namespace minifloat {

/// Base of every exception minifloat throws. The message names what was wrong and what is accepted.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// An unknown name (format, rounding mode, overflow policy, profile, …).
struct NameError : Error {
  using Error::Error;
};
/// A file that cannot be read or written (missing, truncated, permission), naming the path.
struct IoError : Error {
  using Error::Error;
};
/// An unparsable or out-of-range value or code.
struct ParseError : Error {
  using Error::Error;
};

}  // namespace minifloat
