// SPDX-License-Identifier: Apache-2.0
// fuzz_common.hpp: what every parser fuzz target checks besides its own property: a rejection
// is one minifloat exception of the expected type whose message is one short line naming the
// input; a broken property aborts with a line saying which (libFuzzer then saves the input).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace minifloat_fuzz {

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz property violated: %s\n", what.c_str());
  std::abort();
}

inline void require(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

/// An error message: non-empty, one line, at most `max_chars` long, and naming `name` (when given).
inline void check_message(std::string_view msg, std::string_view name, std::size_t max_chars) {
  require(!msg.empty(), "empty error message");
  require(msg.find('\n') == std::string_view::npos && msg.find('\r') == std::string_view::npos,
          "error message spans lines: " + std::string(msg.substr(0, 300)));
  require(msg.size() <= max_chars, "error message of " + std::to_string(msg.size()) + " chars (limit " +
                                       std::to_string(max_chars) + "): " + std::string(msg.substr(0, 300)));
  require(name.empty() || msg.find(name) != std::string_view::npos,
          "error message does not name " + std::string(name) + ": " + std::string(msg));
}

}  // namespace minifloat_fuzz
