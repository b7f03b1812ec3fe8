# SPDX-License-Identifier: Apache-2.0
"""minifloat.dot / minifloat.gemm (issue 26 items 2 and 3): mixed operand formats, one C per result,
operand_round, NumPy and torch inputs.

Oracles: the tcgen05 FP8 and mxf8f6f4 presets against the MPFR oracle tests/arith/tfdpa_oracle.cpp
(through its filter minifloat_tfdpa_oracle, env MINIFLOAT_TFDPA_ORACLE; it shares no code with the
library); the exact model against an exact-rational sum written here (Fraction; codes decoded from
their bit fields, the sum rounded once to f32 by hand); the other presets against the CLI's `dot` on
the same inputs (the CLI is checked against the MPFR oracle in ctest arith.dot_cli); hand-derived
values (arithmetic in the comments).
"""
import os
import subprocess
import tempfile
from fractions import Fraction

import numpy as np
import pytest

import minifloat as mf

# ---- an independent decoder and f32 rounding ---------------------------------------------------------------------

FIELDS = {"e4m3fn": (4, 3, 7), "e5m2": (5, 2, 15), "e2m1fn": (2, 1, 1)}  # (exponent bits, mantissa bits, bias)


def decode(code: int, fmt: str) -> Fraction:
    """Value of a finite code of an OCP FP8/FP4 format from its fields (OCP OFP8 v1.0, OCP MX v1.0 §5.3.3)."""
    e, m, bias = FIELDS[fmt]
    sign = -1 if (code >> (e + m)) & 1 else 1
    ef, mf_ = (code >> m) & ((1 << e) - 1), code & ((1 << m) - 1)
    if ef == 0:
        return sign * Fraction(mf_, 1 << m) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(mf_, 1 << m)) * Fraction(2) ** (ef - bias)


def f32_bits_rne(x: Fraction) -> int:
    """IEEE binary32 roundTiesToEven of an exact rational, as bits (overflow to Inf; +0 for an exact 0)."""
    if x == 0:
        return 0
    sign = 0x80000000 if x < 0 else 0
    x = abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    e = max(e, -126)  # subnormals share emin's quantum 2^-149
    q = Fraction(2) ** (e - 23)
    n, rem = divmod(x / q, 1)
    n = int(n)
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
        n += 1
    if n == 1 << 24:
        n, e = 1 << 23, e + 1
    if e > 127:
        return sign | 0x7F800000
    if n < 1 << 23:  # subnormal
        return sign | n
    return sign | ((e + 127) << 23) | (n - (1 << 23))


def f32_value(bits: int) -> Fraction:
    return Fraction(float(np.uint32(bits).view(np.float32)))


def random_codes(rng, fmt, shape):
    bits = {"e4m3fn": 8, "e5m2": 8, "e2m1fn": 4}[fmt]
    c = rng.integers(0, 1 << bits, size=shape, dtype=np.uint8)
    if fmt == "e4m3fn":
        c[(c & 0x7F) == 0x7F] = 0x3F  # no NaN
    if fmt == "e5m2":
        c[((c >> 2) & 0x1F) == 0x1F] = 0x3C  # no Inf/NaN
    return c


def random_c(rng, shape):
    v = (rng.standard_normal(shape) * 2.0 ** rng.integers(-8, 8, size=shape)).astype(np.float32)
    v[rng.random(shape) < 0.15] = 0
    return v


# ---- mixed formats and a C per result ----------------------------------------------------------------------------

@pytest.mark.parametrize("fa,fb,seed", [("e4m3fn", "e5m2", 1), ("e5m2", "e4m3fn", 2), ("e2m1fn", "e4m3fn", 3)])
def test_exact_model_mixed_formats_and_c_matrix_match_rational_oracle(fa, fb, seed):
    rng = np.random.default_rng(seed)
    m, k, n = 4, 24, 3
    A, B, C = random_codes(rng, fa, (m, k)), random_codes(rng, fb, (k, n)), random_c(rng, (m, n))
    got = mf.gemm(A, B, model="exact", format=fa, format_b=fb, c=C)
    assert got.shape == (m, n) and got.dtype == np.float32
    for i in range(m):
        for j in range(n):
            s = sum(decode(int(A[i, p]), fa) * decode(int(B[p, j]), fb) for p in range(k))
            want = f32_bits_rne(s + f32_value(int(C.view(np.uint32)[i, j])))
            assert int(got.view(np.uint32)[i, j]) == want, (i, j, hex(want))


@pytest.fixture(scope="module")
def oracle():
    path = os.environ.get("MINIFLOAT_TFDPA_ORACLE")
    if not path or not os.path.exists(path):
        pytest.skip("MINIFLOAT_TFDPA_ORACLE is not set (ctest sets it: tests/arith minifloat_tfdpa_oracle)")
    return path


# The documented parameters of the presets (include/minifloat/core/tfdpa.hpp mma_models::
# blackwell_tcgen05_fp8_unvalidated: L = 32, F = 25, RZ to FP32, zero exponent -133, no scales (unit UE8M0
# 127 here); blackwell_tcgen05_mxf8f6f4_unvalidated: the same with zero exponent -126 and a UE8M0 scale per 32
# lanes entering each product's exponent), as the oracle's (rule, L, F, zero exponent, scale block, subblock,
# scale format).
ORACLE_MODELS = {
    "blackwell-tcgen05-fp8-unvalidated": ("product", 32, 25, -133, 32, 0, "e8m0fnu"),
    "blackwell-tcgen05-mxf8f6f4-unvalidated": ("product", 32, 25, -126, 32, 0, "e8m0fnu"),
}


def oracle_gemm(oracle, model, fa, fb, A, B, C, SA, SB):
    """The MPFR oracle (tests/arith/tfdpa_oracle.cpp) on every (i, j): FP32 codes, row-major."""
    (m, k), n = A.shape, B.shape[1]
    head = " ".join(str(x) for x in ORACLE_MODELS[model])
    lines = []
    for i in range(m):
        for j in range(n):
            cols = [*A[i], *B[:, j], *SA[i], *SB[:, j]]
            lines.append(f"{head} {fa} {fb} {k} {int(C.view(np.uint32)[i, j])} {SA.shape[1]} "
                         + " ".join(str(int(x)) for x in cols))
    r = subprocess.run([oracle], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    return [int(x, 16) for x in r.stdout.split()]


@pytest.mark.parametrize("model,fa,fb,seed", [("blackwell-tcgen05-fp8-unvalidated", "e4m3fn", "e5m2", 21),
                                              ("blackwell-tcgen05-fp8-unvalidated", "e5m2", "e4m3fn", 22),
                                              ("blackwell-tcgen05-mxf8f6f4-unvalidated", "e2m1fn", "e4m3fn", 23),
                                              ("blackwell-tcgen05-mxf8f6f4-unvalidated", "e4m3fn", "e5m2", 24)])
def test_mixed_formats_and_c_matrix_match_the_mpfr_oracle(oracle, model, fa, fb, seed):
    rng = np.random.default_rng(seed)
    m, k, n = 3, 64, 4
    A, B, C = random_codes(rng, fa, (m, k)), random_codes(rng, fb, (k, n)), random_c(rng, (m, n))
    scaled = "mx" in model
    SA = rng.integers(121, 134, size=(m, 2), dtype=np.uint8) if scaled else np.full((m, 2), 127, np.uint8)
    SB = rng.integers(121, 134, size=(2, n), dtype=np.uint8) if scaled else np.full((2, n), 127, np.uint8)
    kw = dict(scale_a=SA, scale_b=SB) if scaled else {}
    want = oracle_gemm(oracle, model, fa, fb, A, B, C, SA, SB)
    got = mf.gemm(A, B, model=model, format=fa, format_b=fb, c=C, **kw)
    assert [int(x) for x in got.view(np.uint32).reshape(-1)] == want
    # the same values as float32 arrays, rounded into the formats (exactly) by the default operand_round
    Af = np.float32([[float(decode(int(x), fa)) for x in row] for row in A])
    got_f = mf.gemm(Af, B, model=model, format=fa, format_b=fb, c=C, **kw)
    assert [int(x) for x in got_f.view(np.uint32).reshape(-1)] == want


def cli_dot(cli, tmp, A, B, C, model, fa, fb, sa=None, sb=None, extra=()):
    paths = {}
    for name, arr in (("a", A), ("b", B), ("c", C), ("sa", sa), ("sb", sb)):
        if arr is not None:
            paths[name] = os.path.join(tmp, name + ".npy")
            np.save(paths[name], arr)
    cmd = [cli, "dot", "--model", model, "--format", fa, "--format-b", fb, "--a", paths["a"], "--b", paths["b"],
           *extra]
    if C is not None:
        cmd += ["--c", paths["c"]]
    if sa is not None:
        cmd += ["--scale-a", paths["sa"], "--scale-b", paths["sb"]]
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return [int(line.split()[2], 16) for line in r.stdout.splitlines()]


@pytest.mark.parametrize("model,fa,fb", [("hopper-fp8", "e4m3fn", "e5m2"), ("blackwell-fp8", "e5m2", "e4m3fn"),
                                         ("blackwell-tcgen05-fp8-unvalidated", "e4m3fn", "e5m2"),
                                         ("hopper-fp8+blocked32", "e4m3fn", "e5m2")])
def test_tensor_core_presets_equal_the_cli(cli, model, fa, fb):
    rng = np.random.default_rng(7)
    A, B, C = random_codes(rng, fa, (3, 64)), random_codes(rng, fb, (64, 4)), random_c(rng, (3, 4))
    got = mf.gemm(A, B, model=model, format=fa, format_b=fb, c=C)
    with tempfile.TemporaryDirectory() as tmp:
        want = cli_dot(cli, tmp, A, B, C, model, fa, fb)
    assert [int(x) for x in got.view(np.uint32).reshape(-1)] == want


def test_block_scaled_mixed_formats_equal_the_cli(cli):
    rng = np.random.default_rng(8)
    model = "blackwell-tcgen05-mxf8f6f4-unvalidated"
    A, B, C = random_codes(rng, "e2m1fn", (2, 64)), random_codes(rng, "e4m3fn", (64, 3)), random_c(rng, (2, 3))
    sa = rng.integers(120, 134, size=(2, 2), dtype=np.uint8)
    sb = rng.integers(120, 134, size=(2, 3), dtype=np.uint8)
    got = mf.gemm(A, B, model=model, format="e2m1fn", format_b="e4m3fn", c=C, scale_a=sa, scale_b=sb)
    with tempfile.TemporaryDirectory() as tmp:
        want = cli_dot(cli, tmp, A, B, C, model, "e2m1fn", "e4m3fn", sa, sb)
    assert [int(x) for x in got.view(np.uint32).reshape(-1)] == want


def test_hand_derived_mixed_formats():
    # A e4m3fn [[1.5, 2], [1, -1]] (0x3c 0x40 0x38 0xb8), B e5m2 [[0.5], [3]] (0x38 = 2^-1, 0x42 = 1.1b·2^1),
    # C [[0.25], [1]]: 1.5·0.5 + 2·3 + 0.25 = 7; 1·0.5 − 1·3 + 1 = −1.5.
    A = np.array([[0x3C, 0x40], [0x38, 0xB8]], dtype=np.uint8)
    B = np.array([[0x38], [0x42]], dtype=np.uint8)
    C = np.float32([[0.25], [1]])
    for model in ("exact", "hopper-fp8"):
        np.testing.assert_array_equal(mf.gemm(A, B, model=model, format="e4m3fn", format_b="e5m2", c=C),
                                      np.float32([[7], [-1.5]]))
    # float inputs rounded into the formats (exact here), vectors, a scalar C as text: 0.75 + 6 + 0.125
    d = mf.dot(np.float32([1.5, 2]), np.float32([0.5, 3]), model="exact", format="e4m3fn", format_b="e5m2",
               c="0x1p-3")
    assert d.shape == () and float(d) == 6.875


def test_c_in_the_accumulators_format():
    # hopper-fp8-f16-unvalidated takes an f16 C: 1·2 + 1.5 = 3.5 (f16 0x4300), returned as float32
    d = mf.gemm(np.array([[0x38]], np.uint8), np.array([[0x40]], np.uint8), model="hopper-fp8-f16-unvalidated",
                format="e4m3fn", format_b="e5m2", c=np.float16([[1.5]]))
    assert d.dtype == np.float32 and float(d[0, 0]) == 3.5
    # dmma-f64-unvalidated takes an f64 C whole: 2^-40·1 + (1 + 2^-40) = 1 + 2^-39; a scalar C goes through f32 (1)
    a, b = np.float64([[2.0 ** -40]]), np.float64([[1.0]])
    assert mf.gemm(a, b, model="dmma-f64-unvalidated", c=np.float64([[1 + 2.0 ** -40]]))[0, 0] == 1 + 2.0 ** -39
    assert mf.gemm(a, b, model="dmma-f64-unvalidated", c=1 + 2.0 ** -40)[0, 0] == 1 + 2.0 ** -40


# ---- operand_round ------------------------------------------------------------------------------------------------

# f32 bits into tf32 (the f32 code's top 19 bits), times 1 under the exact model (derivation in
# tests/arith/dot_cli_test.cpp OperandRoundHandDerivedBits): Inf, 0x3f801fff, the tie 0x3f801000, max f32, NaN,
# and 0x7f800001 (a NaN whose payload is only in the low 13 bits).
TF32_IN = [0x7F800000, 0x3F801FFF, 0x3F801000, 0x7F7FFFFF, 0x7FC00000, 0x7F800001]
TF32_OUT = {
    "satfinite": [0x7F7FE000, 0x3F802000, 0x3F800000, 0x7F7FE000, 0x7FC00000, 0x7FC00000],
    "cvt": [0x7F800000, 0x3F802000, 0x3F802000, 0x7F800000, 0x7FC00000, 0x7FC00000],
    "truncate": [0x7F800000, 0x3F800000, 0x3F800000, 0x7F7FE000, 0x7FC00000, 0x7F800000],
}


@pytest.mark.parametrize("how", sorted(TF32_OUT))
def test_operand_round_tf32_hand_derived_bits(how):
    a = np.array(TF32_IN, dtype=np.uint32).view(np.float32).reshape(-1, 1)
    d = mf.gemm(a, np.float32([[1]]), model="exact", format="tf32", operand_round=how)
    assert [int(x) for x in d.view(np.uint32).reshape(-1)] == TF32_OUT[how]


def test_operand_round_default_is_satfinite_and_equals_the_cli(cli):
    a = np.array(TF32_IN, dtype=np.uint32).view(np.float32).reshape(-1, 1)
    d = mf.gemm(a, np.float32([[1]]), model="exact", format="tf32")
    assert [int(x) for x in d.view(np.uint32).reshape(-1)] == TF32_OUT["satfinite"]
    with tempfile.TemporaryDirectory() as tmp:
        for how in TF32_OUT:
            want = cli_dot(cli, tmp, a, np.float32([[1]]), None, "ampere-tf32", "tf32", "tf32",
                           extra=("--operand-round", how))
            got = mf.gemm(a, np.float32([[1]]), model="ampere-tf32", format="tf32", operand_round=how)
            assert [int(x) for x in got.view(np.uint32).reshape(-1)] == want, how


# ---- refusals -----------------------------------------------------------------------------------------------------

def test_refusals_name_what_was_given_and_what_is_accepted():
    A = np.array([[0x3C, 0x40]], dtype=np.uint8)
    B = np.array([[0x38], [0x42]], dtype=np.uint8)
    kw = dict(model="hopper-fp8", format="e4m3fn", format_b="e5m2")
    with pytest.raises(ValueError, match=r"c: dtype float64 and shape \(1, 1\) are not accepted for model "
                                         r"'hopper-fp8'; accepted: a number, or float32 \(f32, its accumulator\) "
                                         r"of shape \(1, 1\)"):
        mf.gemm(A, B, c=np.float64([[1]]), **kw)
    with pytest.raises(ValueError, match=r"c: dtype float32 and shape \(2, 2\)"):
        mf.gemm(A, B, c=np.float32([[1, 2], [3, 4]]), **kw)
    with pytest.raises(ValueError, match=r"accepted: a number, or float16 \(f16"):
        mf.gemm(A, B, c=np.float32([[1]]), model="hopper-fp8-f16-unvalidated", format="e4m3fn", format_b="e5m2")
    with pytest.raises(ValueError, match="format_b: unknown format 'fp7'"):
        mf.gemm(A, B, model="hopper-fp8", format="e4m3fn", format_b="fp7")
    with pytest.raises(ValueError, match=r"format_b: model 'hopper-fp8' multiplies e4m3fn or e5m2 operands only, "
                                         r"not the f16 of b; pass format_b='e4m3fn'"):
        mf.gemm(A, np.float32([[1], [2]]), model="hopper-fp8", format="e4m3fn", format_b="f16")
    with pytest.raises(ValueError, match="operand_round: unknown operand rounding 'nearest'; accepted: satfinite, "
                                         "cvt, truncate"):
        mf.gemm(np.float32([[1]]), np.float32([[1]]), model="exact", format="tf32", operand_round="nearest")
    with pytest.raises(ValueError, match="truncate is defined for tf32 operands only"):
        mf.gemm(np.float32([[1]]), np.float32([[1]]), model="exact", format="e4m3fn", operand_round="truncate")
    with pytest.raises(ValueError, match="takes f32, f16 or bf16 values, not f64"):
        mf.gemm(np.float64([[1]]), np.float64([[1]]), model="exact", format="tf32", operand_round="cvt")
    with pytest.raises(ValueError, match="a: uint8/uint16 codes need format="):
        mf.gemm(A, B, model="exact")
    with pytest.raises(ValueError, match="a: gemm takes matrices, got 1 dimensions"):
        mf.gemm(np.float32([1, 2]), np.float32([[1], [2]]), model="exact")
    with pytest.raises(ValueError, match=r"b: inner dimensions differ: a has k = 2"):
        mf.dot(np.float32([1, 2]), np.float32([1, 2, 3]), model="exact")
    with pytest.raises(ValueError, match="model: unknown accumulation model 'nope'"):
        mf.dot(np.float32([1]), np.float32([1]), model="nope")
    with pytest.raises(TypeError, match="a: arrays of int32 are not accepted"):
        mf.dot(np.int32([1]), np.float32([1]), model="exact")


# ---- torch (DLPack) -----------------------------------------------------------------------------------------------

def test_torch_tensors_in_give_torch_out():
    torch = pytest.importorskip("torch", reason="torch is not installed: the torch/DLPack path is not exercised")
    a = torch.tensor([[1.5, 2.0], [1.0, -1.0]], dtype=torch.float32)
    b = torch.tensor([[0.5], [3.0]], dtype=torch.float32)
    d = mf.gemm(a, b, model="exact", format="e4m3fn", format_b="e5m2", c=torch.tensor([[0.25], [1.0]]))
    assert isinstance(d, torch.Tensor) and d.tolist() == [[7.0], [-1.5]]
    if hasattr(torch, "float8_e4m3fn"):  # float8 tensors cross as codes of their own format
        a8 = a.to(torch.float8_e4m3fn)
        d8 = mf.gemm(a8, b, model="hopper-fp8", format_b="e5m2", c=torch.tensor([[0.25], [1.0]]))
        assert d8.tolist() == [[7.0], [-1.5]]
