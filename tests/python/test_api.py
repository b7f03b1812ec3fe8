# SPDX-License-Identifier: Apache-2.0
"""The Python API's contract: shapes and strides, zero-copy, threads, SR stream, errors, limits.

Oracles: the exact values of the formats as the OCP/P3109 specs define them (format_info), the
scalar path (encode_scalar, the same engine through another entry point) for the array path, and
the CLI's messages for the errors (test_cli_equal.py compares the texts).
"""
import math
from fractions import Fraction

import numpy as np
import pytest

import minifloat as mf
from minifloat import _minifloat as ext

ml_dtypes = pytest.importorskip("ml_dtypes")


def test_zero_copy_for_contiguous_input(monkeypatch):
    """The extension reads a contiguous input's own buffer (same address), and copies a strided one."""
    seen = []
    real = ext.convert_array

    def spy(kind, x, out, *a):
        seen.append((ext.data_address(x), out))
        return real(kind, x, out, *a)

    monkeypatch.setattr(ext, "convert_array", spy)
    x = np.linspace(-3, 3, 1 << 12, dtype=np.float32).reshape(64, 64)
    codes = mf.convert(x, "e4m3fn")
    assert seen[-1][0] == x.__array_interface__["data"][0]
    assert np.shares_memory(codes, seen[-1][1])  # the result is the buffer the extension wrote
    view = mf.convert(x, "e4m3fn", as_="ml_dtypes")
    assert np.shares_memory(view, seen[-1][1]) and view.dtype == ml_dtypes.float8_e4m3fn
    mf.convert(x[:, ::2], "e4m3fn")
    assert seen[-1][0] != x.__array_interface__["data"][0]
    for dt in (np.float64, np.float16, ml_dtypes.bfloat16):
        y = x.astype(dt)
        mf.convert(y, "e5m2")
        assert seen[-1][0] == y.__array_interface__["data"][0], dt


def test_shapes_and_strides_equal_the_scalar_path():
    rng = np.random.default_rng(13)
    base = (rng.standard_normal((6, 10, 8)) * 64).astype(np.float32)
    for view in (base, base[::2], base[:, 3:7, ::3], base.transpose(2, 0, 1), base[..., 1], base[::-1, :, ::-2]):
        codes = mf.convert(view, "e4m3fn", overflow="satfinite")
        assert codes.shape == view.shape and codes.dtype == np.uint8
        want = [mf.encode_scalar(float(v), "e4m3fn", overflow="satfinite") for v in view.reshape(-1)]
        assert codes.reshape(-1).tolist() == want


def test_sixteen_bit_targets_give_uint16():
    x = np.float32([1.0, -2.5, 65504.0, 1e-8])
    assert mf.convert(x, "f16").tolist() == x.astype(np.float16).view(np.uint16).tolist()
    assert mf.convert(x, "bf16").tolist() == x.astype(ml_dtypes.bfloat16).view(np.uint16).tolist()
    assert mf.convert(x, "bf16").dtype == np.uint16


def test_decode_is_exact_and_keeps_shape():
    codes = np.arange(256, dtype=np.uint8).reshape(16, 16)
    v = mf.decode(codes, "e4m3fn", dtype="float64")
    assert v.shape == (16, 16)
    for code in (0x00, 0x01, 0x38, 0x7E, 0xFE):
        assert Fraction(float(v.reshape(-1)[code])) == mf.decode_scalar(code, "e4m3fn")
    assert math.isnan(v.reshape(-1)[0x7F])
    assert mf.decode(np.uint8([0x7E]), "e4m3fn").dtype == np.float32


def test_format_info_limits_are_exact():
    i = mf.format_info("e4m3fn")
    assert (i["max"], i["min_normal"], i["min_subnormal"]) == (448, Fraction(1, 64), Fraction(1, 512))
    assert i["max_float"] == 448.0 and i["bits"] == 8 and i["specials"] == "fn"
    e = mf.format_info("e8m0fnu")
    assert e["max"] == 2**127 and e["min_normal"] == Fraction(1, 2**127) and e["min_subnormal"] is None
    assert mf.format_info("float8_e5m2")["name"] == "e5m2"  # aliases resolve
    assert mf.format_info("e2m1fn")["max"] == 6
    assert "e4m3fn" in mf.formats() and "Binary8p3se" in mf.formats()


def test_table_matches_decode_scalar():
    t = mf.table("e2m1fn")
    assert t["code"].tolist() == list(range(16))
    assert t["exact"][:8] == ["0", "0.5", "1", "1.5", "2", "3", "4", "6"]
    assert t["class"][0] == "zero" and t["class"][1] == "subnormal"
    assert t["value"][15] == -6.0


def test_encode_scalar_exact_text_and_types():
    assert mf.encode_scalar("464", "e4m3fn") == 0x7E  # T1: the tie goes to the even 448
    assert mf.encode_scalar("464.000000000000000001", "e4m3fn") == 0x7F  # just above the tie: NaN (nonsat)
    assert mf.encode_scalar("464.000000000000000001", "e4m3fn", overflow="satfinite") == 0x7E
    # an exact decimal just above the e4m3fn tie 1.0625 rounds up, where a float would tie
    assert mf.encode_scalar("1.06250000000000000000000001", "e4m3fn") == 0x39
    assert mf.encode_scalar(1.0625, "e4m3fn") == 0x38
    assert mf.encode_scalar(Fraction(17, 16), "e4m3fn") == 0x38
    assert mf.encode_scalar(Fraction(3, 2), "e8m0fnu") == 0x80
    assert mf.encode_scalar(0x7E, "f32", source="e4m3fn") == 0x43E00000
    code, fl = mf.encode_scalar("-1e-7", "e4m3fn", flags=True)
    assert code == 0x80 and fl == mf.Flags.inexact | mf.Flags.underflow
    assert mf.decode_scalar(0x80, "e4m3fn", as_="str") == "-0"
    assert mf.decode_scalar(0x7F, "e4m3fn", as_="str") == "nan"
    assert mf.decode_scalar(0x00, "e8m0fnu") == Fraction(1, 2**127)
    # A float -NaN keeps its sign, as convert() of an f64 array does (OFP8 §1.2: NaN codes S.1111.111); it went
    # through the text "nan" and came back as 0x7f (found by test_hypothesis).
    neg_nan = float(np.array([0xFFF8000000000000], dtype=np.uint64).view(np.float64)[0])
    assert math.copysign(1.0, neg_nan) < 0
    assert mf.encode_scalar(neg_nan, "e4m3fn") == 0xFF == int(mf.convert(np.array([neg_nan]), "e4m3fn")[0])
    assert mf.encode_scalar(np.float32(neg_nan), "e5m2") == int(mf.convert(np.float32([neg_nan]), "e5m2")[0])
    assert mf.encode_scalar(float("nan"), "e4m3fn") == 0x7F


def test_flags():
    codes, fl = mf.convert(np.float32([464, 500, -1e-7]), "e4m3fn", overflow="satfinite", flags=True)
    assert codes.tolist() == [126, 126, 128]
    assert fl == mf.Flags.inexact | mf.Flags.underflow | mf.Flags.overflow
    _, fl = mf.convert(np.float32([1.0, 2.0]), "e4m3fn", flags=True)
    assert fl == mf.Flags.none


def test_sr_stream_layout_and_threads_give_identical_bytes():
    x = (np.random.default_rng(1).standard_normal(100_003) * 8).astype(np.float32)
    sr = dict(seed=0x1234_5678_9ABC, stream=7, step=3, variant="exact")
    one = mf.convert(x, "e4m3fn", round="sr", sr=sr, threads=1)
    for t in (2, 3, 8):
        assert mf.convert(x, "e4m3fn", round="sr", sr=sr, threads=t).tobytes() == one.tobytes()
    # chunking by index_base gives the same codes as one call (the documented stream layout)
    head = mf.convert(x[:50_000], "e4m3fn", round="sr", sr=sr)
    tail = mf.convert(x[50_000:], "e4m3fn", round="sr", sr=dict(sr, index_base=50_000))
    assert np.concatenate([head, tail]).tobytes() == one.tobytes()
    # element i reads sr_bits(seed, stream, step, i): the scalar path with those bits agrees
    for i in (0, 1, 2, 99_999):
        want = mf.encode_scalar(float(x[i]), "e4m3fn", round="sr", sr=dict(sr, index_base=i))
        assert int(one[i]) == want
    bits = mf.sr_bits(sr["seed"], 7, 3, 4)
    assert bits.dtype == np.uint64 and len(set(bits.tolist())) == 4
    assert mf.sr_bits(sr["seed"], 7, 3, 2, index_base=2).tolist() == bits[2:].tolist()
    a32 = mf.sr_bits(5, 0, 0, 8, "A")
    assert int(a32.max()) < 2**32  # one 32-bit word per element for A/B/C/equal


def test_threads_give_identical_bytes_in_every_mode():
    rng = np.random.default_rng(7)
    x64 = rng.standard_normal(200_003) * np.float64(2.0) ** rng.integers(-12, 12, 200_003)
    for x in (x64, x64.astype(np.float32), x64.astype(np.float16)):
        for fmt, rnd in (("e4m3fn", "rne"), ("e5m2", "rtz"), ("e2m1fn", "rna"), ("e8m0fnu", "rtp")):
            one = mf.convert(x, fmt, round=rnd)
            for t in (2, 3, 8):
                assert mf.convert(x, fmt, round=rnd, threads=t).tobytes() == one.tobytes(), (x.dtype, fmt, rnd, t)
    # threads=0 is all cores, as None (one convention: the library, the CLI's --threads 0, Python)
    x = x64.astype(np.float32)
    sr = dict(seed=1, variant="A", bits=5)
    codes = np.arange(256, dtype=np.uint8)
    for kw in (dict(round="rne"), dict(round="sr", sr=sr)):
        one = mf.convert(x, "e4m3fn", threads=1, **kw)
        assert mf.convert(x, "e4m3fn", threads=0, **kw).tobytes() == one.tobytes(), kw
        one = mf.convert(np.tile(codes, 100), "e2m1fn", source="e5m2", threads=1, **kw)
        assert mf.convert(np.tile(codes, 100), "e2m1fn", source="e5m2", threads=0, **kw).tobytes() == one.tobytes()
    with pytest.raises(ValueError, match="threads: -1 is out of range; accepted: 0..4096"):
        mf.convert(np.float32([1.0]), "e4m3fn", threads=-1)


@pytest.mark.parametrize("bad, exc, msg", [
    (np.complex64([1j]), TypeError, "complex arrays"),
    (np.array([1.0, "a"], dtype=object), TypeError, "arrays of object"),
    (np.int32([1]), TypeError, "integer arrays of int32"),
    (np.array([True]), TypeError, "arrays of bool"),
    (np.uint8([1]), ValueError, "need source=FORMAT"),
    ("1.0", TypeError, "expected a NumPy array"),
])
def test_bad_inputs_raise(bad, exc, msg):
    with pytest.raises(exc, match=msg):
        mf.convert(bad, "e4m3fn")


def test_0d_and_empty_arrays_keep_their_shape_as_the_cli_does():
    # A new user found 0-d and empty arrays refused here though `minifloat convert` takes them.
    zero_d = mf.convert(np.float32(464.0), "e4m3fn", overflow="satfinite")
    assert zero_d.shape == () and zero_d.dtype == np.uint8
    assert int(zero_d) == int(mf.convert(np.float32([464.0]), "e4m3fn", overflow="satfinite")[0]) == 0x7e
    for shape in ((0,), (3, 0), (0, 2, 5)):
        for dt in (np.float32, np.float64, np.float16):
            got = mf.convert(np.zeros(shape, dt), "e4m3fn")
            assert got.shape == shape and got.dtype == np.uint8
        assert mf.convert(np.zeros(shape, np.float32), "Binary16p8se").dtype == np.uint16
        assert mf.decode(np.zeros(shape, np.uint8), "e4m3fn").shape == shape
    assert mf.decode(np.uint8(0x7e), "e4m3fn").shape == ()
    assert float(mf.decode(np.uint8(0x7e), "e4m3fn")) == 448.0
    # An empty array still has its names checked.
    with pytest.raises(ValueError, match="fmt: unknown format 'e9m9'"):
        mf.convert(np.float32([]), "e9m9")
    with pytest.raises(ValueError, match="round: unknown rounding mode"):
        mf.convert(np.float32([]), "e4m3fn", round="nearest")


def test_as_torch_without_torch_names_what_is_accepted():
    try:
        import torch  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="as_='torch' needs the torch package.*accepted: as_='codes' or as_='ml_dtypes'"):
            mf.convert(np.float32([1.0]), "e4m3fn", as_="torch")
    else:
        pytest.skip("torch is installed: the error for its absence cannot show here")


@pytest.mark.parametrize("kw, msg", [
    (dict(fmt="e9m9"), "fmt: unknown format 'e9m9'; accepted: e4m3fn, e5m2"),
    (dict(round="nearest"), "round: unknown rounding mode 'nearest'; accepted: rne, rna, rtz, rtp, rtn, rto, sr"),
    (dict(overflow="clip"), "overflow: unknown overflow policy 'clip'; accepted: nonsat, satfinite, satpropagate"),
    (dict(profile="amd"), "profile: unknown profile 'amd'; accepted: ocp, nvidia, ml_dtypes, p3109"),
    (dict(fmt="f32"), "fmt: codes of f32 are 32 bits wide"),
    (dict(round="sr"), "round: 'sr' needs sr="),
    (dict(sr=dict(seed=1)), "sr: given, but round is not 'sr'"),
    (dict(round="sr", sr=dict(seed=1, bits=65)), r"sr\['bits'\]: 65 is out of range; accepted: 1..64"),
    (dict(round="sr", sr=dict(seed=1, colour=2)), "sr: unknown key 'colour'"),
    (dict(round="sr", sr=dict(seed=1, variant="D")), r"sr\['variant'\]: unknown stochastic-rounding variant 'D'; accepted: exact, A, B, C, equal"),
    (dict(as_="jax"), "as_: unknown output kind 'jax'; accepted: codes, ml_dtypes, torch"),
    (dict(fmt="ue4m3", as_="ml_dtypes"), "as_: format ue4m3 has no ml_dtypes dtype"),
])
def test_bad_names_raise_one_line_value_errors(kw, msg):
    kw = dict(kw)
    fmt = kw.pop("fmt", "e4m3fn")
    with pytest.raises(ValueError, match=msg) as e:
        mf.convert(np.float32([1.0]), fmt, **kw)
    assert "\n" not in str(e.value)


def test_code_inputs_checked():
    with pytest.raises(ValueError, match="code 0x10 at index 1 is wider than the 4 bits of e2m1fn"):
        mf.convert(np.uint8([1, 0x10]), "e4m3fn", source="e2m1fn")
    with pytest.raises(ValueError, match="disagrees with the array's dtype"):
        mf.convert(np.uint8([1]).view(ml_dtypes.float8_e5m2), "e4m3fn", source="e4m3fn")
    with pytest.raises(ValueError, match="is wider than the 6 bits of e3m2fn"):
        mf.decode(np.uint8([0x40]), "e3m2fn")
    with pytest.raises(ValueError, match="dtype: 'float16' is not accepted"):
        mf.decode(np.uint8([0]), "e4m3fn", dtype="float16")
    with pytest.raises(ValueError, match="value: .*accepted"):
        mf.encode_scalar("1.2.3", "e4m3fn")


def test_names_registry():
    n = mf.names()
    assert "rne" in n["rounding"]["names"] and "satfinite" in n["overflow"]["names"]
    assert "e4m3fn" in n["format"]["names"]
    with pytest.raises(ValueError, match="unknown name kind"):
        mf.names("colour")


def test_torch_dlpack_round_trip():
    torch = pytest.importorskip("torch")
    t = torch.tensor([464.0, 500.0, -1e-7], dtype=torch.float32)
    codes = mf.convert(t, "e4m3fn", overflow="satfinite")
    assert isinstance(codes, torch.Tensor) and codes.dtype == torch.uint8
    assert codes.tolist() == [126, 126, 128]
    assert codes.view(torch.float8_e4m3fn).float().tolist() == [448.0, 448.0, -0.0]
    for dt in (torch.bfloat16, torch.float16):
        x = torch.linspace(-300, 300, 1001).to(dt)
        want = mf.convert(x.float().numpy(), "e4m3fn")  # bf16/f16 -> f32 is exact
        assert mf.convert(x, "e4m3fn").numpy().tolist() == want.tolist()
    # zero-copy in: the tensor's storage is what the extension reads
    x = torch.ones(1024)
    assert mf._from_torch(x)[0].__array_interface__["data"][0] == x.data_ptr()
    assert mf.decode(codes, "e4m3fn").tolist() == [448.0, 448.0, -0.0]


@pytest.mark.parametrize("bits", [0, 65, -1, 2**40])
def test_sr_bits_out_of_range_has_one_message_on_every_front_end(bits):
    # The library's one check (sr_bits_problem) answers for convert, encode_scalar, quantize and check.
    msg = rf"sr\['bits'\]: {bits} is out of range; accepted: 1..64"
    sr = dict(seed=1, variant="A", bits=bits)
    with pytest.raises(ValueError, match=msg):
        mf.convert(np.float32([1.0]), "e4m3fn", round="sr", sr=sr)
    with pytest.raises(ValueError, match=msg):
        mf.encode_scalar(1.0, "e4m3fn", round="sr", sr=sr)
    with pytest.raises(ValueError, match=msg):
        mf.quantize(np.ones((2, 32), np.float32), "mxfp8_e4m3", round="sr", sr=sr)
    with pytest.raises(ValueError, match=msg):
        mf.check(lambda x, r: x, "e4m3fn", n=16, round="sr", sr=dict(variant="A", bits=bits))
