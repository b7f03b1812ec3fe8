// SPDX-License-Identifier: Apache-2.0
// parallel_for.cpp: what `threads = 0` means (parallel_for.hpp).
#include "minifloat/parallel_for.hpp"

#include <thread>

namespace minifloat {

unsigned default_threads() noexcept {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1u : n;
}

}  // namespace minifloat
