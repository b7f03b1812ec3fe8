# SPDX-License-Identifier: Apache-2.0
"""Issue 25 items 5 and 6 in Python: ``round="rnz"``, ``sr=dict(variant="stochastic_odd")``, ``bits`` up to
64 and ``ftz=``/``daz=`` on ``convert`` and ``quantize``, against values derived by hand and an independent
exact-rational reimplementation of the rules (sharing no code with minifloat):

- rnz: CPFloat CPFLOAT_RND_NZ; DeepGEMM's FP4 cast (deep_gemm/utils/math.py:73-82 at 54e2261);
- stochastic_odd: gfloat src/gfloat/round.py:151-154 (StochasticOdd: _rnito(delta * 2**N) + srbits >= 2**N),
  _rnito = nearest integer, ties to odd (round.py:32-34), at b142762.
"""
from fractions import Fraction
import math

import numpy as np
import pytest

import minifloat as mf


def e4m3fn_down_up(v: Fraction) -> tuple[int, int, Fraction]:
    """(code toward zero, code away, nu) of a positive normal v < 448 in e4m3fn (E4, M3, bias 7)."""
    e = math.floor(math.log2(v))
    while Fraction(2) ** e > v:
        e -= 1
    while Fraction(2) ** (e + 1) <= v:
        e += 1
    q = Fraction(2) ** (e - 3)
    i = math.floor(v / q)
    nu = v / q - i
    code = ((e + 7) << 3) | (i - 8)
    return code, code + 1, nu


def rno(t: Fraction) -> int:
    f = math.floor(t)
    if t - f > Fraction(1, 2) or (t - f == Fraction(1, 2) and f % 2 == 0):
        return f + 1
    return f


def test_rnz_hand_values():
    x = np.array([1.1875, -1.1875, 1.3125, 61440.0], np.float64)
    assert mf.convert(x[:3], "e4m3fn", round="rnz").tolist() == [0x39, 0xb9, 0x3a]
    assert mf.convert(x[:3], "e4m3fn").tolist() == [0x3a, 0xba, 0x3a]
    assert int(mf.convert(x[3:], "e5m2", round="rnz")[0]) == 0x7b  # the tie above max stays max
    mids = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0])
    assert mf.convert(mids, "e2m1fn", round="rnz", overflow="satfinite").tolist() == list(range(7))


def test_stochastic_odd_against_exact_reimplementation():
    rng = np.random.default_rng(5)
    vals = [Fraction(1) + Fraction(k, 2048) for k in range(256)] + [Fraction(3) + Fraction(k, 512) for k in range(64)]
    x = np.array([float(v) for v in vals], np.float64)
    for n in (1, 2, 3, 8, 33, 64):
        sr = dict(seed=int(rng.integers(0, 2**63)), variant="stochastic_odd", bits=n)
        got = mf.convert(x, "e4m3fn", round="sr", sr=sr)
        words = mf.sr_bits(sr["seed"], 0, 0, len(x), "stochastic_odd", bits=n)
        for i, v in enumerate(vals):
            down, up, nu = e4m3fn_down_up(v)
            r = int(words[i]) & ((1 << n) - 1)
            want = down if nu == 0 else (up if rno(nu * 2**n) + r >= 2**n else down)
            assert int(got[i]) == want, (float(v), n, r)


def test_sr_bits_layout_and_range():
    a = mf.sr_bits(9, 1, 2, 6, "A", bits=40)
    assert a.tolist() == mf.sr_bits(9, 1, 2, 6, "exact").tolist()  # two words, low first, as exact
    assert mf.sr_bits(9, 1, 2, 6, "A", bits=32).tolist() == mf.sr_bits(9, 1, 2, 6, "A").tolist()
    with pytest.raises(ValueError, match=r"0 is out of range; accepted: 1\.\.64"):
        mf.convert(np.float32([1.0]), "e4m3fn", round="sr", sr=dict(seed=1, variant="A", bits=0))
    with pytest.raises(ValueError, match=r"65 is out of range; accepted: 1\.\.64"):
        mf.convert(np.float32([1.0]), "e4m3fn", round="sr", sr=dict(seed=1, variant="C", bits=65))
    with pytest.raises(ValueError, match=r"bits: 65 is out of range; accepted: 1\.\.64"):
        mf.sr_bits(9, 1, 2, 6, "A", bits=65)


def test_ftz_daz_hand_values():
    x = np.float32([0.01, -0.01, 0.0155, 1.0])
    assert mf.convert(x, "e4m3fn").tolist() == [0x05, 0x85, 0x08, 0x38]
    assert mf.convert(x, "e4m3fn", ftz=True).tolist() == [0x00, 0x80, 0x08, 0x38]
    e5 = np.float64([3 * 2.0**-16, -3 * 2.0**-16])
    assert mf.convert(e5, "e5m2", ftz=True).tolist() == [0x00, 0x80]
    sub = np.array([0x00400000, 0x80400000], np.uint32).view(np.float32)  # 2^-127: a bf16 subnormal
    assert mf.convert(sub, "bf16").tolist() == [0x0040, 0x8040]
    assert mf.convert(sub, "bf16", ftz=True).tolist() == [0x0000, 0x8000]
    assert mf.convert(sub, "bf16", daz=True).tolist() == [0x0000, 0x8000]
    codes = np.uint8([0x01, 0x81, 0x08])
    assert mf.convert(codes, "bf16", source="e4m3fn").tolist() == [0x3b00, 0xbb00, 0x3c80]
    assert mf.convert(codes, "bf16", source="e4m3fn", daz=True).tolist() == [0x0000, 0x8000, 0x3c80]
    with pytest.raises(TypeError, match="ftz: expected True or False"):
        mf.convert(x, "e4m3fn", ftz=1)
    s = mf.RoundingSpec("rnz", "nonsat", ftz=True)
    assert s.ftz and not s.daz and "ftz=True" in repr(s)
    assert repr(mf.RoundingSpec()) == "RoundingSpec(round='rne', overflow='nonsat', sr_variant='exact', sr_bits=8)"


def test_quantize_ftz_daz():
    x = np.zeros(32, np.float32)
    x[:3] = [448.0, 0.01, -0.01]
    assert mf.quantize(x, "mxfp8_e4m3").codes[:3].tolist() == [0x7e, 0x05, 0x85]
    assert mf.quantize(x, "mxfp8_e4m3", ftz=True).codes[:3].tolist() == [0x7e, 0x00, 0x80]
    tiny = np.full(32, 1e-40, np.float32)
    assert mf.quantize(tiny, "mxfp8_e4m3").codes[0] != 0
    assert mf.quantize(tiny, "mxfp8_e4m3", daz=True).codes.tolist() == [0] * 32


def test_check_takes_ftz_daz():
    """check(ftz=, daz=) (issue 25 item 6, as `probe gen --ftz/--daz`): the reference flushes as the kernel does.
    A kernel that flushes (mf.convert(..., ftz=True)) passes check(ftz=True) and fails plain check(); e2m1fn's
    subnormal 0.5 (min normal 1) is the hand case: 0.5 -> 0x1, with ftz 0x0."""
    assert mf.convert(np.array([0.5], np.float32), "e2m1fn").tolist() == [0x1]
    assert mf.convert(np.array([0.5], np.float32), "e2m1fn", ftz=True).tolist() == [0x0]
    for flag, fmt in (("ftz", "e2m1fn"), ("daz", "bf16")):  # daz: f32 subnormals are bf16 subnormals
        k = lambda x, f=flag, t=fmt: mf.convert(x, t, **{f: True})  # noqa: E731
        assert mf.check(k, fmt, 2000, **{flag: True})
        assert not mf.check(k, fmt, 2000, diagnose=False)
    blk = lambda x: ((q := mf.quantize(x, "mxfp4", daz=True)).codes, q.scales[:, 0])  # noqa: E731
    assert mf.check(blk, "mxfp4", 300, daz=True)
    assert not mf.check(blk, "mxfp4", 300, diagnose=False)
    with pytest.raises(ValueError, match="ftz, daz: apply to format and block-scheme targets"):
        mf.check(lambda a, b, c: c, "dot:fp32", 8, ftz=True)
    with pytest.raises(TypeError, match="ftz"):
        mf.check(k, "e2m1fn", 8, ftz="yes")


def test_rnu_ties_toward_plus_infinity():
    """round="rnu" (issue 25 item 5): AMD Quark's DPU_ROUND, dpu_round(x) = (x < 0 and x - floor(x) == 0.5) ? ceil(x)
    : round(x) (amd/Quark 1d27b55 quark/onnx/operators/custom_ops/src/bfp/cpu/bfp_kernel.cc:34-36). Applied by hand
    to the e2m1fn grid (0 0.5 1 1.5 2 3 4 6) in units where the ties are integers+0.5: -2.5 -> -2, 2.5 -> 3."""
    x = np.array([-2.5, 2.5, -0.25, 0.25, -5.0, 5.0], np.float32)
    assert mf.convert(x, "e2m1fn", round="rnu", overflow="satfinite").tolist() == [0xC, 0x5, 0x8, 0x1, 0xE, 0x7]
    assert mf.convert(x, "e2m1fn", round="rna", overflow="satfinite").tolist() == [0xD, 0x5, 0x9, 0x1, 0xF, 0x7]
    with pytest.raises(ValueError, match="rnd"):
        mf.convert(x, "e2m1fn", round="rnd")
