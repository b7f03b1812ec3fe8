# SPDX-License-Identifier: Apache-2.0
"""The bound argument objects (issue 24 item 2): Format, RoundingSpec and Profile are parsed once per
name by the library, cached by the package, and accepted by every public function in place of a name.

Oracles: the name path (a public function given a name) for the object path (the same function given
the object), the cache's own counters for "parsed once", and the library's message texts (pinned
prefixes, as test_cli_equal.py compares them with the CLI) for the errors.
"""
import numpy as np
import pytest

import minifloat as mf
from minifloat import _minifloat as ext

FORMATS = ["e4m3fn", "e5m2", "e2m1fn", "e3m2fn", "e8m0fnu", "ue4m3", "bf16", "f16", "e4m3fnuz"]
X = np.concatenate([np.linspace(-600, 600, 997), [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-9, -3e-5]])


def _clear():
    for f in (mf._parse_format, mf._parse_spec, mf._parse_profile):
        f.cache_clear()


def test_each_name_is_parsed_once():
    _clear()
    x = X.astype(np.float32)
    mf.convert(x, "e4m3fn", round="rtz", overflow="satfinite", profile="nvidia")
    first = (mf._parse_format.cache_info(), mf._parse_spec.cache_info(), mf._parse_profile.cache_info())
    assert [c.misses for c in first] == [1, 1, 1] and [c.hits for c in first] == [0, 0, 0]
    mf.convert(x, "e4m3fn", round="rtz", overflow="satfinite", profile="nvidia")
    mf.decode(np.uint8([1, 2]), "e4m3fn", profile="nvidia")
    mf.encode_scalar("1.5", "e4m3fn", round="rtz", overflow="satfinite", profile="nvidia")
    f, s, p = mf._parse_format.cache_info(), mf._parse_spec.cache_info(), mf._parse_profile.cache_info()
    assert (f.misses, s.misses, p.misses) == (1, 1, 1)  # nothing parsed a second time
    assert f.hits >= 3 and s.hits >= 2 and p.hits >= 3
    mf.convert(x, "e5m2")
    assert mf._parse_format.cache_info().misses == 2


def test_convert_needs_no_format_info_crossing(monkeypatch):
    """The code width comes from the bound Format, not from an extra format_info call."""
    def boom(*a):
        raise AssertionError("format_info called")

    monkeypatch.setattr(ext, "format_info", boom)
    assert mf.convert(np.float32([448, 1]), "e4m3fn").tolist() == [0x7E, 0x38]
    assert mf.convert(np.float32([1]), "bf16").dtype == np.uint16


@pytest.mark.parametrize("name", FORMATS)
def test_object_and_name_give_identical_results(name):
    fmt = mf.Format(name)
    for prof in ("ocp", "nvidia", "ml_dtypes"):
        for dt in (np.float64, np.float32, np.float16):
            a, fa = mf.convert(X.astype(dt), name, profile=prof, overflow="satfinite", flags=True)
            b, fb = mf.convert(X.astype(dt), fmt, profile=mf.Profile(prof), overflow="satfinite", flags=True)
            assert a.dtype == b.dtype and np.array_equal(a, b) and fa == fb
        sr = dict(seed=7, stream=1, variant="A", bits=6)
        assert np.array_equal(mf.convert(X, name, round="sr", sr=sr, profile=prof),
                              mf.convert(X, fmt, round="sr", sr=sr, profile=mf.Profile(prof)))
        codes = mf.convert(X, name, profile=prof)
        for dtype in ("float32", "float64"):
            assert np.array_equal(mf.decode(codes, name, dtype=dtype, profile=prof),
                                  mf.decode(codes, fmt, dtype=dtype, profile=mf.Profile(prof)), equal_nan=True)
        assert mf.encode_scalar("-1e-3", name, profile=prof, flags=True) == \
            mf.encode_scalar("-1e-3", fmt, profile=mf.Profile(prof), flags=True)
    src = mf.Format("e5m2")
    c8 = np.arange(256, dtype=np.uint8)
    assert np.array_equal(mf.convert(c8, name, source="e5m2"), mf.convert(c8, fmt, source=src))
    assert mf.encode_scalar(0x3C, name, source="e5m2") == mf.encode_scalar(0x3C, fmt, source=src)
    assert mf.decode_scalar(1, name, as_="str") == mf.decode_scalar(1, fmt, as_="str")
    assert mf.format_info(name) == mf.format_info(fmt)
    ta, tb = mf.table(name), mf.table(fmt)
    assert ta.keys() == tb.keys() and ta["exact"] == tb["exact"] and np.array_equal(ta["code"], tb["code"])


def test_object_and_name_in_check_quantize_and_ml_dtype():
    ml = pytest.importorskip("ml_dtypes")
    assert mf.ml_dtype(mf.Format("e4m3fn")) == mf.ml_dtype("e4m3fn") == np.dtype(ml.float8_e4m3fn)
    kernel = lambda x: x.astype(ml.float8_e4m3fn)  # noqa: E731
    a = mf.check(kernel, "e4m3fn", 4096, profile="ml_dtypes", shrink=False, diagnose=False)
    b = mf.check(kernel, mf.Format("e4m3fn"), 4096, profile=mf.Profile("ml_dtypes"), shrink=False, diagnose=False)
    assert (a.ok, a.tested, a.failed, a.json) == (b.ok, b.tested, b.failed, b.json)
    x = np.random.default_rng(3).standard_normal((4, 64)).astype(np.float32)
    qa, qb = mf.quantize(x, "mxfp8_e4m3", profile="nvidia"), mf.quantize(x, "mxfp8_e4m3", profile=mf.Profile("nvidia"))
    assert np.array_equal(qa.codes, qb.codes) and np.array_equal(qa.scales, qb.scales)


def test_objects_properties_equality_hash():
    f = mf.Format("E4M3FN")
    assert (f.name, f.bits, f.exponent_bits, f.mantissa_bits, f.bias, f.signed) == ("e4m3fn", 8, 4, 3, 7, True)
    assert repr(f) == "Format('e4m3fn')" and str(f) == "e4m3fn"
    assert f == mf.Format("e4m3fn") and hash(f) == hash(mf.Format("e4m3fn"))
    assert f != mf.Format("e5m2") and f != "e4m3fn" and len({f, mf.Format("e4m3fn"), mf.Format("e5m2")}) == 2
    assert mf.Format("e2m1fn").bits == 4 and mf.Format("bf16").bits == 16
    s = mf.RoundingSpec("rtz", "satfinite")
    assert (s.round, s.overflow, s.sr_variant, s.sr_bits) == ("rtz", "satfinite", "exact", 8)
    assert s == mf.RoundingSpec("RTZ", "satfinite", "exact", 8) and s != mf.RoundingSpec("rtz", "nonsat")
    assert hash(s) == hash(mf.RoundingSpec("rtz", "satfinite")) and "rtz" in repr(s)
    p = mf.Profile("nvidia")
    assert p.name == "nvidia" and repr(p) == "Profile('nvidia')" and p == mf.Profile("nvidia")
    assert p != mf.Profile("ocp") and hash(p) == hash(mf.Profile("nvidia"))


@pytest.mark.parametrize("call, arg, unknown", [
    (lambda: mf.convert(np.float32([1]), "bogus"), "fmt", "unknown format 'bogus'; accepted: e4m3fn, e5m2"),
    (lambda: mf.convert(np.uint8([1]), "e4m3fn", source="zz"), "source", "unknown format 'zz'; accepted: e4m3fn"),
    (lambda: mf.decode(np.uint8([1]), "bogus"), "fmt", "unknown format 'bogus'; accepted: e4m3fn"),
    (lambda: mf.format_info("zz"), "name", "unknown format 'zz'; accepted: e4m3fn"),
    (lambda: mf.table("zz"), "fmt", "unknown format 'zz'; accepted: e4m3fn"),
    (lambda: mf.decode_scalar(1, "zz"), "fmt", "unknown format 'zz'; accepted: e4m3fn"),
    (lambda: mf.encode_scalar("1", "zz"), "fmt", "unknown format 'zz'; accepted: e4m3fn"),
    (lambda: mf.check(lambda x: x, "zz", 16), "target", "unknown format 'zz'; accepted: e4m3fn"),
    (lambda: mf.ml_dtype("zz"), "fmt", "unknown format 'zz'; accepted: e4m3fn"),
    (lambda: mf.convert(np.float32([1]), "e4m3fn", profile="bad"), "profile", "unknown profile 'bad'; accepted: ocp"),
    (lambda: mf.decode(np.uint8([1]), "e4m3fn", profile="bad"), "profile", "unknown profile 'bad'; accepted: ocp"),
    (lambda: mf.quantize(np.float32([1]), "mxfp4", profile="bad"), "profile", "unknown profile 'bad'; accepted: ocp"),
    (lambda: mf.convert(np.float32([1]), "e4m3fn", round="bad"), "round", "unknown rounding mode 'bad'; accepted: rne"),
    (lambda: mf.encode_scalar("1", "e4m3fn", overflow="bad"), "overflow", "unknown overflow"),
    (lambda: mf.convert(np.float32([1]), "e4m3fn", round="sr", sr=dict(seed=1, bits=99)), "sr['bits']",
     "99 is out of range; accepted: 1..64"),
    (lambda: mf.convert(np.float32([1]), "e4m3fn", round="sr", sr=dict(seed=1, variant="Q")), "sr['variant']",
     "unknown"),
])
def test_bad_names_raise_the_library_message_naming_the_argument(call, arg, unknown):
    for _ in range(2):  # a failed parse is not cached: the second call raises the same error
        with pytest.raises(ValueError) as e:
            call()
        msg = str(e.value)
        assert msg.startswith(f"{arg}: {unknown}"), msg
        assert "\n" not in msg and msg.count(f"{arg}: ") == 1


def test_bad_name_objects_raise_unprefixed_library_message():
    with pytest.raises(ValueError, match=r"^unknown format 'zz'; accepted: e4m3fn"):
        mf.Format("zz")
    with pytest.raises(ValueError, match=r"^unknown profile 'zz'; accepted: ocp"):
        mf.Profile("zz")
    with pytest.raises(ValueError, match=r"^overflow: unknown overflow"):
        mf.RoundingSpec("rne", "zz")
    with pytest.raises(TypeError, match=r"^fmt: expected a name \(str\), got int"):
        mf.convert(np.float32([1]), 3)


def test_bad_format_message_is_the_library_message_with_the_argument_in_front():
    with pytest.raises(ValueError) as lib:
        mf.Format("nosuch")
    for arg, call in (("fmt", lambda: mf.convert(np.float32([1]), "nosuch")),
                      ("source", lambda: mf.convert(np.uint8([1]), "e4m3fn", source="nosuch")),
                      ("name", lambda: mf.format_info("nosuch")),
                      ("target", lambda: mf.check(lambda x: x, "nosuch", 16))):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == f"{arg}: {lib.value}"
