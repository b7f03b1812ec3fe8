// SPDX-License-Identifier: Apache-2.0
// cuda/launch_cpu.hpp: the CPU launcher. Runs a kernel body (cuda/kernels.hpp) over exactly the grid
// the CUDA launcher uses (grid_for(n): blocks × threads, grid-stride loop), the grid's blocks split
// into contiguous ranges over `cpu_threads` std::threads. Every index is visited once whatever the
// thread count, and a body's result depends only on its index, so the outputs are those of the
// device launch. Host only (plain C++; no CUDA runtime needed).
#pragma once
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "kernels.hpp"

namespace minifloat::cuda {

/// Run `body(i)` for every i < n over grid_for(n), on `cpu_threads` (≥ 1) CPU threads.
template <class Body>
void launch_cpu(const Body& body, std::uint64_t n, unsigned cpu_threads) {
  if (n == 0) return;
  const Grid g = grid_for(n);
  const unsigned t = std::max(1u, std::min<unsigned>(cpu_threads, g.blocks));
  auto run = [&](std::uint32_t b0, std::uint32_t b1) {
    for (std::uint32_t b = b0; b < b1; ++b)
      for (std::uint32_t th = 0; th < g.threads; ++th) run_grid_thread(body, n, g, b, th);
  };
  if (t == 1) {
    run(0, g.blocks);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(t);
  for (unsigned k = 0; k < t; ++k) {
    const auto b0 = static_cast<std::uint32_t>(std::uint64_t{g.blocks} * k / t);
    const auto b1 = static_cast<std::uint32_t>(std::uint64_t{g.blocks} * (k + 1) / t);
    pool.emplace_back(run, b0, b1);
  }
  for (auto& th : pool) th.join();
}

}  // namespace minifloat::cuda
