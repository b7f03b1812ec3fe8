# SPDX-License-Identifier: Apache-2.0
"""Issue 25 item 3: NVFP4 with one FP32 encode scale per row (``quantize(..., amax_scope="row")``, the spec key
``amax-scope=``, the CLI's ``--amax-scope``), against TE's row-scaled rule written again here in exact rationals
(Fraction) with this file's own RNE roundings to binary32, E4M3 and E2M1; no minifloat code. Derived from
TransformerEngine (d0067d0):
  reference_nvfp4.py:875-889  row_scaled_nvfp4: global_amax_row = max |x| over dim 1 (one per row; the columnwise
                              copy's rows are the input's columns)
  reference_nvfp4.py:709-730  S_enc[r] = min(fl32(448 · 6 / amax_r), FLT_MAX), 1 where that is 0; S_dec = fl32(1/S_enc)
  core_nvfp4.cuh:82-95        the kernel's S_enc: also 1 for amax_r = 0 (the library follows the kernel there)
  reference_nvfp4.py:748-775  block s = fl32(amax_b · fl32(S_enc · fl32(1/6))), min FLT_MAX, e4m3 (clamp ±448, RNE);
                              enc = min(fl32(1 / fl32(sf · S_dec)), FLT_MAX); q = e2m1(clamp(fl32(x · enc), ±6))
  quantize_transpose_nvfp4.cuh:711-738  the kernel's ROW_SCALED_NVFP4 branch: the same steps with the row's S_enc
"""
from fractions import Fraction as F

import numpy as np
import pytest

import minifloat as mf

FLT_MAX = F((2**24 - 1) * 2**104)


def rne(q: F, p: int, emin: int, vmax: F | None = None) -> F:
    """q rounded to nearest-even with p significand bits and minimum exponent emin; with vmax, saturated."""
    if q == 0:
        return F(0)
    s, a = (-1 if q < 0 else 1), abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while F(2) ** e > a:
        e -= 1
    while F(2) ** (e + 1) <= a:
        e += 1
    quantum = F(2) ** (max(e, emin) - (p - 1))
    n, r = divmod(a, quantum)
    n = int(n)
    if r > quantum / 2 or (r == quantum / 2 and n % 2 == 1):
        n += 1
    v = n * quantum
    if vmax is not None and v > vmax:
        v = vmax
    return s * v


def f32(q: F) -> F:
    return rne(q, 24, -126)


def e4m3(q: F) -> F:
    return rne(q, 4, -6, F(448))


E4M3_CODE = {}
for _c in range(0x7F):
    _e, _m = _c >> 3, _c & 7
    E4M3_CODE[(F(_m, 8) * F(2) ** -6) if _e == 0 else (1 + F(_m, 8)) * F(2) ** (_e - 7)] = _c
E2M1_CODE = {F(0): 0, F(1, 2): 1, F(1): 2, F(3, 2): 3, F(2): 4, F(3): 5, F(4): 6, F(6): 7}


def oracle(x: np.ndarray):
    """Per-row S_enc and S_dec, block scale codes, element codes and dequantized values of a 2-D float32 array
    (blocks of 16 along the last axis), TE's row-scaled order."""
    enc_r, dec_r, scodes, codes, deq = [], [], [], [], []
    for row in x:
        xs = [F(float(v)) for v in row]
        amax = max(abs(v) for v in xs)
        s_enc = F(1) if amax == 0 else min(f32(F(2688) / amax), FLT_MAX)
        s_dec = f32(1 / s_enc)
        enc_r.append(s_enc)
        dec_r.append(s_dec)
        mult = f32(s_enc * f32(F(1, 6)))
        srow, crow, drow = [], [], []
        for b in range(0, len(xs), 16):
            blk = xs[b:b + 16]
            sf = e4m3(min(f32(max(abs(v) for v in blk) * mult), FLT_MAX))
            srow.append(E4M3_CODE[sf])
            enc = FLT_MAX if sf == 0 else min(f32(1 / f32(sf * s_dec)), FLT_MAX)
            for j, v in enumerate(blk):
                y = max(min(f32(v * enc), F(6)), F(-6))
                qv = rne(y, 2, 0, F(6))
                neg = float(row[b + j]) < 0 or (float(row[b + j]) == 0 and np.signbit(row[b + j]))
                crow.append((8 if neg else 0) | E2M1_CODE[abs(qv)])
                drow.append(qv * sf * s_dec)
        scodes.append(srow)
        codes.append(crow)
        deq.append(drow)
    return enc_r, dec_r, scodes, codes, deq


def random_rows(seed: int, rows: int, cols: int) -> np.ndarray:
    """Rows of very different magnitudes (2^-20 .. 2^20), one all-zero row, some exact E2M1 multiples."""
    g = np.random.default_rng(seed)
    x = g.standard_normal((rows, cols)) * np.exp2(g.integers(-20, 21, size=(rows, 1)))
    x[1] = 0
    x[2, :16] = np.array([6, 4, 3, 2, 1.5, 1, 0.5, 0, -6, -4, -3, -2, -1.5, -1, -0.5, 0]) * 2.0**7
    return x.astype(np.float32)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rows_against_the_rational_oracle(seed):
    x = random_rows(seed, 7, 48)
    enc_r, dec_r, scodes, codes, deq = oracle(x)
    q = mf.quantize(x, "nvfp4", amax_scope="row")
    assert q.tensor_encode_scale.dtype == np.float32 and q.tensor_encode_scale.shape == (7,)
    assert [F(float(v)) for v in q.tensor_encode_scale] == enc_r
    assert [F(float(v)) for v in q.tensor_scale] == dec_r
    assert q.scales.tolist() == scodes
    assert q.codes.tolist() == codes
    assert [[F(float(v)) for v in row] for row in q.dequantize()] == deq
    assert enc_r[1] == 1  # the all-zero row: S_enc 1 (core_nvfp4.cuh:91-93)
    # the spec key gives the same bytes; axis="first" on the transpose gives the same per column
    s = mf.quantize(x, "e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row")
    assert s.codes.tobytes() == q.codes.tobytes() and s.scales.tobytes() == q.scales.tobytes()
    t = mf.quantize(np.ascontiguousarray(x.T), "nvfp4", amax_scope="row", axis="first")
    assert t.codes.T.tolist() == codes and t.scales.T.tolist() == scodes
    assert t.tensor_scale.tobytes() == q.tensor_scale.tobytes()


def test_row_scope_differs_from_tensor_scope():
    x = random_rows(4, 3, 32)
    q, t = mf.quantize(x, "nvfp4", amax_scope="row"), mf.quantize(x, "nvfp4")
    assert isinstance(t.tensor_scale, float) and q.tensor_scale.shape == (3,)
    assert q.scales.tobytes() != t.scales.tobytes()
    assert mf.quantize(x, "nvfp4", amax_scope="tensor").codes.tobytes() == t.codes.tobytes()


def test_oracle_tells_a_tensor_scope_apart():
    """The oracle is not vacuous: the tensor scope's scales disagree with it on rows of different magnitudes."""
    x = random_rows(5, 4, 16)
    _, _, scodes, _, _ = oracle(x)
    assert mf.quantize(x, "nvfp4").scales.tolist() != scodes


def test_bad_input():
    x = np.ones((2, 16), np.float32)
    with pytest.raises(ValueError, match="accepted: tensor, row"):
        mf.quantize(x, "nvfp4", amax_scope="rows")
    with pytest.raises(ValueError, match="amax-scope row applies to the nvfp4 rules"):
        mf.quantize(x, "mxfp4", amax_scope="row")
    with pytest.raises(ValueError, match="not with a given tensor-scale"):
        mf.quantize(x, "nvfp4", amax_scope="row", tensor_scale=64)
    with pytest.raises(ValueError, match="not with amax-scope row"):
        mf.quantize(x, "nvfp4", amax_scope="row", mx_quirks="torchao_0_18")
