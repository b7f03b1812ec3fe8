# SPDX-License-Identifier: Apache-2.0
# scripts/compare-outputs.d/python_battery.py INPUTS_DIR OUT_DIR — the Python package's part of the
# scripts/compare-outputs battery: convert / decode / quantize / report / scalars through the build
# tree's extension (PYTHONPATH=<build>/python, as the python.* ctests). Every array result is written as
# its dtype, shape and SHA-256 (one line per case, in a fixed order; the raw bytes would be ~1.4 GB) and
# each case's label with its flags or metadata goes to a .log beside it; a refused case logs its exception
# text instead, so a refusal that appears or changes is a difference too. Uses only the API BASE (ebcb847) has.
import hashlib
import json
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

import minifloat as mf

inp, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)


class Digests:
    """One line per array: dtype, shape and the SHA-256 of its bytes (the raw arrays would be ~1.4 GB)."""

    def __init__(self, path):
        self.f = open(path, "w")

    def write(self, a):
        a = np.asarray(a)
        self.f.write(f"{a.dtype.str} {a.shape} {hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()}\n")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()


def attempt(log, label, fn):
    try:
        r = fn()
        log.write(f"{label}: ok\n")
        return r
    except Exception as e:  # the refusal is an output too
        log.write(f"{label}: {type(e).__name__}: {e}\n")
        return None


f64 = np.load(inp / "values_f64.npy")
f32 = np.load(inp / "values_f32.npy")
f16 = np.load(inp / "values_f16.npy")
bf16 = np.load(inp / "values_bf16.npy").view(ml_dtypes.bfloat16)
sources = {"f64": f64, "f32": f32, "f16": f16, "bf16": bf16}
targets = ["e4m3fn", "e5m2", "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "e4m3", "e3m4", "e3m2fn", "e2m3fn", "e2m1fn",
           "e8m0fnu", "ue4m3", "bf16", "f16", "Binary8p3se", "Binary8p4sf", "Binary7p2ue", "Binary5p3uf",
           "Binary11p6se", "Binary16p11sf", "custom:3,3,2,signed,ieee"]
modes = ["rne", "rna", "rtz", "rtp", "rtn", "rto", "sr"]
overflows = ["nonsat", "satfinite", "satpropagate"]
profiles = ["ocp", "nvidia", "ml_dtypes", "p3109", "torch"]
variants = [("exact", 8), ("A", 8), ("B", 3), ("C", 13), ("equal", 8), ("A", 32), ("C", 1)]

# ---- convert: every source x target x mode x overflow (x profile for rne/rtz), threads 1 and 2
(out / "convert").mkdir(exist_ok=True)
for t in targets:
    with Digests(out / "convert" / f"{t.replace(':', '_').replace(',', '_')}.sha256") as b, \
         open(out / "convert" / f"{t.replace(':', '_').replace(',', '_')}.log", "w") as log:
        k = 0
        for sname, x in sources.items():
            for m in modes:
                for o in overflows:
                    profs = profiles if m in ("rne", "rtz") else ["ocp"]
                    for p in profs:
                        sr = None
                        if m == "sr":
                            v, nb = variants[k % len(variants)]
                            sr = dict(seed=1000 + k, stream=k % 5, step=k % 3, variant=v, bits=nb, index_base=k * 7)
                        threads = 1 + k % 2
                        k += 1
                        r = attempt(log, f"{sname} {m} {o} {p} sr={sr} threads={threads}",
                                    lambda: mf.convert(x, t, round=m, overflow=o, profile=p, sr=sr, flags=True, threads=threads))
                        if r is not None:
                            codes, flags = r
                            b.write(codes)
                            log.write(f"  flags={int(flags)}\n")
        # codes of other formats as the source (uint8 with source=, and ml_dtypes arrays)
        for src in ["e4m3fn", "e5m2", "e2m1fn", "e8m0fnu", "Binary8p3se"]:
            bits = 8 if src != "e2m1fn" else 4
            codes_in = np.load(inp / f"codes_b{bits}.npy")
            for m in ["rne", "rtz", "rto", "sr"]:
                sr = dict(seed=77, variant="exact") if m == "sr" else None
                r = attempt(log, f"codes {src} {m}", lambda: mf.convert(codes_in, t, source=src, round=m, overflow="satfinite", sr=sr))
                if r is not None:
                    b.write(r)
        r = attempt(log, "ml_dtypes e4m3fn array", lambda: mf.convert(np.load(inp / "codes_b8.npy").view(ml_dtypes.float8_e4m3fn), t))
        if r is not None:
            b.write(r)
        r = attempt(log, "as ml_dtypes", lambda: mf.convert(f32[:4096], t, as_="ml_dtypes"))
        if r is not None:
            b.write(np.asarray(r).view(np.uint8 if r.dtype.itemsize == 1 else np.uint16))
            log.write(f"  dtype={r.dtype}\n")

# ---- decode: every code into float32 and float64
(out / "decode").mkdir(exist_ok=True)
for t in targets:
    bits = mf.format_info(t)["bits"] if "bits" in mf.format_info(t) else None
    with Digests(out / "decode" / f"{t.replace(':', '_').replace(',', '_')}.sha256") as b, \
         open(out / "decode" / f"{t.replace(':', '_').replace(',', '_')}.log", "w") as log:
        codes_in = np.load(inp / f"codes_b{bits}.npy")
        for dt in ("float32", "float64"):
            for p in ("ocp", "nvidia"):
                r = attempt(log, f"decode {dt} {p}", lambda: mf.decode(codes_in, t, dtype=dt, profile=p))
                if r is not None:
                    b.write(r)
        log.write(json.dumps(mf.format_info(t), default=str, sort_keys=True) + "\n")
        tb = attempt(log, "table", lambda: mf.table(t))
        if tb is not None:
            log.write(repr(tb)[:200000] + "\n")

# ---- quantize / report
(out / "quantize").mkdir(exist_ok=True)
schemes = mf.schemes() + ["e2m3fn/1x16/e8m0fnu:rceil", "e5m2/4x8/f32:fp32_pow2"]
xs = {"minilm0": np.load(inp / "minilm_0.npy"), "minilm0_f64": np.load(inp / "minilm_0_f64.npy"),
      "minilm0_f16": np.load(inp / "minilm_0_f16.npy"), "minilm0_bf16": np.load(inp / "minilm_0_bf16.npy").view(ml_dtypes.bfloat16),
      "values2d": np.load(inp / "values_2d.npy"), "f32_1d": f32[np.isfinite(f32)][:4000]}
for s in schemes:
    tag = s.replace("/", "_").replace(":", "_")
    with Digests(out / "quantize" / f"{tag}.sha256") as b, open(out / "quantize" / f"{tag}.log", "w") as log:
        for xn, x in xs.items():
            for axis in ("last", "first"):
                for m, sr in (("rne", None), ("rtz", None), ("sr", dict(seed=5, variant="C", bits=6))):
                    q = attempt(log, f"{xn} {axis} {m}", lambda: mf.quantize(x, s, axis=axis, round=m, sr=sr))
                    if q is None:
                        continue
                    b.write(q.codes)
                    b.write(np.asarray(q.scales))
                    b.write(q.scale_values())
                    b.write(q.dequantize())
                    b.write(q.dequantize(scale_ftz=True))
                    pk = attempt(log, "  packed", q.packed)
                    if pk is not None:
                        b.write(pk)
                    meta = {k: getattr(q, k) for k in ("scheme", "spec", "rule", "element", "element_bits", "axis",
                                                        "block_rows", "block_cols", "saturated", "flushed", "shape",
                                                        "scale_shape", "tensor_scale", "tensor_encode_scale")}
                    log.write("  " + repr(meta) + "\n  errors " + repr(q.errors()) + "\n")
        for rule in ("ocp_floor", "rceil", "ceil", "even", "tosa", "fp32_amax", "fp32_pow2", "nvfp4"):
            q = attempt(log, f"rule {rule}", lambda: mf.quantize(xs["minilm0"], s, rule=rule))
            if q is not None:
                b.write(q.codes)
                b.write(np.asarray(q.scales))
        for p in ("nvidia", "ml_dtypes", "torch", "p3109"):
            q = attempt(log, f"profile {p}", lambda: mf.quantize(xs["minilm0_f64"], s, profile=p))
            if q is not None:
                b.write(q.codes)
                b.write(np.asarray(q.scales))
rep = mf.report(xs["minilm0"], schemes)
(out / "report_minilm0.json").write_text(repr(rep) + "\n")

# ---- scalars, names
with open(out / "scalars.txt", "w") as log:
    texts = (inp / "encode_values.txt").read_text().split()[:300]
    for t in ["e4m3fn", "e5m2", "e2m1fn", "e8m0fnu", "bf16", "tf32", "f32", "Binary8p3se", "Binary12p5uf"]:
        for v in texts:
            for m in ("rne", "rtz", "sr"):
                sr = dict(seed=3, index_base=11) if m == "sr" else None
                attempt(log, f"{t} {v} {m}", lambda: log.write(repr(mf.encode_scalar(v, t, round=m, overflow="satfinite", sr=sr, flags=True)) + "\n"))
        for c in range(0, 256, 7):
            attempt(log, f"decode_scalar {t} {c}", lambda: log.write(repr((mf.decode_scalar(c, t, as_="str"), mf.decode_scalar(c, t, as_="hex"))) + "\n"))
    log.write(repr(mf.names()) + "\n")
    log.write(repr(mf.formats()) + "\n")
    log.write(mf.sr_bits(9, 1, 2, 1000, "exact", index_base=5).tobytes().hex() + "\n")
    log.write(mf.sr_bits(9, 1, 2, 1000, "A").tobytes().hex() + "\n")
print("python battery: done")
