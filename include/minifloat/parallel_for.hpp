// SPDX-License-Identifier: Apache-2.0
// parallel_for.hpp: the one thread convention (`threads`: 0 = all cores, N = at most N std::threads)
// and the one helper that runs workers on std::threads; part of the compiled library
// minifloat::minifloat, used by the array door (convert_array.hpp), the block quantizer, the
// training study and the CUDA host library's CPU emulation.
#pragma once
#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace minifloat {

/// All cores: std::thread::hardware_concurrency(), 1 where the standard library cannot tell.
/// What `threads = 0` means everywhere (library, CLI `--threads 0`, Python `threads=0`).
unsigned default_threads() noexcept;

/// The thread count a `threads` argument asks for: 0 → default_threads() (all cores), else itself.
inline unsigned resolve_threads(unsigned threads) noexcept { return threads == 0 ? default_threads() : threads; }

/// Run fn(w) for every worker w in [0, workers): worker 0 on the calling thread, the others on a
/// std::thread each (workers ≤ 1: fn(0) on the calling thread only). After every worker has finished,
/// the exception of the lowest worker that threw is rethrown, so an error does not depend on timing.
/// Callers split their work so that the result does not depend on `workers` (contiguous ranges of
/// element indices, order-free merges).
template <class Fn>
void parallel_for(unsigned workers, Fn&& fn) {
  if (workers <= 1) {
    fn(0u);
    return;
  }
  std::vector<std::exception_ptr> errors(workers);
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (unsigned w = 1; w < workers; ++w) {
    pool.emplace_back([&errors, &fn, w] {
      try {
        fn(w);
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  }
  try {
    fn(0u);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

/// The number of contiguous ranges an array of n elements is cut into: min(resolve_threads(threads),
/// n / grain), at least 1 (a thread costs more than it saves on fewer than `grain` elements).
inline unsigned range_count(std::size_t n, unsigned threads, std::size_t grain) noexcept {
  return static_cast<unsigned>(std::min<std::size_t>(resolve_threads(threads), std::max<std::size_t>(n / grain, 1)));
}

/// Cut [0, n) into range_count(n, threads, grain) contiguous ranges, range k = [n·k/t, n·(k+1)/t),
/// and run fn(lo, hi) on each (parallel_for: the first on the calling thread). Returns the OR of the
/// results (fn returns an unsigned-convertible flag set, e.g. Flags).
template <class R, class Fn>
R parallel_ranges(std::size_t n, unsigned threads, std::size_t grain, Fn&& fn) {
  const unsigned t = range_count(n, threads, grain);
  if (t <= 1) return fn(std::size_t{0}, n);
  std::vector<R> results(t, R{});
  parallel_for(t, [&](unsigned k) { results[k] = fn(n * k / t, n * (k + 1) / t); });
  unsigned all = 0;
  for (R r : results) all |= static_cast<unsigned>(r);
  return static_cast<R>(all);
}

}  // namespace minifloat
