#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ml_dtypes_golden.py: write ml_dtypes' (PyPI, NumPy casts) conversion results as binary golden files.

Oracle for tests/vendor/ml_dtypes_test.cpp; shares no code with minifloat. Usage:
    ml_dtypes_golden.py OUT_DIR

For every ml_dtypes type that exists (see TYPES) it writes, into OUT_DIR:
  <type>.from_f16.u8   65536 codes: np.arange(65536, uint16).view(float16).astype(type)
  <type>.from_bf16.u8  65536 codes: the same with the bits viewed as ml_dtypes.bfloat16
  <type>.decode.u32    2^bits little-endian float32 bit patterns: code.view(type).astype(float32)
  <type>.f64_in.f64    N little-endian doubles (deterministic, see d11_inputs)
  <type>.from_f64.u8   N codes: np.array(inputs, float64).astype(type) (ml_dtypes goes via float32: D11)
and finally manifest.txt: line 1 "ml_dtypes <version> numpy <version>", then one line
"<type> <bits> <N>" per type written. When numpy or ml_dtypes cannot be imported it writes
manifest.txt as the single line "unavailable: <reason>" and exits 0, so the C++ comparison reports
SKIPPED with that reason instead of passing. Any other failure exits non-zero.
"""
import os
import struct
import sys

# ml_dtypes name -> bits of the code (the storage is one byte for all of them).
TYPES = [
    ("float8_e4m3fn", 8), ("float8_e5m2", 8), ("float8_e4m3fnuz", 8), ("float8_e5m2fnuz", 8),
    ("float8_e4m3b11fnuz", 8), ("float8_e4m3", 8), ("float8_e3m4", 8), ("float6_e2m3fn", 6),
    ("float6_e3m2fn", 6), ("float4_e2m1fn", 4), ("float8_e8m0fnu", 8),
]


def d11_inputs(np, T, bits):
    """Deterministic float64 inputs that probe double rounding through float32 (D11).

    Around every midpoint m between adjacent finite values of T (and the midpoint above the
    largest one): m ± m·2^-k for k = 20..56, i.e. from well inside one float32 ulp of m to far below
    it, where the float32 step lands exactly on m. Plus spec-digest T11 (1.0625 + 2^-40) and a
    fixed-seed (PCG64, seed 20250611) log-uniform sample. Sign: both.
    """
    codes = np.arange(1 << bits, dtype=np.uint8).view(T)
    vals = codes.astype(np.float64)
    fin = np.unique(np.abs(vals[np.isfinite(vals)]))
    fin = fin[fin >= 0]
    mids = list((fin[:-1] + fin[1:]) / 2)
    if len(fin) >= 2:
        mids.append(fin[-1] + (fin[-1] - fin[-2]) / 2)
    out = [1.0625 + 2.0 ** -40, -(1.0625 + 2.0 ** -40)]
    for m in mids:
        for k in range(20, 57):
            d = m * 2.0 ** -k
            out += [m + d, m - d, -(m + d), -(m - d)]
    rng = np.random.Generator(np.random.PCG64(20250611))
    lo, hi = np.log2(fin[fin > 0][0]) - 3, np.log2(fin[-1]) + 2
    rnd = np.exp2(rng.uniform(lo, hi, 2000)) * rng.choice([-1.0, 1.0], 2000)
    out += list(rnd)
    return np.array(out, dtype=np.float64)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ml_dtypes_golden.py OUT_DIR")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    manifest = os.path.join(out_dir, "manifest.txt")
    if os.path.exists(manifest):
        os.remove(manifest)  # never leave stale data looking valid
    try:
        import numpy as np
        import ml_dtypes
    except ImportError as e:  # the comparison test skips with this reason
        with open(manifest, "w") as f:
            f.write(f"unavailable: cannot import numpy/ml_dtypes with {sys.executable}: {e}\n")
        print(f"ml_dtypes unavailable: {e}")
        return 0

    lines = [f"ml_dtypes {ml_dtypes.__version__} numpy {np.__version__}"]
    all16 = np.arange(65536, dtype=np.uint16)
    for name, bits in TYPES:
        T = getattr(ml_dtypes, name, None)
        if T is None:
            print(f"{name}: not in this ml_dtypes, skipped")
            continue
        assert np.dtype(T).itemsize == 1
        with np.errstate(all="ignore"):
            from_f16 = all16.view(np.float16).astype(T).view(np.uint8)
            from_bf16 = all16.view(ml_dtypes.bfloat16).astype(T).view(np.uint8)
            decode = np.arange(1 << bits, dtype=np.uint8).view(T).astype(np.float32).view(np.uint32)
            f64_in = d11_inputs(np, T, bits)
            from_f64 = f64_in.astype(T).view(np.uint8)
        from_f16.tofile(os.path.join(out_dir, f"{name}.from_f16.u8"))
        from_bf16.tofile(os.path.join(out_dir, f"{name}.from_bf16.u8"))
        decode.astype("<u4").tofile(os.path.join(out_dir, f"{name}.decode.u32"))
        f64_in.astype("<f8").tofile(os.path.join(out_dir, f"{name}.f64_in.f64"))
        from_f64.tofile(os.path.join(out_dir, f"{name}.from_f64.u8"))
        lines.append(f"{name} {bits} {len(f64_in)}")
        print(f"{name}: wrote 65536+65536 casts, {1 << bits} decodes, {len(f64_in)} float64 casts")
    with open(manifest, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
