# SPDX-License-Identifier: Apache-2.0
"""Hypothesis strategies for testing your own low-precision kernels against minifloat.

Boundary-biased inputs per target format, built from ``format_info`` and ``table`` (the exact
code table): ±max, ±min normal, ±min subnormal, every midpoint between adjacent codes (the
rounding ties) and the nearest values just above and below each in the source dtype, the
overflow threshold (max + ulp/2) and its neighbours, ±0, ±Inf, NaN, and then any finite value
of the source dtype. Needs the ``hypothesis`` package (``pip install hypothesis``).

Example::

    from hypothesis import given
    import minifloat as mf, minifloat.hypothesis as mfh

    @given(mfh.arrays("e4m3fn", dtype="float32"))
    def test_my_cast(x):
        assert (my_cast(x) == mf.convert(x, "e4m3fn", overflow="satfinite")).all()
"""
from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from . import format_info, table

try:  # registers the dtype name "bfloat16" with NumPy (bfloat16 strategies need it)
    import ml_dtypes as _mld  # noqa: F401
except ImportError:  # pragma: no cover - exercised only without ml_dtypes
    _mld = None

__all__ = ["boundary_values", "values", "cases", "arrays", "codes"]

_DTYPES = ("float64", "float32", "float16", "bfloat16")


def _dtype_name(dtype: Any) -> str:
    """The name of ``dtype``: a name ("float32"), a NumPy scalar type (np.float32), an ``np.dtype``, or
    ml_dtypes.bfloat16 (any of them for float64, float32, float16, bfloat16)."""
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name not in _DTYPES:
        raise ValueError(f"dtype: {dtype!r} is not accepted; accepted: {', '.join(_DTYPES)} (names, NumPy "
                         "types or dtypes; bfloat16 needs ml_dtypes)")
    return name


def _dtype(dtype: Any) -> type:
    """The scalar type of ``dtype`` (np.float32, ..., ml_dtypes.bfloat16)."""
    return np.dtype(_dtype_name(dtype)).type


@functools.lru_cache(maxsize=64)
def _boundaries(fmt: str, dtype: str) -> tuple:
    """The boundary values of ``fmt`` as ``dtype`` numbers (a tuple, deduplicated, signed); ``dtype`` a name."""
    t = _dtype(dtype)
    info = format_info(fmt)
    if info["bits"] > 16:
        raise ValueError(f"fmt: {info['name']} has {info['bits']} bits; accepted: formats of at most 16 bits")
    tab = table(fmt)
    finite = sorted({Fraction(e) for e, c in zip(tab["exact"], tab["class"]) if c not in ("nan", "inf")})
    pos = [v for v in finite if v >= 0]
    exact: list[Fraction] = [info["max"], info["min_normal"]]
    if info["min_subnormal"] is not None:
        exact.append(info["min_subnormal"])
    exact += pos
    mids = [(a + b) / 2 for a, b in zip(pos, pos[1:])]
    if len(pos) >= 2:  # the overflow threshold, max + ulp/2
        mids.append(pos[-1] + (pos[-1] - pos[-2]) / 2)
    out: set[float] = set()
    with np.errstate(over="ignore", under="ignore"):
        for v in exact + mids:
            x = t(float(v)) if abs(float(v)) < np.inf else t(np.inf)
            out.add(float(x))
        for m in mids:  # just below and just above every tie, in the source dtype
            x = t(float(m))
            out.add(float(np.nextafter(x, t(-np.inf))))
            out.add(float(np.nextafter(x, t(np.inf))))
    vals = sorted(v for v in out if np.isfinite(v))
    signed = vals + [-v for v in vals if v != 0]
    return tuple(signed) + (0.0, -0.0, float("inf"), float("-inf"), float("nan"))


def boundary_values(fmt: str, dtype: Any = "float32") -> list[float]:
    """Every boundary value of ``fmt`` (see the module docstring) exactly as a ``dtype`` number.

    ``dtype``: float64, float32, float16 or bfloat16, as a name, a NumPy type (``np.float32``), an
    ``np.dtype`` or ``ml_dtypes.bfloat16`` (bfloat16 needs ml_dtypes)."""
    return list(_boundaries(fmt, _dtype_name(dtype)))


def values(fmt: str, dtype: Any = "float32", *, boundary_weight: float = 0.75) -> st.SearchStrategy[float]:
    """Single ``dtype`` values for target ``fmt``: a boundary value with probability about
    ``boundary_weight`` (sampled from ``boundary_values``), else any value of ``dtype`` (NaN/Inf included)."""
    name = _dtype_name(dtype)
    if not 0 <= boundary_weight <= 1:
        raise ValueError(f"boundary_weight: {boundary_weight} is out of range; accepted: 0..1")
    bounds = st.sampled_from(_boundaries(fmt, name))
    if name == "bfloat16":  # any bfloat16: its 16 bits, as a Python float (exact)
        bf16 = _dtype(name)
        anyv = st.integers(0, 0xFFFF).map(lambda b: float(np.uint16(b).view(bf16)))
    else:
        width = {"float64": 64, "float32": 32, "float16": 16}[name]
        anyv = st.floats(width=width, allow_nan=True, allow_infinity=True, allow_subnormal=True)
    k = round(boundary_weight * 4)
    return st.one_of(*([bounds] * k + [anyv] * (4 - k))) if 0 < k < 4 else (bounds if k == 4 else anyv)


def cases(target: str, dtype: Any = "float32") -> st.SearchStrategy[float]:
    """Boundary-biased inputs for a kernel that converts into ``target`` (same as ``values``)."""
    return values(target, dtype)


def arrays(fmt: str, dtype: Any = "float32", *, shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1,
                                                                        max_side=16)) -> st.SearchStrategy:
    """NumPy ``dtype`` arrays (any shape of ``shape``, default 1-3 dims of 1..16) of ``values(fmt, dtype)``;
    bfloat16 arrays are drawn as float32 arrays of bfloat16 values and cast (exactly)."""
    name = _dtype_name(dtype)
    if name == "bfloat16":
        bf16 = _dtype(name)
        return hnp.arrays(np.float32, shape, elements=values(fmt, name)).map(lambda a: a.astype(bf16))
    return hnp.arrays(_dtype(name), shape, elements=values(fmt, name))


def codes(fmt: str) -> st.SearchStrategy[int]:
    """Every code of ``fmt`` (0 .. 2^bits - 1), shrinking towards 0."""
    bits = format_info(fmt)["bits"]
    return st.integers(min_value=0, max_value=(1 << bits) - 1)
