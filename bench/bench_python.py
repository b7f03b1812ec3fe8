#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench_python.py: the Python binding's speed (issue 13 item 4), in one process.

Converts a 64 MiB float32 array (2^24 elements, normal samples scaled into e4m3fn's range, fixed
seed) to e4m3fn (rne, nonsat, ocp) and prints the best of N wall times of
  - the C++ span call convert_f32, timed in C++ with the GIL released (the baseline),
  - minifloat.convert (Python argument checks + the binding + the same span call),
  - ml_dtypes' astype(float8_e4m3fn) (NumPy cast; same rounding: its codes are checked equal),
and the ratios minifloat.convert / C++ (target <= 1.15) and minifloat.convert / ml_dtypes.
Usage: bench_python.py [--repeats N] [--mib M]. Speed claims live here, never in tests.
"""
import argparse
import os
import time

import numpy as np

import minifloat as mf
from minifloat import _minifloat as ext


def best(fn, repeats):
    t = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--mib", type=int, default=64)
    a = ap.parse_args()
    n = a.mib * (1 << 20) // 4
    x = (np.random.default_rng(20251201).standard_normal(n) * 64).astype(np.float32)
    out = np.empty(n, np.uint8)
    mf.convert(x, "e4m3fn")  # warm up (page faults of the output, caches)
    t_cpp = ext.span_call_seconds(x, out, mf.Format("e4m3fn"), a.repeats)
    t_py = best(lambda: mf.convert(x, "e4m3fn"), a.repeats)
    print(f"input: {a.mib} MiB float32 ({n} elements) -> e4m3fn rne nonsat; best of {a.repeats}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"C++ span call convert_f32    : {t_cpp * 1e3:9.2f} ms  ({t_cpp / n * 1e9:.2f} ns/element)")
    print(f"minifloat.convert            : {t_py * 1e3:9.2f} ms  ({t_py / n * 1e9:.2f} ns/element)")
    print(f"ratio minifloat.convert / C++: {t_py / t_cpp:.3f}  (target <= 1.15)")
    try:
        import ml_dtypes
    except ImportError:
        print("ml_dtypes not installed: no comparison")
        return
    want = x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    assert (want == mf.convert(x, "e4m3fn")).all(), "ml_dtypes and minifloat disagree on these inputs"
    t_ml = best(lambda: x.astype(ml_dtypes.float8_e4m3fn), a.repeats)
    print(f"ml_dtypes astype             : {t_ml * 1e3:9.2f} ms  ({t_ml / n * 1e9:.2f} ns/element)")
    print(f"ratio minifloat.convert / ml_dtypes: {t_py / t_ml:.3f}  (codes equal: yes)")


if __name__ == "__main__":
    main()
