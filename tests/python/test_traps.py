# SPDX-License-Identifier: Apache-2.0
"""The trap vectors of ../shared/spec-digest.md §11 through the Python API.

Expected codes are the digest's (each verified there against CUDA, ml_dtypes or an exact
oracle, as tagged), not outputs of minifloat. T14/T18/T20 (block scales) live with quantize,
T16 (PTX packing) and T25 (Philox offsets) with the CUDA and SR tests.
"""
import numpy as np
import pytest

import minifloat as mf


def f32(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


def c(x, fmt, **kw):
    return [int(v) for v in mf.convert(np.asarray(x), fmt, **kw)]


def test_t1_t2_e4m3fn_overflow_tie():
    assert c(f32([0x43E80000]), "e4m3fn") == [0x7E]
    assert c(f32([0x43E80000]), "e4m3fn", overflow="satfinite") == [0x7E]
    assert c(f32([0x43E80001]), "e4m3fn") == [0x7F]
    assert c(f32([0x43E80001]), "e4m3fn", overflow="satfinite") == [0x7E]


def test_t3_e5m2_overflow_tie():
    assert c(f32([0x47700000]), "e5m2") == [0x7C]
    assert c(f32([0x47700000]), "e5m2", overflow="satfinite") == [0x7B]
    assert c(f32([0x476FFFFF]), "e5m2") == [0x7B]


def test_t4_infinities():
    inf = np.float32([np.inf, -np.inf])
    assert c(inf, "e4m3fn", overflow="satfinite") == [0x7E, 0xFE]
    assert c(inf, "e5m2", overflow="satfinite") == [0x7B, 0xFB]
    assert c(inf, "e4m3fn") == [0x7F, 0xFF]
    assert c(inf, "e5m2") == [0x7C, 0xFC]


def test_t5_negative_nan():
    nan = f32([0xFFC00000])
    assert c(nan, "e4m3fn", profile="nvidia") == [0x7F]
    assert c(nan, "e5m2", profile="nvidia") == [0x7F]
    assert c(nan, "e4m3fn", profile="ml_dtypes") == [0xFF]
    assert c(nan, "e5m2", profile="ml_dtypes") == [0xFE]


def test_t6_subnormal_ties():
    assert c(np.float32([2.0**-10, 3 * 2.0**-10, -(2.0**-10)]), "e4m3fn") == [0x00, 0x02, 0x80]
    assert c(np.float64([2.0**-10 + 2.0**-40]), "e4m3fn") == [0x01]


@pytest.mark.parametrize("fmt", ["e4m3fnuz", "e5m2fnuz", "Binary8p3se"])
def test_t7_negative_zero_into_fnuz(fmt):
    assert c(np.float32([-0.0, -1e-9]), fmt) == [0x00, 0x00]
    assert c(np.float32([-0.0]), "e4m3fn") == [0x80]


def test_t8_e4m3fnuz_overflow_tie():
    assert c(f32([0x43780000]), "e4m3fnuz") == [0x80]
    assert c(f32([0x43780000]), "e4m3fnuz", overflow="satfinite") == [0x7F]


def test_t9_zero_into_e8m0fnu():
    assert c(np.float32([0.0]), "e8m0fnu", round="rtz", profile="nvidia") == [0x00]
    assert c(np.float32([0.0]), "e8m0fnu", profile="ml_dtypes") == [0xFF]
    assert c(np.float32([0.0]), "e8m0fnu", profile="ml_dtypes", overflow="satfinite") == [0x00]


def test_t10_e8m0fnu_powers_of_two():
    x = np.float32([3.0, 1.5])
    assert c(x, "e8m0fnu", round="rtz") == [0x80, 0x7F]
    assert c(x, "e8m0fnu", round="rtp") == [0x81, 0x80]
    assert c(x, "e8m0fnu", profile="ml_dtypes") == [0x81, 0x80]
    assert c(np.float32([-4.0]), "e8m0fnu", profile="nvidia") == [0x81]
    assert c(np.float32([-4.0]), "e8m0fnu", profile="ml_dtypes") == [0xFF]


def test_t11_double_rounding_through_f32():
    x = np.float64([1.0625 + 2.0**-40])
    assert c(x, "e4m3fn") == [0x39]
    assert c(x, "e4m3fn", profile="ml_dtypes") == [0x38]


def test_t12_e2m1fn_ties():
    x = np.float32([0.25, 1.25, 2.5, 5.0])
    assert c(x, "e2m1fn") == [0x0, 0x2, 0x4, 0x6]
    assert c(x, "e2m1fn", round="rna") == [0x1, 0x3, 0x5, 0x7]


def test_t13_nan_into_formats_without_nan():
    nan = f32([0x7FC00000, 0xFFC00000])
    assert c(nan, "e2m3fn", profile="nvidia") == [0x1F, 0x1F]
    assert c(nan, "e2m1fn", profile="nvidia") == [0x7, 0x7]
    assert c(nan, "e2m3fn", profile="ml_dtypes") == [0x20, 0x00]
    assert c(nan, "e2m1fn", profile="ml_dtypes") == [0x8, 0x0]


def test_t15_e8m0fnu_zero_code_decodes_to_f32_subnormal():
    assert int(mf.decode(np.uint8([0x00]), "e8m0fnu").view(np.uint32)[0]) == 0x00400000
    assert c(np.float32([2.0**-127]), "bf16") == [0x0040]


def test_t17_few_bit_sr_probabilities():
    """x = 1 + 2^-12 into e4m3fn: P(up) A<8> = 0, B<8> = 1/256, C<8> = 0, exact = 1/512 (over 2^17 draws)."""
    x = np.full(1 << 17, 1 + 2.0**-12, dtype=np.float32)
    ups = {}
    for variant in ("A", "B", "C", "exact"):
        codes = mf.convert(x, "e4m3fn", round="sr", sr=dict(seed=17, variant=variant, bits=8))
        assert set(np.unique(codes)) <= {0x38, 0x39}
        ups[variant] = int((codes == 0x39).sum())
    n = len(x)
    assert ups["A"] == 0 and ups["C"] == 0
    for variant, p in (("B", 1 / 256), ("exact", 1 / 512)):  # within 5 binomial standard deviations
        assert abs(ups[variant] - n * p) < 5 * (n * p * (1 - p)) ** 0.5, (variant, ups[variant], n * p)


def test_t19_hip_nosat_not_a_profile_here():
    """HIP's NOSAT quirk is not a named profile; ml_dtypes' answer (0x80) is the default."""
    assert c(f32([0x447A0000]), "e4m3fnuz") == [0x80]
    assert c(f32([0x447A0000]), "e4m3fnuz", overflow="satfinite") == [0x7F]


def test_t21_t22_p3109():
    assert c(np.float32([1.0]), "Binary8p3se") == [0x40]
    assert c(np.float32([1.0]), "e5m2") == [0x3C]
    assert c(np.float32([1.0]), "Binary8p4se") == [0x40]
    assert c(np.float32([1e6]), "Binary8p3se", profile="p3109") == [0x7F]
    assert c(np.float32([1e6]), "Binary8p3se", round="rtz", profile="p3109") == [0x7E]
    assert c(np.float32([1e6]), "Binary8p3se", overflow="satfinite", profile="p3109") == [0x7E]


def test_t23_t24_e8m0fnu_extremes():
    fmax = f32([0x7F7FFFFF])
    assert c(fmax, "e8m0fnu", round="rtz") == [0xFE]
    assert c(fmax, "e8m0fnu", round="rtp", overflow="satfinite") == [0xFE]
    assert c(fmax, "e8m0fnu", round="rtp") == [0xFF]
    assert c(fmax, "e8m0fnu", profile="ml_dtypes") == [0xFF]
    assert c(fmax, "e8m0fnu", profile="ml_dtypes", overflow="satfinite") == [0xFE]
    assert c(f32([0x00400001]), "e8m0fnu", round="rtp") == [0x01]
    assert c(f32([0x00400001]), "e8m0fnu", round="rtz") == [0x00]
    assert c(np.float32([2.0**-130]), "e8m0fnu", round="rtp") == [0x00]


def test_t26_fp6_near_max():
    x = f32([0x40F80000])
    assert c(x, "e3m2fn") == [0x18]
    assert c(x, "e3m2fn", round="rtz") == [0x17]
    assert c(x, "e2m3fn") == [0x1F]
    assert c(x, "e2m3fn", round="rtz") == [0x1F]


def test_must_show():
    assert c(np.float32([464, 500, -1e-7]), "e4m3fn", overflow="satfinite") == [126, 126, 128]
