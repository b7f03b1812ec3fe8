// SPDX-License-Identifier: Apache-2.0
// cuda/launch_cpu.hpp: the CPU launcher. Runs a kernel body (cuda/kernels.hpp) over exactly the grid
// the CUDA launcher uses (grid_for(n): blocks × threads, grid-stride loop), the grid's blocks split
// into contiguous ranges over `cpu_threads` workers (parallel_for; 0 = all cores). Every index is visited once whatever the
// thread count, and a body's result depends only on its index, so the outputs are those of the
// device launch. Host only (plain C++; no CUDA runtime needed).
#pragma once
#include <algorithm>
#include <cstdint>

#include "kernels.hpp"
#include "../parallel_for.hpp"

namespace minifloat::cuda {

/// Run `body(i)` for every i < n over grid_for(n), on `cpu_threads` CPU threads (0 = all cores).
template <class Body>
void launch_cpu(const Body& body, std::uint64_t n, unsigned cpu_threads) {
  if (n == 0) return;
  const Grid g = grid_for(n);
  const unsigned t = std::max(1u, std::min<unsigned>(resolve_threads(cpu_threads), g.blocks));
  auto run = [&](std::uint32_t b0, std::uint32_t b1) {
    for (std::uint32_t b = b0; b < b1; ++b)
      for (std::uint32_t th = 0; th < g.threads; ++th) run_grid_thread(body, n, g, b, th);
  };
  if (t == 1) {
    run(0, g.blocks);
    return;
  }
  parallel_for(t, [&](unsigned k) {
    run(static_cast<std::uint32_t>(std::uint64_t{g.blocks} * k / t),
        static_cast<std::uint32_t>(std::uint64_t{g.blocks} * (k + 1) / t));
  });
}

}  // namespace minifloat::cuda
