// SPDX-License-Identifier: Apache-2.0
// with_arg.hpp: the extension's one error-prefixing helper (shared by minifloat_ext.cpp,
// quant_ext.cpp and check_ext.cpp).
#pragma once
#include <string>
#include <string_view>

#include "minifloat/error.hpp"

namespace minifloat::python {

/// Rethrow any minifloat::Error of `fn()` as NameError/ParseError/Error with "<arg>: " in front
/// (the CLI's cli::with_option does the same with the option's name), so Python users see the
/// CLI's one-line messages (ValueError) naming the argument.
template <class Fn>
auto with_arg(std::string_view arg, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const NameError& e) {
    throw NameError(std::string(arg) + ": " + e.what());
  } catch (const ParseError& e) {
    throw ParseError(std::string(arg) + ": " + e.what());
  } catch (const Error& e) {
    throw Error(std::string(arg) + ": " + e.what());
  }
}

}  // namespace minifloat::python
