#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/astype_ratio.py: ml_dtypes `astype` (and torch `.to()`, if installed) on a 64 MiB f32 array,
each timed back to back with its own same-process copy of the same array (NumPy copyto / torch
clone), and the same casts into preallocated outputs (copyto / copy_, against copies that do not
allocate either: astype, .to() and clone() also allocate and first-touch 16-64 MiB), medians of --repeats runs; prints time ratios to the copy. With --bench PATH it also runs
minifloat's bench_simd (same shape of input, its own same-run memcpy) and prints the ratio of
ratios: (library time / its memcpy) / (minifloat time / its memcpy) = how many times faster
minifloat is, with each side normalised by its own copy.

Usage: /work/main/.venv/bin/python bench/astype_ratio.py [--bench build/bench/bench_simd] [--repeats 7]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np
import ml_dtypes

N = 16 << 20  # 64 MiB of f32, as bench_simd


def bench_input():
    # |x| in [2^-12, 2^10) with random signs, as bench/bench_input.hpp (other generator, same law)
    rng = np.random.default_rng(12345)
    m = rng.uniform(1.0, 2.0, N).astype(np.float32)
    e = rng.integers(-12, 10, N)
    s = np.where(rng.integers(0, 2, N) == 1, -1.0, 1.0).astype(np.float32)
    return (np.ldexp(m, e) * s).astype(np.float32)


def median_time(fn, repeats):
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", help="path of build/bench/bench_simd")
    ap.add_argument("--repeats", type=int, default=7)
    a = ap.parse_args()
    x = bench_input()
    out = np.empty_like(x)
    rows = {}
    copy = median_time(lambda: np.copyto(out, x), a.repeats)
    cast = median_time(lambda: x.astype(ml_dtypes.float8_e4m3fn), a.repeats)
    rows["ml_dtypes astype e4m3fn"] = (cast, copy)
    # The same cast into a preallocated output (astype and .to() also allocate and first-touch
    # their output, which the copies below do not): NumPy copyto with the ml_dtypes cast.
    out8 = np.empty(N, dtype=ml_dtypes.float8_e4m3fn)
    cast_pre = median_time(lambda: np.copyto(out8, x, casting="unsafe"), a.repeats)
    rows["ml_dtypes copyto e4m3fn (preallocated)"] = (cast_pre, copy)
    try:
        import torch  # optional: pip install --no-deps torch into a private venv

        torch.set_num_threads(1)
        t = torch.from_numpy(x)
        tcopy = median_time(lambda: t.clone(), a.repeats)
        tcast = median_time(lambda: t.to(torch.float8_e4m3fn), a.repeats)
        rows["torch .to(float8_e4m3fn)"] = (tcast, tcopy)
        # clone() and .to() allocate; copy_ into preallocated tensors does not (the fair pair).
        t32 = torch.empty_like(t)
        t8 = torch.empty(N, dtype=torch.float8_e4m3fn)
        tcopy_pre = median_time(lambda: t32.copy_(t), a.repeats)
        tcast_pre = median_time(lambda: t8.copy_(t), a.repeats)
        rows["torch copy_ into float8_e4m3fn (preallocated)"] = (tcast_pre, tcopy_pre)
    except ImportError:
        print("torch not installed: torch row skipped")
    mf = None
    if a.bench:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bench.json")
            subprocess.run([a.bench, "--benchmark_filter=^(memcpy_f32|encode/e4m3fn_rne_simd/1)",
                            f"--benchmark_out={path}", "--benchmark_out_format=json"], check=True,
                           capture_output=True, text=True)
            with open(path) as f:
                times = {b["name"]: b["real_time"] for b in json.load(f)["benchmarks"]}
        mcopy = next(v for k, v in times.items() if k.startswith("memcpy_f32"))
        mconv = next(v for k, v in times.items() if k.startswith("encode/e4m3fn_rne_simd/1"))
        mf = mconv / mcopy
        print(f"minifloat convert_f32 e4m3fn rne (1 thread): {mf:.2f}x its memcpy")
    for name, (t, c) in rows.items():
        line = f"{name}: {N / t / 1e9:.3f} Gelem/s, {t / c:.2f}x its copy"
        if mf is not None:
            line += f"; minifloat is {(t / c) / mf:.2f}x faster (ratio of ratios)"
        print(line)


if __name__ == "__main__":
    main()
