# SPDX-License-Identifier: Apache-2.0
"""Hypothesis properties over minifloat.hypothesis' boundary-biased strategies.

Oracle for rne + satfinite: round to nearest computed in this file with exact Fractions over the
format's code table (nearest finite value, ties to the even code, beyond max -> max), sharing no
code with the rounding engine. The strategies themselves are checked to contain the ties.
"""
import bisect
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minifloat as mf
import minifloat.hypothesis as mfh

from hypothesis.extra import numpy as hnp

SHAPES = hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=12)
SIGNED_ZERO_FORMATS = ["e4m3fn", "e5m2", "e2m1fn", "e3m2fn", "e2m3fn", "e4m3", "e3m4"]


class Nearest:
    """rne + satfinite into a sign-magnitude format with -0, by exact search over its positive codes."""

    def __init__(self, fmt):
        info = mf.format_info(fmt)
        self.sign = 1 << (info["bits"] - 1)
        t = mf.table(fmt)
        self.pos = [(Fraction(e), int(c)) for e, c, k in zip(t["exact"], t["code"], t["class"])
                    if k in ("zero", "subnormal", "normal") and int(c) < self.sign]
        self.pos.sort()
        self.max_code = self.pos[-1][1]
        self.nan = [int(c) for c, k in zip(t["code"], t["class"]) if k == "nan"]
        self.values = [v for v, _ in self.pos]

    def code(self, x: float) -> int:
        if math.isnan(x):  # a NaN code; into a format without NaN +max (ocp profile, spec-digest D4)
            return -1 if self.nan else self.max_code
        s = self.sign if math.copysign(1.0, x) < 0 else 0
        if math.isinf(x):
            return s | self.max_code
        a = Fraction(abs(x))
        i = bisect.bisect_left(self.values, a)
        if i == len(self.values):
            return s | self.max_code
        if i == 0 or self.values[i] == a:
            return s | self.pos[i][1]
        (lo, clo), (hi, chi) = self.pos[i - 1], self.pos[i]
        if a - lo != hi - a:
            return s | (clo if a - lo < hi - a else chi)
        return s | (clo if clo % 2 == 0 else chi)


ORACLES = {f: Nearest(f) for f in SIGNED_ZERO_FORMATS}


@pytest.mark.parametrize("fmt", SIGNED_ZERO_FORMATS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rne_satfinite_is_nearest(fmt, dtype):
    oracle = ORACLES[fmt]

    @given(mfh.arrays(fmt, dtype=dtype, shape=SHAPES))
    def check(x):
        got = mf.convert(x, fmt, overflow="satfinite").reshape(-1).tolist()
        for v, c in zip(x.reshape(-1).tolist(), got):
            want = oracle.code(v)
            if want == -1:
                assert c in oracle.nan, (v, hex(c))
            else:
                assert c == want, (fmt, v.hex(), hex(c), hex(want))

    check()


@pytest.mark.parametrize("fmt", ["e4m3fn", "e8m0fnu", "ue4m3", "Binary8p3se", "e2m1fn", "bf16"])
def test_boundary_values_hold_every_tie_and_its_neighbours(fmt):
    vals = set(mfh.boundary_values(fmt, "float64"))
    info = mf.format_info(fmt)
    assert float(info["max"]) in vals and -float(info["max"]) in vals
    assert float(info["min_normal"]) in vals
    t = mf.table(fmt)
    pos = sorted({Fraction(e) for e, k in zip(t["exact"], t["class"]) if k in ("subnormal", "normal", "zero")
                  and not e.startswith("-")})
    for a, b in list(zip(pos, pos[1:]))[:: max(1, len(pos) // 64)]:
        m = float((a + b) / 2)
        assert m in vals and np.nextafter(m, np.inf) in vals and np.nextafter(m, -np.inf) in vals
    assert any(math.isnan(v) for v in vals) and math.inf in vals and -math.inf in vals


@given(st.data())
def test_scalar_and_array_paths_agree(data):
    fmt = data.draw(st.sampled_from(["e4m3fn", "e5m2fnuz", "e8m0fnu", "e2m1fn", "Binary8p4ue", "ue4m3"]))
    rnd = data.draw(st.sampled_from(["rne", "rna", "rtz", "rtp", "rtn", "rto"]))
    ovf = data.draw(st.sampled_from(["nonsat", "satfinite", "satpropagate"]))
    prof = data.draw(st.sampled_from(["ocp", "nvidia", "ml_dtypes", "p3109"]))
    x = data.draw(mfh.arrays(fmt, dtype="float64", shape=SHAPES))
    got = mf.convert(x, fmt, round=rnd, overflow=ovf, profile=prof if prof != "ml_dtypes" else "ocp")
    want = [mf.encode_scalar(float(v), fmt, round=rnd, overflow=ovf, profile=prof if prof != "ml_dtypes" else "ocp")
            for v in x.reshape(-1)]
    assert got.reshape(-1).tolist() == want


@given(mfh.codes("e4m3fn"))
def test_decode_then_convert_is_identity_on_codes(code):
    v = mf.decode(np.uint8([code]), "e4m3fn", dtype="float64")
    back = int(mf.convert(v, "e4m3fn")[0])
    assert back == code or (code & 0x7F == 0x7F and back & 0x7F == 0x7F)
