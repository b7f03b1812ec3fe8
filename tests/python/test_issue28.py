# SPDX-License-Identifier: Apache-2.0
"""Issue 28 items 10-12 (what a new user hit in the Python package): exact rationals and huge ints in
encode_scalar, big-endian arrays, and the missing pieces of the API (``__version__``, block policies and
threads in ``quantize``, ``report(x, "all")``, format names for ``check(source=)``, NumPy/ml_dtypes dtypes in
``minifloat.hypothesis``, ml_dtypes scalars in ``encode_scalar``, a namespace without leaked imports).

The rounding oracle below is written from the format definitions (OCP OFP8 v1.0, OCP MX v1.0 §5.3) in
exact ``Fraction`` arithmetic and shares no code with minifloat.
"""
import pathlib
import random
import re
import sys
from fractions import Fraction

import numpy as np
import pytest

import minifloat as mf

ROOT = pathlib.Path(__file__).resolve().parents[2]

# name -> (exponent bits, mantissa bits, bias, largest finite magnitude code): the spec tables' facts.
FORMATS = {"e4m3fn": (4, 3, 7, 0x7e), "e5m2": (5, 2, 15, 0x7b), "e3m2fn": (3, 2, 3, 0x1f), "e2m1fn": (2, 1, 1, 0x7)}
MODES = ("rne", "rna", "rtz", "rtp", "rtn", "rto")


def oracle(v: Fraction, fmt: str, mode: str) -> int:
    """The satfinite code of the exact rational ``v`` in ``fmt`` rounded by ``mode`` (sign-magnitude)."""
    E, M, bias, max_code = FORMATS[fmt]
    sign = 1 if v < 0 else 0
    a = abs(v)
    if a == 0:
        return 0
    emin = 1 - bias
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, emin)
    q = a / Fraction(2) ** (e - M)  # a in units of the ulp of its binade
    lo = q.numerator // q.denominator
    rem = q - lo
    up = {"rne": rem > Fraction(1, 2) or (rem == Fraction(1, 2) and lo % 2 == 1),
          "rna": rem >= Fraction(1, 2), "rtz": False, "rtp": rem > 0 and not sign, "rtn": rem > 0 and bool(sign),
          "rto": rem > 0 and lo % 2 == 0}[mode]
    n = lo + (1 if up else 0)
    if n >= 2 ** (M + 1):
        n //= 2
        e += 1
    if n < 2**M:  # subnormal (e == emin) or zero
        mag = n
    else:
        mag = ((e + bias) << M) | (n - 2**M)
    mag = min(mag, max_code)  # satfinite
    return (sign << (E + M)) | mag


def test_oracle_knows_the_spec_facts():
    assert oracle(Fraction(448), "e4m3fn", "rne") == 0x7e
    assert oracle(Fraction(464), "e4m3fn", "rne") == 0x7e  # tie to even (T1)
    assert oracle(Fraction(-1, 2), "e4m3fn", "rne") == 0xb0
    assert oracle(Fraction(3, 2**10), "e4m3fn", "rne") == 0x02  # T6
    assert oracle(Fraction(57344), "e5m2", "rne") == 0x7b
    assert oracle(Fraction(5, 2), "e2m1fn", "rne") == 0b0100  # 2.5 ties to 2.0 (even)


def _rationals(rng: random.Random, count: int) -> list[Fraction]:
    out = [Fraction(1, 3), Fraction(-1, 3), Fraction(2, 3), Fraction(1, 7), Fraction(22, 7), Fraction(-355, 113)]
    for _ in range(count):
        num = rng.randint(1, 10**rng.randint(1, 30))
        den = rng.randint(1, 10**rng.randint(1, 30))
        scale = Fraction(2) ** rng.randint(-24, 18)
        out.append((-1 if rng.random() < 0.5 else 1) * Fraction(num, den) * scale)
    return out


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("mode", MODES)
def test_encode_scalar_rounds_any_fraction_exactly(fmt, mode):
    rng = random.Random(hash((fmt, mode)) & 0xFFFF)
    for v in _rationals(rng, 400):
        got = mf.encode_scalar(v, fmt, round=mode, overflow="satfinite")
        assert got == oracle(v, fmt, mode), (v, fmt, mode)


@pytest.mark.parametrize("mode", MODES)
def test_encode_scalar_fraction_ties_and_their_neighbours(mode):
    # every midpoint of e4m3fn, and the rationals 1/(3·2^40) either side of it
    tab = mf.table("e4m3fn")
    vals = sorted({Fraction(e) for e, c in zip(tab["exact"], tab["class"]) if c not in ("nan", "inf")})
    eps = Fraction(1, 3 * 2**40)
    for a, b in zip(vals, vals[1:]):
        for v in ((a + b) / 2, (a + b) / 2 + eps, (a + b) / 2 - eps):
            assert mf.encode_scalar(v, "e4m3fn", round=mode, overflow="satfinite") == oracle(v, "e4m3fn", mode)


def test_encode_scalar_huge_ints_and_fractions_as_the_cli():
    assert mf.encode_scalar(10**5000, "e4m3fn") == mf.encode_scalar("1e5000", "e4m3fn") == 0x7f
    assert mf.encode_scalar(-(10**5000), "e4m3fn", overflow="satfinite") == 0xfe
    assert mf.encode_scalar(10**5000, "e5m2") == 0x7c
    assert mf.encode_scalar(Fraction(1, 10**5000), "e4m3fn") == mf.encode_scalar("1e-5000", "e4m3fn") == 0
    assert mf.encode_scalar(Fraction(-1, 3**9000), "e4m3fn", round="rtn") == 0x81  # -min subnormal
    code, flags = mf.encode_scalar(2**100000 + 1, "e5m2", overflow="satfinite", flags=True)
    assert code == 0x7b and flags & mf.Flags.overflow
    assert mf.encode_scalar(2**64 + 1, "f64", round="rtp") == mf.encode_scalar("18446744073709551617", "f64",
                                                                                   round="rtp")


# ---- item 11: big-endian arrays ------------------------------------------------------------------
@pytest.mark.parametrize("dt", ["f2", "f4", "f8"])
def test_big_endian_float_arrays_equal_their_little_endian_result(dt):
    rng = np.random.default_rng(1)
    le = (rng.standard_normal(257) * 100).astype("<" + dt)
    be = le.astype(">" + dt)
    assert be.dtype.byteorder == ">"
    for fmt in ("e4m3fn", "e5m2", "bf16"):
        np.testing.assert_array_equal(mf.convert(be, fmt), mf.convert(le, fmt))
    np.testing.assert_array_equal(mf.convert(be[::3], "e4m3fn"), mf.convert(le[::3], "e4m3fn"))
    q_be, q_le = mf.quantize(be.reshape(1, -1)[:, :256], "mxfp8_e4m3"), mf.quantize(le.reshape(1, -1)[:, :256],
                                                                                    "mxfp8_e4m3")
    np.testing.assert_array_equal(q_be.codes, q_le.codes)
    np.testing.assert_array_equal(q_be.scales, q_le.scales)


def test_big_endian_code_arrays_equal_their_little_endian_result():
    le = np.arange(65536, dtype="<u2")
    be = le.astype(">u2")
    np.testing.assert_array_equal(mf.convert(be, "e4m3fn", source="bf16"), mf.convert(le, "e4m3fn", source="bf16"))
    np.testing.assert_array_equal(mf.decode(be, "bf16", dtype="float64"), mf.decode(le, "bf16", dtype="float64"))


# ---- item 12: the missing API ----------------------------------------------------------------------
def test_version_is_the_projects_one():
    cmake = re.search(r"project\(minifloat VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)
    pyproject = re.search(r'^version = "([0-9.]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert mf.__version__ == cmake == pyproject


def test_namespace_has_no_leaked_imports():
    public = {n for n in dir(mf) if not n.startswith("_")}
    for leaked in ("np", "os", "math", "enum", "numbers", "Fraction", "Any", "functools", "annotations"):
        assert leaked not in public, leaked
    # the package's own submodules (minifloat.hypothesis, minifloat.torch) appear once another test imports them
    submodules = {n for n in public if getattr(getattr(mf, n), "__name__", "") == f"minifloat.{n}"}
    assert submodules <= {"hypothesis", "torch"}, submodules
    assert public <= set(mf.__all__) | submodules, public - set(mf.__all__)


def test_quantize_takes_every_block_policy_field_and_threads():
    x = np.float32([[0.0] * 32, [1.0] * 31 + [np.nan]])
    q = mf.quantize(x, "mxfp8_e4m3", zero_block="unit_scale", nan_block="element_only")
    spec = mf.quantize(x, "e4m3fn/1x32/e8m0fnu:ocp_floor/zero-block=unit_scale/nan-block=element_only")
    np.testing.assert_array_equal(q.codes, spec.codes)
    np.testing.assert_array_equal(q.scales, spec.scales)
    assert q.scales[0, 0] == 127 and q.scales[1, 0] != 0xff  # unit scale; the NaN stays in its element
    d = mf.quantize(np.float32([[0.001, 3.0] * 64]), "fp8_1x128", fp32_order="divide", amax_epsilon=1e-3)
    np.testing.assert_array_equal(d.codes, mf.quantize(np.float32([[0.001, 3.0] * 64]),
                                                       "e4m3fn/1x128/f32:fp32_amax/fp32-order=divide/"
                                                       "amax-epsilon=0.001").codes)
    rng = np.random.default_rng(3)
    y = rng.standard_normal((64, 96)).astype(np.float32)
    one, many = mf.quantize(y, "mxfp4", threads=1), mf.quantize(y, "mxfp4", threads=7)
    np.testing.assert_array_equal(one.codes, many.codes)
    with pytest.raises(ValueError, match="zero_block.*accepted"):
        mf.quantize(x, "mxfp8_e4m3", zero_block="bogus")
    with pytest.raises(TypeError, match="zero_blok.*accepted.*zero_block"):
        mf.quantize(x, "mxfp8_e4m3", zero_blok="standard")


def test_quantize_mx_quirks():
    rng = np.random.default_rng(5)
    y = rng.standard_normal((4, 64)).astype(np.float32)
    a = mf.quantize(y, "nvfp4", mx_quirks="torchao_0_18")
    assert a.codes.shape == (4, 64)
    with pytest.raises(ValueError, match="mx_quirks"):
        mf.quantize(y, "nvfp4", mx_quirks="nope")


def test_report_all_is_every_named_scheme():
    x = np.random.default_rng(2).standard_normal((128, 128)).astype(np.float32)
    rows = mf.report(x, "all")
    assert [r["scheme"] for r in rows] == mf.schemes()


@pytest.mark.parametrize("source,dt", [("bf16", "bfloat16"), ("f32", "float32"), ("binary32", "float32"),
                                       ("f16", "float16"), ("f64", "float64")])
def test_check_source_takes_format_names(source, dt):
    pytest.importorskip("ml_dtypes")
    seen = []

    def kernel(x):
        seen.append(x.dtype.name)
        return mf.convert(x, "e4m3fn")

    assert mf.check(kernel, "e4m3fn", 2000, source=source)
    assert seen and seen[0] == dt


def test_check_source_refusal_names_what_is_accepted():
    with pytest.raises(ValueError, match="source.*accepted.*f32.*bf16"):
        mf.check(lambda x: x, "e4m3fn", 10, source="e4m3fn")


@pytest.mark.parametrize("scheme", ["mxfp8_e4m3", "mxfp4", "fp8_1x128", "e2m3fn/1x16/e8m0fnu:rceil"])
def test_check_takes_block_scheme_targets(scheme):
    def good(x):
        q = mf.quantize(x, scheme)
        return q.codes, q.scales[:, 0]

    r = mf.check(good, scheme, 512)
    assert r and r.tested > 0 and r.failed == 0, r.text

    def scale_one_high(x):  # writes every scale one binade (E8M0) / one bit pattern (FP32) too high
        q = mf.quantize(x, scheme)
        s = q.scales[:, 0]
        return q.codes, (s.view(np.uint32) + (1 << 23)).view(np.float32) if s.dtype == np.float32 else s + 1

    bad = mf.check(scale_one_high, scheme, 512)
    assert not bad and bad.failed > 0 and bad.minimal, bad.text


def test_check_block_target_refusals():
    with pytest.raises(ValueError, match="source"):
        mf.check(lambda x: x, "mxfp4", 16, source="f16")
    with pytest.raises(ValueError, match="packing"):
        mf.check(lambda x: x, "e4m3fn", 16, packing="fp4x2")
    with pytest.raises(TypeError, match="codes, scales"):
        mf.check(lambda x: x, "mxfp4", 16)


def test_hypothesis_strategies_take_numpy_and_ml_dtypes_dtypes():
    pytest.importorskip("hypothesis")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    import minifloat.hypothesis as mfh

    assert mfh.boundary_values("e4m3fn", np.float32) == mfh.boundary_values("e4m3fn", "float32")
    assert mfh.boundary_values("e4m3fn", np.dtype("float16")) == mfh.boundary_values("e4m3fn", "float16")
    bf = mfh.boundary_values("e4m3fn", ml_dtypes.bfloat16)
    assert bf == mfh.boundary_values("e4m3fn", "bfloat16")
    assert 448.0 in bf and all(float(ml_dtypes.bfloat16(v)) == v or v != v for v in bf)
    from hypothesis import given, settings

    @settings(max_examples=20, database=None)
    @given(mfh.arrays("e4m3fn", ml_dtypes.bfloat16), mfh.values("e4m3fn", np.dtype("float32")))
    def draws(a, v):
        assert a.dtype == np.dtype(ml_dtypes.bfloat16)
        assert isinstance(v, float)

    draws()
    with pytest.raises(ValueError, match="dtype.*accepted"):
        mfh.values("e4m3fn", np.int32)


def test_encode_scalar_takes_ml_dtypes_and_numpy_scalars():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert mf.encode_scalar(ml_dtypes.bfloat16(1.5), "e4m3fn") == mf.encode_scalar(1.5, "e4m3fn") == 0x3c
    assert mf.encode_scalar(ml_dtypes.float8_e5m2(-3.0), "e4m3fn") == mf.encode_scalar(-3.0, "e4m3fn")
    neg_nan = np.uint16(0xffc1).view(ml_dtypes.bfloat16)
    assert mf.encode_scalar(neg_nan, "e4m3fn") == 0xff
    assert mf.encode_scalar(np.float16(0.1), "e5m2") == mf.encode_scalar(float(np.float16(0.1)), "e5m2")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


# ---- item 12: dot-product targets in check() (the CLI's probe gen --model) -----------------------------------

def _exact_dot_kernel(fmt):
    """d = Σ a·b + c summed exactly (Fractions) and rounded once to float32 (encode_scalar of the Fraction):
    the `exact` accumulation model written from its definition. Oracle of the plumbing, not of dot()."""
    vals = [mf.decode_scalar(i, fmt) for i in range(256)]
    neg = [mf.decode_scalar(i, fmt, as_="str").startswith("-") for i in range(256)]

    def kernel(a, b, c):
        out = np.empty(a.shape[0], dtype=np.uint32)
        for r in range(a.shape[0]):
            terms, signs, special = [], [], False
            for x, y in zip(a[r].tolist(), b[r].tolist()):
                if isinstance(vals[x], float) or isinstance(vals[y], float):
                    special = True
                    break
                terms.append(vals[x] * vals[y])
                signs.append(neg[x] != neg[y])
            cv = float(c[r])
            if special or np.isnan(cv):
                out[r] = 0x7FC00000  # NaN (nan="any" below)
                continue
            if np.isinf(cv):  # finite products + ±Inf (e4m3fn operands have no Inf)
                out[r] = np.float32(cv).view(np.uint32)
                continue
            terms.append(Fraction(cv))
            signs.append(np.signbit(c[r]))
            total = sum(terms, Fraction(0))
            if total == 0:
                out[r] = 0x80000000 if all(s for t, s in zip(terms, signs)) else 0
            else:
                out[r] = mf.encode_scalar(total, "f32")
        return out

    return kernel


def test_check_takes_dot_targets_and_passes_an_exact_kernel():
    rep = mf.check(_exact_dot_kernel("e4m3fn"), "dot:exact", 600, a="e4m3fn", k=8, nan="any")
    assert rep.ok, rep.text
    assert rep.tested >= 600 and "dot k=8 e4m3fn x e4m3fn" in rep.target


def test_check_dot_target_fails_and_names_a_float32_chain():
    def f32_chain(a, b, c):  # sequential binary32 multiply-add: the `fp32` model's bug class, not `exact`
        va = np.array([float(mf.decode_scalar(i, "e4m3fn", as_="float")) for i in range(256)], dtype=np.float32)
        acc = c.astype(np.float32).copy()
        with np.errstate(all="ignore"):
            for lane in range(a.shape[1]):
                acc = (acc + va[a[:, lane]] * va[b[:, lane]]).astype(np.float32)
        return acc

    rep = mf.check(f32_chain, "dot:exact", 2000, k=16, nan="any")
    assert not rep.ok
    assert rep.minimal and all(m["got"] != m["expected"] for m in rep.minimal)
    # e4m3fn products are exact in binary32, so the chain is the `fp32` model (an f32 FMA chain) exactly
    assert rep.diagnosis.startswith('agrees with "fp32" on 100%'), rep.diagnosis


def test_check_dot_target_refusals():
    k = _exact_dot_kernel("e4m3fn")
    with pytest.raises(ValueError, match="target"):
        mf.check(k, "dot:no-such-model", 10)
    with pytest.raises(ValueError, match="k:"):
        mf.check(k, "dot:exact", 10, k=0)
    with pytest.raises(ValueError, match="do not apply"):
        mf.check(k, "dot:exact", 10, round="rtz")
    with pytest.raises(ValueError, match="apply to dot-product targets"):
        mf.check(k, "e4m3fn", 10, k=8)
