# SPDX-License-Identifier: Apache-2.0
"""minifloat.check over Python kernels (the check.hpp harness). Oracles: ml_dtypes' astype as a
known-correct kernel for its own profile (vendor.ml_dtypes agrees with it on every f16/bf16 input),
and kernels with a planted bug that the harness must catch and shrink."""
import numpy as np
import pytest

import minifloat as mf

ml_dtypes = pytest.importorskip("ml_dtypes")


pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")


def test_ml_dtypes_astype_passes_under_its_profile():
    r = mf.check(lambda x: x.astype(ml_dtypes.float8_e4m3fn), "e4m3fn", n=1 << 14, profile="ml_dtypes")
    assert r.ok and bool(r) and r.failed == 0 and r.tested >= 1 << 12, r.text
    assert r.minimal == []


def test_saturating_target_catches_a_non_saturating_kernel():
    r = mf.check(lambda x: x.astype(ml_dtypes.float8_e4m3fn), "e4m3fn", n=1 << 14, overflow="satfinite",
                 profile="ml_dtypes")
    assert not r.ok and r.failed > 0
    classes = {m["class"] for m in r.minimal}
    assert "overflow_threshold" in classes or "inf" in classes or "out_of_range" in classes, classes
    for m in r.minimal:
        assert m["expected"] != m["got"] and m["reproduce"].startswith("minifloat encode")
    assert "check" in str(r) and r.diagnosis


def test_planted_tie_bug_is_shrunk():
    def round_half_up(x):  # ties away instead of to even, through the library itself
        return mf.convert(x, "e4m3fn", round="rna", overflow="satfinite")

    r = mf.check(round_half_up, "e4m3fn", n=1 << 14, overflow="satfinite")
    assert not r.ok
    assert any(m["class"] == "midpoint" for m in r.minimal), [m["class"] for m in r.minimal]
    assert "rna" in r.diagnosis


def test_bfloat16_source_and_errors():
    r = mf.check(lambda x: mf.convert(x, "e5m2"), "e5m2", n=1 << 12, source="bfloat16")
    assert r.ok, r.text
    with pytest.raises(ValueError, match="source: 'int8' is not accepted"):
        mf.check(lambda x: x, "e4m3fn", source="int8")
    with pytest.raises(ValueError, match="target: unknown format"):
        mf.check(lambda x: x, "e9m9")
    with pytest.raises(ValueError, match="check: the kernel returned shape"):
        mf.check(lambda x: np.zeros(3, np.uint8), "e4m3fn", n=64)
    # a kernel that forgot .view(np.uint8) and returned its float32 values: one clear TypeError (was KeyError: 4)
    with pytest.raises(TypeError, match="check: the kernel returned float32; accepted: integer codes"):
        mf.check(lambda x: x.astype(np.float32), "e4m3fn", n=64)
    with pytest.raises(ZeroDivisionError):  # the kernel's own exception propagates
        mf.check(lambda x: 1 / 0, "e4m3fn", n=64)
