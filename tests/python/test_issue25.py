# SPDX-License-Identifier: Apache-2.0
"""Issue 25 item 1 in the Python package: ``quantize(..., transform=)`` is the CLI's ``--transform`` and the
spec key ``transform=``. The oracle is an exact-rational (``Fraction``) 16-point random Hadamard transform
written from TE transformer_engine/pytorch/tensor/nvfp4_tensor.py:49-104 (sign vector, Sylvester H16, 1/4)
with its own RNE rounding to binary32; it shares no code with minifloat.

Issue 25 items 4-5 from Python: the names the CLI and C++ take (ue5m3, nvfp4_ue5m3, rceil_fp32, nvfp4_ceil,
fp32_order="deepgemm"), with values worked by hand from the stacks' code (tests/blocks/ue5m3_test.cpp and
stack_rules_test.cpp give the derivations).
"""
from fractions import Fraction
import os
import subprocess

import numpy as np
import pytest

import minifloat as mf

SIGNS = [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1]  # TE get_wgrad_sign_vector


def to_f32(q: Fraction) -> float:
    if q == 0:
        return 0.0
    s, a = (-1 if q < 0 else 1), abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    quantum = Fraction(2) ** (max(e, -126) - 23)
    m = a / quantum
    fl, rem = m.numerator // m.denominator, m - m.numerator // m.denominator
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2):
        fl += 1
    return s * float(fl * quantum)


def rht(x: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x)
    for r in range(x.shape[0]):
        for g in range(0, x.shape[1], 16):
            v = [Fraction(float(t)) for t in x[r, g:g + 16]]
            for j in range(16):
                h = [(-1) ** bin(i & j).count("1") for i in range(16)]
                out[r, g + j] = to_f32(sum(v[i] * SIGNS[i] * h[i] for i in range(16)) / 4)
    return out


def test_transform_keyword_equals_quantizing_the_exact_transform():
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((8, 32)) * np.exp2(rng.integers(-8, 8, (8, 32)))).astype(np.float32)
    a = mf.quantize(x, "nvfp4", transform="rht16:te")
    b = mf.quantize(rht(x), "nvfp4")
    assert a.transform == "rht16:te" and b.transform == "none"
    assert np.array_equal(a.codes, b.codes) and np.array_equal(a.scales, b.scales)
    assert a.tensor_scale == b.tensor_scale
    assert np.array_equal(a.dequantize(), b.dequantize())
    c = mf.quantize(x, "e2m1fn/1x16/ue4m3:nvfp4/transform=rht16:te")
    assert np.array_equal(a.codes, c.codes)
    # errors() compares x with the exact inverse of the dequantized values (the original domain)
    assert a.errors()["count"] == x.size


def test_transform_refusals():
    x = np.ones((2, 16), np.float32)
    with pytest.raises(Exception, match="accepted: none, rht16:te, rht16:torchao"):
        mf.quantize(x, "nvfp4", transform="hadamard")
    with pytest.raises(Exception, match="multiple of 16"):
        mf.quantize(np.ones((2, 8), np.float32), "nvfp4", transform="rht16:te")


def test_tensor_scale_keyword():
    # S_enc = 64 (hand-derived, TE reference_nvfp4.py:713-760): block code e4m3(64) = 0x68, elements x itself
    x = np.zeros((1, 16), np.float32)
    x[0, :4] = [6.0, 3.0, -1.5, 0.5]
    q = mf.quantize(x, "nvfp4", tensor_scale=64)
    assert list(np.asarray(q.codes).ravel()[:5]) == [0x7, 0x5, 0xB, 0x1, 0x0]
    assert list(np.asarray(q.scales).ravel()) == [0x68]
    assert q.tensor_encode_scale == 64.0 and q.tensor_scale == 0.015625
    assert np.array_equal(np.asarray(mf.quantize(x, "e2m1fn/1x16/ue4m3:nvfp4/tensor-scale=64").codes),
                          np.asarray(q.codes))
    for bad in (0, -1, "nan"):
        with pytest.raises(Exception, match="positive finite"):
            mf.quantize(x, "nvfp4", tensor_scale=bad)
    with pytest.raises(Exception, match="tensor-scale applies to the nvfp4 rule"):
        mf.quantize(x, "mxfp8_e4m3", tensor_scale=2)


def test_ue5m3_is_a_named_format():
    # CUDA 13.4 __nv_fp8_ue5m3: max 0xfe = 1.75 * 2^16, 0xff NaN, min subnormal 2^-17, one 0x78.
    assert mf.decode(np.array([0xFE, 0x78, 0x01], np.uint8), "ue5m3").tolist() == [114688.0, 1.0, 2.0 ** -17]
    assert np.isnan(mf.decode(np.array([0xFF], np.uint8), "ue5m3")[0])


def test_nvfp4_ue5m3_scheme_and_its_tensor_scale():
    # auto-round nvfp.py:232: g = fl32(688128 * fl32(1/11.75)) = 0x4764c415; block scale 0xfe (clipped 114688).
    x = np.zeros((1, 16), np.float32)
    x[0, 0] = 11.75
    x[0, 1:] = 0.25
    q = mf.quantize(x, "nvfp4_ue5m3")
    assert np.float32(q.tensor_encode_scale).view(np.uint32) == 0x4764C415
    assert q.scales.reshape(-1).tolist() == [0xFE]
    assert q.codes.reshape(-1).tolist() == [0x7] + [0x0] * 15


def test_stack_rules_by_name():
    # TE float_to_e8m0(amax * fl32(1/448)): amax 0x04600001 -> 2^-127 (code 0), exact RCEIL 2^-126 (code 1).
    x = np.zeros(32, np.float32)
    x[0] = np.uint32(0x04600001).view(np.float32)
    assert mf.quantize(x, "mxfp8_e4m3", rule="rceil_fp32").scales.reshape(-1).tolist() == [0x00]
    assert mf.quantize(x, "mxfp8_e4m3", rule="rceil").scales.reshape(-1).tolist() == [0x01]
    # nvfp4_ceil: tensor amax 10, block amax 1: s = 44.8 -> E4M3 48 (0x64), RNE 44 (0x63).
    y = np.ones((2, 16), np.float32)
    y[0, 0] = 10.0
    y[1, 1:] = 0.25
    assert mf.quantize(y, "nvfp4", rule="nvfp4_ceil").scales.reshape(-1).tolist() == [0x7E, 0x64]
    # DeepGEMM math.py:35-37: sf = fl32(0.296875 / 448) = 0x3a2db6db; x = 0x38640000 -> 0x1b (TE order: 0x1a).
    z = np.array([0.296875, np.uint32(0x38640000).view(np.float32)], np.float32)
    q = mf.quantize(z, "e4m3fn/1x2/f32:fp32_amax", fp32_order="deepgemm")
    assert np.float32(q.scales.reshape(-1)[0]).view(np.uint32) == 0x3A2DB6DB
    assert q.codes.reshape(-1).tolist()[1] == 0x1B


def test_bad_names_are_refused_with_the_accepted_ones():
    with pytest.raises(ValueError, match="accepted"):
        mf.quantize(np.ones(16, np.float32), "nvfp4", rule="nvfp4_ceiling")
    with pytest.raises(ValueError, match="fp32_amax rule only"):
        mf.quantize(np.ones(16, np.float32), "nvfp4", fp32_order="deepgemm")


# ---- transform_gemm (issue 25 item 1): the transform's arithmetic on a tensor-core model ---------------------

def _m16(signs=SIGNS) -> np.ndarray:
    """M = diag(s)·H16/4 as float32 (k = 16 rows i, n = 16 columns j), written here from the definition."""
    return np.array([[signs[i] * (-1) ** bin(i & j).count("1") / 4 for j in range(16)] for i in range(16)],
                    np.float32)


def test_transformed_values_exact_by_default():
    """Quantized.transformed() is the exact transform rounded once to f32 (the Fraction oracle rht() above), and
    transform_gemm="exact" is the default, spelled or not."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((4, 32)) * np.exp2(rng.integers(-20, 20, (4, 32)))).astype(np.float32)
    a = mf.quantize(x, "nvfp4", transform="rht16:te")
    b = mf.quantize(x, "nvfp4", transform="rht16:te", transform_gemm="exact")
    assert a.transformed().view(np.uint32).tolist() == rht(x).view(np.uint32).tolist()
    assert np.array_equal(a.codes, b.codes) and np.array_equal(a.scales, b.scales) and a.spec == b.spec


def test_transform_gemm_hand_derived_hopper_bf16():
    """x0 = 1, x3 = 2^-25 (bf16 values), rht16:te (s_0 = +1, s_3 = -1; H[i][0] = +1): y_0 = 0.25 - 2^-27.
    Exact then RNE to f32: a tie between 0.25 - 2^-26 and 0.25, to even: 0.25 (0x3e800000).
    hopper-bf16-unvalidated (F = 25 fraction bits below the largest product's exponent 2^-2, so the quantum is
    2^-27 and -2^-27 is kept; output RZ to f32: core/tfdpa.hpp, Khattak & Mikaitis H100 model): 0.25 - 2^-26
    (0x3e7fffff). Columns j with s_3·H[3][j] = +1 give 0.25 + 2^-27 for j where s_0·H[0][j] = +1: RNE 0.25, RZ
    0.25 as well."""
    x = np.zeros((1, 16), np.float32)
    x[0, 0], x[0, 3] = 1.0, 2.0 ** -25
    exact = mf.quantize(x, "nvfp4", transform="rht16:te").transformed()
    model = mf.quantize(x, "nvfp4", transform="rht16:te", transform_gemm="hopper-bf16-unvalidated").transformed()
    assert exact.view(np.uint32)[0, 0] == 0x3E800000
    assert model.view(np.uint32)[0, 0] == 0x3E7FFFFF
    # every column by hand: y_j = 0.25·(s_0 H[0][j]) + 2^-27·(s_3 H[3][j]) (H[0][j] = +1)
    for j in range(16):
        c3 = SIGNS[3] * (-1) ** bin(3 & j).count("1")
        want_exact = 0.25  # 0.25 ± 2^-27 rounds to 0.25 either way (a tie to even below, nearer above)
        want_model = 0.25 - 2.0 ** -26 if c3 < 0 else 0.25  # RZ: below 0.25 the f32 quantum is 2^-26
        assert exact[0, j] == want_exact and model[0, j] == np.float32(want_model), j


@pytest.mark.parametrize("preset", ["hopper-bf16-unvalidated", "hopper-f16-unvalidated", "ampere-tf32"])
@pytest.mark.parametrize("axis", ["last", "first"])
def test_transform_gemm_equals_the_dot_door(preset, axis):
    """Another front end: the groups multiplied by M through minifloat.gemm (the `dot` door, operands rounded by
    its default satfinite) equal Quantized.transformed(), and quantizing those values with no transform gives the
    same codes and scales."""
    if preset not in mf.names("tensor-core")["names"]:
        pytest.skip(f"{preset} is not a preset here")
    fmt = {"hopper-bf16-unvalidated": "bf16", "hopper-f16-unvalidated": "f16", "ampere-tf32": "tf32"}[preset]
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((32, 48)) * np.exp2(rng.integers(-12, 12, (32, 48)))).astype(np.float32)
    q = mf.quantize(x, "nvfp4", transform="rht16:torchao", transform_gemm=preset, axis=axis)
    xv = x if axis == "last" else np.ascontiguousarray(x.T)  # groups along the block axis as rows of 16
    groups = xv.reshape(-1, 16)
    d = np.asarray(mf.gemm(groups, _m16(), model=preset, format=fmt), np.float32)
    d = d.astype(mf_bf16()).astype(np.float32)  # rht16:torchao: the f32 result rounded to bf16 (RNE)
    want = d.reshape(xv.shape) if axis == "last" else np.ascontiguousarray(d.reshape(xv.shape).T)
    assert q.transformed().view(np.uint32).tolist() == want.view(np.uint32).tolist()
    r = mf.quantize(want, "nvfp4", axis=axis)
    assert np.array_equal(q.codes, r.codes) and np.array_equal(q.scales, r.scales)


def mf_bf16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    return ml_dtypes.bfloat16


def test_transform_gemm_refusals():
    x = np.ones((2, 16), np.float32)
    with pytest.raises(Exception, match="transform-gemm 'hopper-fp9' is not a tensor-core preset; accepted: exact"):
        mf.quantize(x, "nvfp4", transform="rht16:te", transform_gemm="hopper-fp9")
    with pytest.raises(Exception, match="arithmetic of a transform"):
        mf.quantize(x, "nvfp4", transform_gemm="hopper-bf16-unvalidated")
    with pytest.raises(Exception, match="unscaled preset whose operand format holds"):
        mf.quantize(x, "nvfp4", transform="rht16:te", transform_gemm="blackwell-tcgen05-mxf4-unvalidated")


def test_te2_quirks_from_python():
    """Issue 25 item 6: mx_quirks="te_2" (the CLI's --mx-quirks te_2). By hand from TE d0067d0
    tests/pytorch/references/quantize_scale_calc.py:32,58 (an Inf tile: scale 448/Inf = 0, scale_inv +Inf, finite
    elements x·0) and custom_recipes/reference_nvfp4.py:53 (−0 → code 0) and :713-730 (an all-zero tensor's decode
    scale fl32(1/FLT_MAX) = 2^−128); tests/blocks/te2_quirks_test.cpp has the C++ side."""
    x = np.full((1, 128), 0.5, np.float32)
    x[0, 0] = np.inf
    x[0, 1] = -1.0
    q = mf.quantize(x, "fp8_1x128", mx_quirks="te_2")
    assert q.scales.view(np.uint32)[0, 0] == 0x7F800000
    assert q.codes[0, 0] == 0xFF and q.codes[0, 1] == 0x80 and q.codes[0, 2] == 0x00
    z = np.zeros((1, 16), np.float32)
    z[0, 3] = -0.0
    n = mf.quantize(z, "nvfp4", mx_quirks="te_2")
    assert (n.codes == 0).all() and np.float32(n.tensor_scale) == np.float32(2.0**-128)
    assert mf.quantize(z, "nvfp4").codes[0, 3] == 8  # the default keeps −0's sign
    with pytest.raises(ValueError, match="te_2 applies to FP32 current scaling"):
        mf.quantize(x[:, :32], "mxfp8_e4m3", mx_quirks="te_2")


def test_te2_bf16_input_clamps_encode_scale_to_bf16_max(tmp_path):
    """mx_quirks="te_2" with a bfloat16 input (issue 25 item 6): TE's torch.finfo(x_dtype).max for an encode scale
    that overflows (TE d0067d0 tests/pytorch/references/quantize_scale_calc.py:35, recipe_common.cuh:67). By hand,
    with Fractions: amax = 2^-133 (bf16 0x0001), 448/amax overflows binary32; bf16's max 0x7f7f0000 =
    2^127·255/128, scale_inv = RNE(1/that) in the binary32 subnormal grid (2^-149 steps). The same values as
    float32 clamp to FLT_MAX. The CLI (a <V2 .npy) gives the same scale."""
    ml = pytest.importorskip("ml_dtypes")
    bmax = Fraction(2**127) * Fraction(255, 128)
    units = Fraction(1) / bmax / Fraction(1, 2**149)
    n = int(units)
    n += 1 if units - n > Fraction(1, 2) or (units - n == Fraction(1, 2) and n % 2) else 0
    want = n  # a subnormal: its bits are its count of 2^-149
    assert want == 0x202020
    x = np.zeros((1, 128), ml.bfloat16)
    x.view(np.uint16)[0, 0] = 1
    got = np.asarray(mf.quantize(x, "fp8_1x128", mx_quirks="te_2").scales, np.float32).view(np.uint32).ravel()
    assert got.tolist() == [want]
    f = x.astype(np.float32)
    got32 = np.asarray(mf.quantize(f, "fp8_1x128", mx_quirks="te_2").scales, np.float32).view(np.uint32).ravel()
    assert got32.tolist() == [0x00200000]  # fl32(1/FLT_MAX) = 2^-128
    plain = [np.asarray(mf.quantize(v, "fp8_1x128").scales, np.float32).view(np.uint32).ravel() for v in (x, f)]
    assert plain[0].tolist() == plain[1].tolist()  # no quirks: the source type is not read
    cli = os.environ.get("MINIFLOAT_CLI")
    if cli:
        np.save(tmp_path / "x.npy", x)
        subprocess.run([cli, "quantize", "--in", tmp_path / "x.npy", "--scheme", "fp8_1x128", "--mx-quirks", "te_2",
                        "--out-codes", tmp_path / "c.npy", "--out-scales", tmp_path / "s.npy"], check=True,
                       capture_output=True)
        assert np.load(tmp_path / "s.npy").view(np.uint32).ravel().tolist() == [want]
