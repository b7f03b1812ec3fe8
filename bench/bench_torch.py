#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench_torch.py: minifloat.torch.fake_quant's overhead (issue 27), in one process.

Quantizes a 64 MiB float32 tensor (2^24 elements, normal samples, fixed seed; shape (4096, 4096)) with one scheme
and prints the best of N wall times of
  - the library's own quantize + dequantize (the extension's quantize_array and QuantizedTensor.dequantize: the
    compiled calls with the GIL released, no torch), then rounded to float32 (NumPy astype): the baseline;
  - minifloat.torch.fake_quant on the CPU torch tensor (the custom op: option text, dispatcher, DLPack in,
    from_numpy out), whose bytes are checked equal to the baseline's;
and the ratio fake_quant / baseline (target <= 1.2). Same scheme and thread count (all cores) on both sides.
Usage: bench_torch.py [--repeats N] [--mib M] [--scheme S]. Speed claims live here, never in tests.
"""
import argparse

import numpy as np
import torch

import minifloat as mf
import minifloat.torch as mft
from minifloat import _minifloat as ext
from bench_python import best  # the one timing loop of the Python benchmarks (best of N wall times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--scheme", default="mxfp8_e4m3")
    a = ap.parse_args()
    n = a.mib * (1 << 20) // 4
    x = np.random.default_rng(20251201).standard_normal(n).astype(np.float32).reshape(-1, 4096)
    t = torch.from_numpy(x)
    spec = mf._spec("rne", "satfinite")
    prof = mf._profile("ocp")

    def library():
        q = ext.quantize_array(ext.ArrayType.f32, x.reshape(-1), list(x.shape), a.scheme, None, spec, prof, "last",
                               None, [], None, None, 0)
        return q.dequantize(False).astype(np.float32)

    assert np.array_equal(library(), mft.fake_quant(t, a.scheme).numpy())
    t_lib = best(library, a.repeats)
    t_fq = best(lambda: mft.fake_quant(t, a.scheme), a.repeats)
    print(f"{a.scheme} {a.mib} MiB f32 ({x.shape}): library quantize+dequantize+f32 {t_lib * 1e3:.1f} ms, "
          f"fake_quant {t_fq * 1e3:.1f} ms, ratio {t_fq / t_lib:.3f} (target <= 1.2)")


if __name__ == "__main__":
    main()
