# SPDX-License-Identifier: Apache-2.0
"""minifloat: the bit-exact reference for low-precision ML number formats, from NumPy and PyTorch.

Every function here runs the compiled C++ library minifloat::minifloat (the code the ``minifloat``
CLI links): one rounding engine (round_pack), formats as data, every choice an explicit argument.

Codes
    A code is the raw bit pattern of one value, right-aligned in an unsigned integer:
    ``[S] E...E M...M`` (sign, biased exponent, trailing significand; OCP OFP8 v1.0 Table 1,
    OCP MX v1.0 §5, IEEE P3109 interim report v4.0). Formats of at most 8 bits give ``uint8``
    arrays (an e2m1fn code is the low 4 bits of its byte, an e3m2fn code the low 6), formats of
    9..16 bits ``uint16`` arrays. ``convert(..., as_="ml_dtypes")`` views them, without a copy, as
    the matching ml_dtypes dtype (``float8_e4m3fn``, ``float4_e2m1fn``, ...).

Names
    Formats, rounding modes, overflow policies, profiles and SR variants are named as the CLI and
    ``minifloat names`` name them (``names()`` lists them all); an unknown name raises ValueError
    with the CLI's one-line message, listing the accepted names. Each name is parsed once, by the
    library, into a bound object (``Format``, ``RoundingSpec``, ``Profile``) that is cached per name
    and handed to the compiled core; wherever a format or a profile is asked for, an already made
    ``Format``/``Profile`` is accepted too (``convert(x, Format("e4m3fn"), profile=Profile("ocp"))``).

Errors
    ValueError for a bad value or name, TypeError for an unsupported array type (complex, object,
    signed integers, ...); messages are one line, as the CLI's.
"""
from __future__ import annotations

import enum as _enum
import functools as _functools
import math as _math
import numbers as _numbers
from fractions import Fraction as _Fraction
from typing import Any as _Any

import numpy as _np

from . import _minifloat as _ext

__all__ = [
    "Format", "RoundingSpec", "Profile", "Flags", "convert", "decode", "sr_bits", "formats", "format_info", "table",
    "encode_scalar", "decode_scalar", "names", "ml_dtype", "check", "CheckReport", "quantize", "report", "Quantized",
    "schemes", "dot", "gemm", "__version__",
]

__version__: str = _ext.version  #: CMake's project(VERSION), compiled into the extension

Format = _ext.Format  #: a parsed format: ``Format("e4m3fn")``; .name .bits .exponent_bits .mantissa_bits .bias .signed
RoundingSpec = _ext.RoundingSpec  #: ``RoundingSpec(round, overflow, sr_variant, sr_bits)``; same-named properties
Profile = _ext.Profile  #: a parsed vendor profile: ``Profile("nvidia")``; .name

try:  # optional: views of codes as ml_dtypes dtypes, bfloat16/float8 inputs
    import ml_dtypes as _mld
except ImportError:  # pragma: no cover - exercised only without ml_dtypes
    _mld = None


class Flags(_enum.IntFlag):
    """IEEE-style exception flags, ORed over every element (core/rounding.hpp ``Flags``)."""

    none = 0
    inexact = 1    #: the result differs from the exact input
    underflow = 2  #: inexact and tiny after rounding (as MPFR)
    overflow = 4   #: the rounded magnitude, with unbounded exponent range, exceeds the max finite value
    invalid = 8    #: a NaN input made a number, or a NaN made other than by finite overflow


# minifloat format name -> ml_dtypes dtype name (ml_dtypes 0.6).
# From the core's table of named formats (core/named_formats.hpp): format -> ml_dtypes dtype name.
_ML_DTYPES = {name: ml for name, ml, _ in _ext.named_format_dtypes() if ml}
_ML_TO_FORMAT = {v: k for k, v in _ML_DTYPES.items()}

_AS_CHOICES = ("codes", "ml_dtypes", "torch")
_SR_KEYS = ("seed", "stream", "step", "variant", "bits", "index_base")


def _is_torch(x: _Any) -> bool:
    return type(x).__module__.split(".")[0] == "torch"


@_functools.lru_cache(maxsize=1024)
def _parse_format(name: str) -> Format:
    return Format(name)  # the library's parse_format, once per name


@_functools.lru_cache(maxsize=64)
def _parse_profile(name: str) -> Profile:
    return Profile(name)


@_functools.lru_cache(maxsize=1024)
def _parse_spec(round: str, overflow: str, variant: str, nbits: int, ftz: bool = False,
                daz: bool = False) -> RoundingSpec:
    return RoundingSpec(round, overflow, variant, nbits, ftz=ftz, daz=daz)  # each field's error names its argument


def _flag(arg: str, v: _Any) -> bool:
    """``ftz=``/``daz=``: True or False only (TypeError naming the argument)."""
    if type(v) is not bool:
        raise TypeError(f"{arg}: expected True or False, got {type(v).__name__}")
    return v


def _format(arg: str, v: _Any) -> Format:
    """The bound Format of ``v`` (a name, parsed once and cached, or a Format); errors name ``arg``."""
    if type(v) is str:  # the hot path: one cache look-up
        try:
            return _parse_format(v)
        except ValueError as e:
            raise ValueError(f"{arg}: {e}") from None
    if isinstance(v, Format):
        return v
    return _format(arg, str(_name(arg, v)))  # a str subclass, or TypeError naming arg


def _profile(v: _Any) -> Profile:
    if type(v) is str:
        try:
            return _parse_profile(v)
        except ValueError as e:
            raise ValueError(f"profile: {e}") from None
    if isinstance(v, Profile):
        return v
    return _profile(str(_name("profile", v)))


def _spec(round: _Any, overflow: _Any, variant: _Any = "exact", nbits: int = 8, ftz: _Any = False,
          daz: _Any = False) -> RoundingSpec:
    ftz, daz = _flag("ftz", ftz), _flag("daz", daz)
    if type(round) is str and type(overflow) is str and type(variant) is str:
        return _parse_spec(round, overflow, variant, nbits, ftz, daz)
    return _parse_spec(str(_name("round", round)), str(_name("overflow", overflow)),
                       str(_name("sr['variant']", variant)), nbits, ftz, daz)


def ml_dtype(fmt: str | Format) -> _np.dtype:
    """The ml_dtypes dtype whose bits are the codes of ``fmt`` (``"e4m3fn"`` -> ``float8_e4m3fn``).

    ``f16`` gives NumPy's float16. Raises ValueError for a format ml_dtypes lacks (ue4m3, P3109,
    custom) and ImportError when ml_dtypes is not installed.
    """
    f = _format("fmt", fmt)
    if f.name == "f16":
        return _np.dtype(_np.float16)
    try:
        ml = _ext.ml_dtypes_name(f)  # the library's one rule (convert --as ml_dtypes refuses the same formats)
    except ValueError as e:
        raise ValueError(f"as_: {e}") from None
    if _mld is None:
        raise ImportError("as_='ml_dtypes' needs the ml_dtypes package")
    return _np.dtype(getattr(_mld, ml))


def _from_torch(t: _Any) -> tuple[_np.ndarray, str | None]:
    """A CPU torch tensor as a NumPy view through DLPack (zero-copy); bf16 crosses as int16 bits."""
    import torch

    if t.device.type != "cpu":
        raise ValueError(f"x: torch tensors must be on the CPU (got device {t.device})")
    if t.dtype == torch.bfloat16:
        return _np.from_dlpack(t.view(torch.int16)).view(_np.uint16), "bf16"
    if t.dtype in (torch.float32, torch.float64, torch.float16, torch.uint8):
        return _np.from_dlpack(t), None
    if str(t.dtype).startswith("torch.float8"):  # DLPack refuses float8 (dmlc/dlpack#156): cross as uint8
        return _np.from_dlpack(t.view(torch.uint8)), _TORCH_F8.get(str(t.dtype))
    raise TypeError(f"x: torch dtype {t.dtype} is not accepted; accepted: float32, float64, float16, bfloat16, "
                    "float8 (as codes), uint8 codes")


# str(torch dtype) -> format, for the float8 dtypes of the core's table (core/named_formats.hpp).
_TORCH_F8 = {f"torch.{t}": name for name, _, t in _ext.named_format_dtypes() if t.startswith("float8")}


def _need_torch() -> _Any:
    try:
        import torch
    except ImportError:
        raise ImportError("as_='torch' needs the torch package (pip install torch); without it, accepted: "
                          "as_='codes' or as_='ml_dtypes'") from None
    return torch


def _to_torch(a: _np.ndarray) -> _Any:
    torch = _need_torch()

    if a.dtype == _np.uint16:  # torch.uint16 has few operators; the bits cross as int16
        return torch.from_dlpack(a.view(_np.int16))
    return torch.from_dlpack(a)


def _as_array(x: _Any, arg: str) -> tuple[_np.ndarray, str | None, bool]:
    """(array, format implied by its dtype or None, came from torch)."""
    if _is_torch(x):
        a, implied = _from_torch(x)
        return a, implied, True
    if isinstance(x, _np.ndarray):
        a = x
    elif hasattr(x, "__dlpack__") and not isinstance(x, (str, bytes)):  # JAX, CuPy (CPU), ...: zero-copy
        a = _np.from_dlpack(x)
    else:
        if isinstance(x, (str, bytes)) or x is None:
            raise TypeError(f"{arg}: expected a NumPy array or a CPU torch tensor, got {type(x).__name__}")
        a = _np.asarray(x)
    if not a.dtype.isnative:  # big-endian ('>f4', '>u2'): one byteswapped copy, as a non-contiguous array is copied
        a = a.astype(a.dtype.newbyteorder("="))
    implied = None
    if _mld is not None and a.dtype.name in _ML_TO_FORMAT:
        implied = _ML_TO_FORMAT[a.dtype.name]
    return a, implied, False


def _check_shape(a: _np.ndarray, arg: str) -> None:
    if a.ndim == 0:
        raise ValueError(f"{arg}: 0-d arrays are not accepted; accepted: arrays of 1 or more dimensions "
                         "(use encode_scalar for one value, or x.reshape(1))")
    if a.size == 0:
        raise ValueError(f"{arg}: the array is empty (shape {a.shape}); accepted: arrays with at least one element")


def _flat(a: _np.ndarray) -> _np.ndarray:
    """A flat C-contiguous view of ``a`` (row-major order); copies only a non-contiguous ``a``."""
    return _np.ascontiguousarray(a).reshape(-1)


def _sr_args(sr: _Any) -> tuple[str, int, tuple[int, int, int, int] | None]:
    if sr is None:
        return "exact", 8, None
    if not isinstance(sr, dict):
        raise TypeError("sr: expected a dict(seed=..., stream=..., step=..., variant=..., bits=..., index_base=...)")
    unknown = [k for k in sr if k not in _SR_KEYS]
    if unknown:
        raise ValueError(f"sr: unknown key {unknown[0]!r}; accepted: {', '.join(_SR_KEYS)}")
    if "seed" not in sr:
        raise ValueError("sr: 'seed' is required; accepted keys: " + ", ".join(_SR_KEYS))
    seed = _int_in("sr['seed']", sr["seed"], 0, 2**64 - 1)
    stream = _int_in("sr['stream']", sr.get("stream", 0), 0, 2**32 - 1)
    step = _int_in("sr['step']", sr.get("step", 0), 0, 2**32 - 1)
    base = _int_in("sr['index_base']", sr.get("index_base", 0), 0, 2**64 - 1)
    bits = _sr_nbits(sr.get("bits", 8))
    variant = sr.get("variant", "exact")
    if not isinstance(variant, str):
        raise TypeError("sr['variant']: expected a name (exact, A, B, C, equal)")
    return variant, bits, (seed, stream, step, base)


def _int_in(arg: str, v: _Any, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, _numbers.Integral):
        raise TypeError(f"{arg}: expected an integer in {lo}..{hi}, got {type(v).__name__}")
    v = int(v)
    if not lo <= v <= hi:
        raise ValueError(f"{arg}: {v} is out of range; accepted: {lo}..{hi}")
    return v


def _sr_nbits(v: _Any) -> int:
    # An integer only: the library's one sr_bits check (sr_bits_problem) says what is accepted.
    return _int_in("sr['bits']", v, -2**63, 2**63 - 1)


def _threads(threads: _Any) -> int:
    # None and 0 are all cores (the library's default_threads(); one convention everywhere).
    return 0 if threads is None else _int_in("threads", threads, 0, 4096)


def _name(arg: str, v: _Any) -> str:  # a Format/Profile argument also takes its bound object (_format, _profile)
    if not isinstance(v, str):
        raise TypeError(f"{arg}: expected a name (str), got {type(v).__name__}")
    return v


def convert(x: _Any, fmt: str | Format, *, round: str = "rne", overflow: str = "nonsat", profile: str | Profile = "ocp",
            sr: dict | None = None, source: str | Format | None = None, as_: str = "codes", flags: bool = False,
            threads: int | None = None, ftz: bool = False, daz: bool = False) -> _Any:
    """Round every element of ``x`` once into format ``fmt``; returns the codes (shape of ``x``).

    x
        float64 / float32 / float16 arrays (exact values, rounded once: an f64 is not rounded to
        f32 first unless ``profile="ml_dtypes"``, spec-digest D11), ml_dtypes arrays (bfloat16,
        float8_*, float6_*, float4_*: their codes, converted from their own format), integer code
        arrays (``uint8``/``uint16``) with ``source=FORMAT``, or CPU torch tensors (float32,
        float16, bfloat16, float64; through DLPack, zero-copy). Any shape, 0-d and empty included (as the CLI),
        any strides (non-contiguous inputs are copied once; contiguous ones are read in place).
    fmt
        Target format (``formats()``; aliases and ``custom:E,M,BIAS,...`` accepted), at most 16 bits.
    round
        rne rna rtz rtp rtn rto sr (IEEE 754-2019 §4.3 names; ``sr`` needs ``sr=``), rnz (nearest, ties
        toward zero: CPFloat RNZ, DeepGEMM's FP4 cast), rnu (nearest, ties toward +Inf: AMD Quark's DPU_ROUND).
    overflow
        nonsat satfinite satpropagate (P3109 SatNone/SatFinite/SatPropagate; OCP "SAT" = satfinite).
    profile
        ocp (default) nvidia ml_dtypes p3109: the vendor choices of spec-digest §9.
    sr
        Stochastic rounding: ``dict(seed=, stream=0, step=0, variant="exact", bits=8, index_base=0)``.
        Element i (row-major flat index) reads ``sr_bits(seed, stream, step, index_base + i, variant)``;
        ``bits`` is N (1..64; N > 32 reads two 32-bit words, low first) of the P3109 variants A/B/C and
        gfloat's ``stochastic_odd``. Independent of ``threads``.
    source
        The format of integer code inputs (required for them; must match an ml_dtypes dtype's format).
    as_
        ``"codes"`` (uint8/uint16; a torch tensor in gives a torch tensor out), ``"ml_dtypes"`` (a
        zero-copy view with the matching ml_dtypes dtype), ``"torch"`` (torch.uint8 that
        ``.view(torch.float8_e4m3fn)`` reinterprets; uint16 codes come as torch.int16 bits).
    flags
        Also return the ORed ``Flags`` of every element: ``(codes, flags)``.
    threads
        How many std::threads split the array (None or 0 = all cores, else 1..4096), for every mode; the
        bytes are identical for every thread count (the C++ array door's ``threads``).
    ftz, daz
        RoundingSpec::ftz (a result that rounds to a subnormal of ``fmt`` becomes +-0, rounding first) and
        ::daz (subnormal inputs, of the array's own format, read as +-0); the CLI's ``--ftz``/``--daz``.

    Example: ``convert(np.float32([464, 500, -1e-7]), "e4m3fn", overflow="satfinite")`` ->
    ``array([126, 126, 128], dtype=uint8)`` (0x7e = 448 = max; 0x80 = -0).
    """
    if not isinstance(fmt, Format):
        fmt = _name("fmt", fmt)
    if as_ not in _AS_CHOICES:
        raise ValueError(f"as_: unknown output kind {as_!r}; accepted: {', '.join(_AS_CHOICES)}")
    if as_ == "torch":
        _need_torch()  # before any work
    a, implied, from_torch = _as_array(x, "x")
    if source is not None and not isinstance(source, Format):
        source = _name("source", source)
    dt = a.dtype
    if dt.kind == "c":
        raise TypeError(f"x: complex arrays ({dt}) are not accepted; accepted: float64, float32, float16, "
                        "bfloat16, ml_dtypes floats, uint8/uint16 codes with source=")
    if dt.kind == "O" or dt.kind in "USVMmb" and implied is None:
        raise TypeError(f"x: arrays of {dt} are not accepted; accepted: float64, float32, float16, bfloat16, "
                        "ml_dtypes floats, uint8/uint16 codes with source=")
    if implied is not None and implied != "bf16":
        if source is not None and _format("source", source) != _format("source", implied):
            shown = source.name if isinstance(source, Format) else source
            raise ValueError(f"source: {shown!r} disagrees with the array's dtype ({dt}, format {implied})")
        source, kind = implied, _ext.ArrayType.codes
        flat = _flat(a).view(_np.uint8) if a.dtype.itemsize == 1 else _flat(a).view(_np.uint16)
    elif implied == "bf16":
        kind, flat = _ext.ArrayType.bf16, _flat(a).view(_np.uint16)
    elif dt == _np.float32:
        kind, flat = _ext.ArrayType.f32, _flat(a)
    elif dt == _np.float64:
        kind, flat = _ext.ArrayType.f64, _flat(a)
    elif dt == _np.float16:
        kind, flat = _ext.ArrayType.f16, _flat(a).view(_np.uint16)
    elif dt == _np.uint8 or dt == _np.uint16:
        if source is None:
            raise ValueError(f"source: {dt} arrays are codes and need source=FORMAT (e.g. source='e4m3fn'); "
                             "float values must come as float64/float32/float16/bfloat16")
        kind, flat = _ext.ArrayType.codes, _flat(a)
    elif dt.kind in "iu":
        raise TypeError(f"x: integer arrays of {dt} are not accepted; accepted: uint8/uint16 codes with "
                        "source=FORMAT, or float arrays")
    else:
        raise TypeError(f"x: arrays of {dt} are not accepted; accepted: float64, float32, float16, bfloat16, "
                        "ml_dtypes floats, uint8/uint16 codes with source=")
    if kind != _ext.ArrayType.codes and source is not None:
        raise ValueError(f"source: only for integer code arrays; x is {dt}")
    variant, nbits, srt = _sr_args(sr)
    to = _format("fmt", fmt)
    spec = _spec(round, overflow, variant, nbits, ftz, daz)
    prof = _profile(profile)
    src = None if source is None else _format("source", source)
    out = _np.empty(flat.shape, _np.uint8 if to.bits <= 8 else _np.uint16)
    fl = _ext.convert_array(kind, flat, out, to, src, spec, prof, srt, _threads(threads))
    codes = out.reshape(a.shape)
    if as_ == "ml_dtypes":
        result = codes.view(ml_dtype(to))
    elif as_ == "torch" or (from_torch and as_ == "codes"):
        result = _to_torch(codes)
    else:
        result = codes
    return (result, Flags(fl)) if flags else result


def decode(codes: _Any, fmt: str | Format, *, dtype: str = "float32", profile: str | Profile = "ocp") -> _Any:
    """The values of ``codes`` of format ``fmt`` as a float32 or float64 array (shape of ``codes``).

    codes: uint8 (formats of <= 8 bits) or uint16 arrays, ml_dtypes arrays (their bits), or CPU
    torch uint8 tensors. float64 is exact for every format of <= 16 bits; float32 rounds to nearest
    even (exact but for e8m0fnu's extremes beyond f32, and P3109 16-bit formats). ``profile="..."``
    with ``decode_ftz`` (none of the named ones) would flush subnormal results. A code with bits set
    above the format's width raises ValueError naming its index.
    Example: ``decode(np.uint8([0x7e, 0x7f]), "e4m3fn")`` -> ``[448., nan]``.
    """
    if not isinstance(fmt, Format):
        fmt = _name("fmt", fmt)
    if dtype not in ("float32", "float64"):
        raise ValueError(f"dtype: {dtype!r} is not accepted; accepted: float32, float64")
    a, implied, from_torch = _as_array(codes, "codes")
    if a.dtype.kind == "c" or a.dtype.kind == "O":
        raise TypeError(f"codes: arrays of {a.dtype} are not accepted; accepted: uint8, uint16 or ml_dtypes arrays")
    if implied is not None:
        if _format("fmt", fmt).name != implied:
            shown = fmt.name if isinstance(fmt, Format) else fmt
            raise ValueError(f"fmt: {shown!r} disagrees with the array's dtype ({a.dtype}, format {implied})")
        flat = _flat(a).view(_np.uint8 if a.dtype.itemsize == 1 else _np.uint16)
    elif a.dtype in (_np.uint8, _np.uint16):
        flat = _flat(a)
    else:
        raise TypeError(f"codes: arrays of {a.dtype} are not accepted; accepted: uint8, uint16 or ml_dtypes arrays")
    out = _np.empty(flat.shape, _np.float32 if dtype == "float32" else _np.float64)
    _ext.decode_array(flat, out, _format("fmt", fmt), _profile(profile))
    res = out.reshape(a.shape)
    return _to_torch(res) if from_torch else res


def sr_bits(seed: int, stream: int, step: int, n: int, variant: str = "exact", *, index_base: int = 0,
            bits: int = 8) -> _np.ndarray:
    """The random words stochastic rounding reads, as a uint64 array of ``n`` elements.

    Element i is ``sr_bits(seed, stream, step, index_base + i, spec)`` of core/random.hpp: cuRAND's
    Philox4x32-10 stream with key = seed, subsequence = step * 2**32 + stream, offset = index *
    sr_words(spec); the exact variant, and A/B/C/stochastic_odd with ``bits`` > 32, use 64 bits (two
    consecutive words, low first), the others one 32-bit word. The same bits as ``convert(..., round="sr",
    sr=dict(..., bits=))`` uses.
    """
    seed = _int_in("seed", seed, 0, 2**64 - 1)
    stream = _int_in("stream", stream, 0, 2**32 - 1)
    step = _int_in("step", step, 0, 2**32 - 1)
    n = _int_in("n", n, 1, 2**40)
    index_base = _int_in("index_base", index_base, 0, 2**64 - 1)
    out = _np.empty(n, _np.uint64)
    nbits = _int_in("bits", bits, -2**63, 2**63 - 1)  # the range is the library's one check (sr_bits_problem)
    _ext.sr_bits_array(out, seed, stream, step, index_base, _name("variant", variant), nbits)
    return out


def formats() -> list[str]:
    """Canonical names of every registered format: e4m3fn e5m2 ... f32 f64, then P3109 Binary{K}p{P}{s|u}{e|f}."""
    return list(_ext.format_names())


def _float_of(fr: _Fraction) -> float:
    try:
        return float(fr)
    except OverflowError:
        return _math.inf


def format_info(name: str | Format) -> dict:
    """A format's fields and limits.

    Keys: name, bits, exponent_bits, mantissa_bits, precision, bias, signed, specials (ieee fn fnuz
    p3109_extended none), has_zero, has_inf, has_nan, has_negative_zero, emin, emax, max_code (the
    largest finite magnitude code), family, summary; ``max``, ``min_normal``, ``min_subnormal`` as
    exact ``fractions.Fraction`` (min_subnormal None without subnormals) and ``max_float``,
    ``min_normal_float``, ``min_subnormal_float`` as Python floats (nearest; inf beyond float range).
    Example: ``format_info("e4m3fn")["max"] == 448``.
    """
    d = dict(_ext.format_info(_format("name", name)))
    for k in ("max", "min_normal", "min_subnormal"):
        if d[k] is not None:
            d[k] = _Fraction(d[k])
            d[k + "_float"] = _float_of(d[k])
        else:
            d[k + "_float"] = None
    return d


def table(fmt: str | Format) -> dict:
    """Every code of ``fmt`` (at most 16 bits): ``code`` (uint64 array), ``class`` (list of zero,
    subnormal, normal, inf, nan), ``exact`` (exact decimal strings), ``value`` (float64 array, exact)."""
    f = _format("fmt", fmt)
    codes, classes, exact = _ext.code_table(f)
    c = _np.asarray(codes, dtype=_np.uint64)
    store = c.astype(_np.uint8 if f.bits <= 8 else _np.uint16)
    value = _np.empty(c.shape, _np.float64)
    _ext.decode_array(store, value, f, _profile("ocp"))
    return {"code": c, "class": list(classes), "exact": list(exact), "value": value}


def _rational_text(num: int, den: int) -> str:
    """Exact hex-float text of num/den (den > 0) that the library's parse_value reads as the exact value.

    The quotient's top 66 or 67 bits are written exactly, the lowest set when the division is inexact:
    parse_value keeps 64 bits and folds the rest into its sticky bit, so the text rounds in every mode
    (and stochastic rounding's 64-bit comparison) as the exact rational does. No decimal string is made,
    so ints of any size (10**5000) escape Python's int-to-str digit limit.
    """
    if num == 0:
        return "0"
    sign = "-" if num < 0 else ""
    n = -num if num < 0 else num
    k = n.bit_length() - den.bit_length() - 65  # n/den = q·2^k with q of 65 or 66 bits
    q, r = divmod(n, den << k) if k >= 0 else divmod(n << -k, den)
    return f"{sign}0x{(q << 1) | (1 if r else 0):x}p{k - 1}"


def _exact_text(v: _Any) -> str:
    if isinstance(v, bool):
        raise TypeError("value: expected a number or exact text, got bool")
    if isinstance(v, str):
        return v
    if isinstance(v, _numbers.Integral):
        return _rational_text(int(v), 1)
    if isinstance(v, (float, _np.floating)):
        return float(v).hex() if _math.isfinite(float(v)) else repr(float(v))
    if isinstance(v, _numbers.Rational):  # Fraction: rounded exactly, whatever its denominator
        return _rational_text(int(v.numerator), int(v.denominator))
    if hasattr(v, "as_tuple"):  # decimal.Decimal
        return str(v)
    raise TypeError(f"value: expected str, int, float, Fraction, Decimal or an ml_dtypes/NumPy scalar, "
                    f"got {type(v).__name__}")


def encode_scalar(value: _Any, fmt: str | Format, *, round: str = "rne", overflow: str = "nonsat",
                  profile: str | Profile = "ocp", source: str | Format | None = None, sr: dict | None = None,
                  flags: bool = False) -> _Any:
    """The code of one value in ``fmt``, rounded once from its exact value (as ``minifloat encode``).

    value: exact text (decimal ``"-1e-7"``, hex float ``"0x1.8p3"``, ``"inf"``, ``"nan"``), int (any
    size: ``10**5000`` overflows as the CLI's ``1e5000``), float or NumPy float scalar (exactly),
    ``Fraction`` (any rational, rounded exactly: ``Fraction(1, 3)``), Decimal, or an ml_dtypes scalar
    (``ml_dtypes.bfloat16(1.5)``: its code in its own format, NaN sign kept); with ``source=FORMAT`` an
    int code (or ``"0x.."`` text) of that format. ``sr``: as in convert; the value is element ``index_base``.
    Returns the int code, or ``(code, Flags)`` with ``flags=True``.
    Example: ``encode_scalar("464", "e4m3fn")`` -> 0x7f (NaN: nonsat overflow); with
    ``overflow="satfinite"`` -> 0x7e.
    """
    if source is not None:
        if not isinstance(source, Format):
            source = _name("source", source)
        if isinstance(value, _numbers.Integral) and not isinstance(value, bool):
            if value < 0:
                raise ValueError(f"value: code {value} is negative; accepted: 0 .. 2^bits - 1")
            text = hex(int(value))
        else:
            text = _name("value", value)
    elif isinstance(value, (float, _np.floating)) and _math.isnan(float(value)):
        # A float NaN is taken as its binary64 bits (its sign and payload, as convert() sees an f64 array):
        # as text it was "nan", which dropped the sign (-NaN gave 0x7f where convert gives 0xff).
        source = "f64"
        text = hex(int(_np.array(float(value), dtype=_np.float64).view(_np.uint64)))
    elif isinstance(value, _np.generic) and value.dtype.name in _ML_TO_FORMAT:  # ml_dtypes scalar: its code
        source = _ML_TO_FORMAT[value.dtype.name]
        text = hex(int(_np.asarray(value).view(_np.uint8 if value.dtype.itemsize == 1 else _np.uint16)))
    else:
        text = _exact_text(value)
    variant, nbits, srt = _sr_args(sr)
    rbits = 0
    if srt is not None:
        if round != "sr":
            raise ValueError("sr: given, but round is not 'sr'")
        rbits = int(sr_bits(srt[0], srt[1], srt[2], 1, variant, index_base=srt[3])[0])
    elif round == "sr":
        raise ValueError("round: 'sr' needs sr=dict(seed=..., stream=..., step=..., variant=..., bits=...)")
    to = _format("fmt", fmt)
    spec = _spec(round, overflow, variant, nbits)
    prof = _profile(profile)
    code, fl = _ext.encode_scalar(text, to, None if source is None else _format("source", source), spec, prof, rbits)
    return (code, Flags(fl)) if flags else code


def decode_scalar(code: int, fmt: str | Format, *, as_: str = "fraction") -> _Any:
    """The exact value of one code of ``fmt``.

    as_="fraction" (default): a ``fractions.Fraction`` for finite codes (``-0`` gives ``Fraction(0)``;
    use as_="str" to see the sign), ``float("±inf")`` / ``float("nan")`` otherwise; "str": the exact
    decimal (``"448"``, ``"-0"``, ``"nan"``); "hex": the C99 hex float; "float": the nearest float.
    """
    if isinstance(code, bool) or not isinstance(code, _numbers.Integral):
        raise TypeError(f"code: expected an int, got {type(code).__name__}")
    if code < 0 or code >= 2**64:
        raise ValueError(f"code: {code} is out of range; accepted: 0 .. 2^bits - 1")
    cls, dec, hx = _ext.decode_scalar(int(code), _format("fmt", fmt))
    if as_ == "str":
        return dec
    if as_ == "hex":
        return hx
    if as_ not in ("fraction", "float"):
        raise ValueError(f"as_: {as_!r} is not accepted; accepted: fraction, str, hex, float")
    if cls in ("inf", "nan"):
        return float(dec)
    fr = _Fraction(dec.lstrip("-")) * (-1 if dec.startswith("-") else 1)
    if as_ == "float":
        return _math.copysign(_float_of(abs(fr)), -1.0 if dec.startswith("-") else 1.0)
    return fr


def names(kind: str | None = None) -> dict:
    """The name registry (as ``minifloat names``): {kind id: {"kind": label, "names": {name: summary},
    "patterns": {pattern: summary}}}, or one kind's entry."""
    out = {}
    for kid, label, entries, patterns in _ext.names_listing():
        out[kid] = {"kind": label, "names": dict(entries), "patterns": dict(patterns)}
    if kind is None:
        return out
    if kind not in out:
        raise ValueError(f"kind: unknown name kind {kind!r}; accepted: {', '.join(out)}")
    return out[kind]


# check(source=): canonical format name -> (bits dtype, value dtype; None = ml_dtypes.bfloat16). Any name the
# library's format table gives these formats is accepted ("bf16", "bfloat16", "f32", "binary32", ...), and
# the NumPy dtype names.
_CHECK_SOURCES = {"f32": (_np.uint32, _np.float32), "f64": (_np.uint64, _np.float64),
                  "f16": (_np.uint16, _np.float16), "bf16": (_np.uint16, None)}
_CHECK_DTYPE_NAMES = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16"}


def _check_source(source: _Any) -> str:
    """The canonical name (f32 f64 f16 bf16) of check()'s source, or ValueError naming what is accepted."""
    if isinstance(source, str) and source in _CHECK_DTYPE_NAMES:
        return _CHECK_DTYPE_NAMES[source]
    accepted = "f32, f64, f16, bf16 (or any of their format names: binary32, bfloat16, ...; float32, float64, float16)"
    try:
        name = _format("source", source).name
    except ValueError:
        raise ValueError(f"source: {source!r} is not accepted; accepted: {accepted}") from None
    if name not in _CHECK_SOURCES:
        raise ValueError(f"source: {name} is not accepted (a kernel's input is an IEEE float); accepted: {accepted}")
    return name


class CheckReport:
    """The result of ``check``: ``ok``, ``tested``, ``failed``, ``minimal`` (one shrunk reproducer per
    failing input class: dicts with class, input bits, rbits, got, expected, why, reproduce — a
    ``minifloat encode`` command), ``diagnosis`` (which alternative semantics the kernel matches
    best), ``text`` (the TestFloat-style report, also ``str(report)``) and ``json``."""

    def __init__(self, d: dict):
        self.__dict__.update(d)

    def __bool__(self) -> bool:
        return bool(self.ok)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<CheckReport {self.target}: {self.tested} cases, {self.failed} failing>"


def check(fn: _Any, target: str | Format, n: int = 2**20, *, source: str | Format = "float32", round: str = "rne",
          overflow: str | None = None, profile: str | Profile = "ocp", sr: dict | None = None, seed: int = 1,
          batch: int = 2**20, shrink: bool = True, diagnose: bool = True, nan: str = "bits",
          packing: str = "none", a: str | Format | None = None, b: str | Format | None = None,
          k: int | None = None, got_choices: bool = False, ftz: bool = False, daz: bool = False) -> CheckReport:
    """Check a conversion kernel bit for bit against minifloat (the harness of check.hpp).

    ``fn(x)`` — or ``fn(x, rbits)`` with ``round="sr"`` — takes a 1-D array of ``source`` values
    (float32, float64, float16 or ml_dtypes bfloat16: ``source`` is any name of f32 f64 f16 bf16 —
    "f32", "binary32", "bf16", "bfloat16", ... — or the dtype names "float32" ...; about ``n`` of them
    per run, ``batch`` per call) and returns their codes of ``target`` (any integer array, an ml_dtypes array, or a torch
    tensor). The inputs are adversarial classes from the format tables (every value, midpoints and
    their neighbours, overflow thresholds, subnormal edges, ±0, ±Inf, NaNs, exponent patterns,
    random); failures are shrunk per class and the kernel's behaviour is diagnosed against a panel
    of alternatives (other modes and policies, profiles, double rounding, FTZ, NaN codes).
    ``nan="any"`` lets any NaN code match any NaN. Returns a CheckReport (truthy when it passes).
    Example: ``check(lambda x: x.astype(ml_dtypes.float8_e4m3fn), "e4m3fn", profile="ml_dtypes")``.
    ``overflow`` defaults to nonsat for a format target. ``ftz=True``/``daz=True`` (format and block-scheme
    targets; the CLI's ``probe gen --ftz/--daz``): the reference flushes subnormal results / reads subnormal inputs
    as ±0 (RoundingSpec::ftz/daz).

    A block-scheme ``target`` (a name of ``schemes()`` or a spec string with ``/``; 1×k tiles, as
    ``minifloat probe`` checks blocks) checks a block quantizer instead: ``fn(x)`` takes a float32 array
    (blocks, k) and returns ``(codes, scales)``: uint8 element codes (blocks, k) — or, with
    ``packing="fp4x2"``/``"fp6_dense"``, their packed bytes — and one scale per block (e8m0fnu/ue4m3
    codes, or the float32 decode scale for FP32 rules). Elements round with ``round``/``overflow``
    (default satfinite) and ``profile``; ``n`` is the number of blocks (about). Example:
    ``check(lambda x: ((q := quantize(x, "mxfp8_e4m3")).codes, q.scales[:, 0]), "mxfp8_e4m3", 4096)``.
    ``got_choices=True`` (a scheme with ``scale-select=4over6:mse|4over6:mae``, as ``probe check --got-choices``):
    ``fn`` returns ``(codes, scales, choices)``, choices one uint8 per block (0 map-to-6, 1 map-to-4, as
    ``Quantized.scale_select``); it runs once more over the blocks and the report's ``choices`` dict gives tested,
    failed and for the first mismatching block its index, got, expected, both candidate codes and both errors.

    A dot-product ``target`` ``"dot:MODEL"`` (MODEL an accumulation model: ``names()["accumulation"]``, e.g.
    "dot:hopper-fp8", "dot:fp32", "dot:blocked32"; as ``minifloat probe gen --model``) checks a dot kernel
    d = Σ a_l·b_l + c: ``fn(a, b, c)`` takes the operand codes ``a`` and ``b`` (unsigned integer arrays (n, k)
    of the formats ``a=``/``b=``, default e4m3fn, b as a; ``k=`` terms, default 32, 1..4096) and ``c`` (float32
    (n,)), and returns the n results as the model's result format (float32, or float16 for f16-accumulating
    tensor-core models) or their integer codes. ``n`` is the number of dot products (about); ``nan="any"``
    lets any NaN match. ``round``/``overflow``/``profile``/``sr``/``source``/``packing`` do not apply.
    """
    if isinstance(target, str) and target.lower().startswith("dot:"):
        if got_choices or ftz or daz:
            raise ValueError(("got_choices: applies to block-scheme targets with scale-select 4over6" if got_choices
                              else "ftz, daz: apply to format and block-scheme targets") + f"; {target!r} is not one")
        return _check_dot(fn, target[4:], n, a=a, b=b, k=k, source=source, round=round, overflow=overflow, sr=sr,
                          seed=seed, batch=batch, shrink=shrink, diagnose=diagnose, nan=nan, packing=packing)
    if a is not None or b is not None or k is not None:
        raise ValueError(f"a, b, k: apply to dot-product targets ('dot:MODEL'); {target!r} is not one")
    if isinstance(target, str) and ("/" in target or target.lower() in (s.lower() for s in _ext.scheme_names())):
        return _check_blocks(fn, target, n, source=source, round=round, overflow=overflow or "satfinite",
                             profile=profile, sr=sr, seed=seed, batch=batch, shrink=shrink, diagnose=diagnose,
                             nan=nan, packing=packing, got_choices=got_choices, ftz=ftz, daz=daz)
    if got_choices:
        raise ValueError(f"got_choices: applies to block-scheme targets with scale-select 4over6; {target!r} is not "
                         "one")
    if packing != "none":
        raise ValueError(f"packing: {packing!r} applies to block-scheme targets; {target!r} is a format")
    overflow = overflow or "nonsat"
    src_fmt = _check_source(source)
    if nan not in ("bits", "any"):
        raise ValueError(f"nan: {nan!r} is not accepted; accepted: bits, any")
    bits_t, val_t = _CHECK_SOURCES[src_fmt]
    if val_t is None:
        if _mld is None:
            raise ImportError("source='bfloat16' needs the ml_dtypes package")
        val_t = _mld.bfloat16
    variant, nbits = "exact", 8
    if sr is not None:  # the harness makes the random words; only the variant and N are the target's
        if round != "sr":
            raise ValueError("sr: given, but round is not 'sr'")
        if not isinstance(sr, dict) or any(k not in ("variant", "bits") for k in sr):
            raise ValueError("sr: check takes sr=dict(variant=..., bits=...) only (the harness makes the random words)")
        variant = _name("sr['variant']", sr.get("variant", "exact"))
        nbits = _sr_nbits(sr.get("bits", 8))
    with_rbits = round == "sr"

    def kernel(inputs: _np.ndarray, rbits: _np.ndarray) -> _np.ndarray:
        x = inputs.astype(bits_t).view(val_t)
        r = fn(x, rbits) if with_rbits else fn(x)
        if _is_torch(r):
            r = r.detach().cpu()
            r = _np.from_dlpack(r.view(__import__("torch").uint8)) if r.element_size() == 1 else _np.from_dlpack(r)
        r = _np.asarray(r)
        if (r.dtype.kind == "V" or r.dtype.kind == "f") and r.dtype.itemsize in (1, 2):
            r = r.view({1: _np.uint8, 2: _np.uint16}[r.dtype.itemsize])  # ml_dtypes / float16: bits are the codes
        if r.dtype.kind not in "iu":
            raise TypeError(f"check: the kernel returned {r.dtype}; accepted: integer codes or ml_dtypes arrays")
        if r.shape != x.shape:
            raise ValueError(f"check: the kernel returned shape {r.shape} for {x.shape[0]} inputs")
        if r.dtype.kind == "i":  # signed codes (torch.int16 bits, int8): their bit patterns
            r = r.view(_np.dtype(f"u{r.dtype.itemsize}"))
        return _np.ascontiguousarray(r.astype(_np.uint64))

    tgt = _format("target", target)
    spec = _spec(round, overflow, variant, nbits, ftz, daz)
    prof = _profile(profile)
    d = _ext.check_kernel(kernel, _format("source", src_fmt), tgt, spec, prof, _int_in("n", n, 1, 2**40),
                          _int_in("seed", seed, 0, 2**64 - 1),
                          _int_in("batch", batch, 1, 2**40), bool(shrink), bool(diagnose), nan == "any")
    return CheckReport(d)


def _block_choices(r: _Any) -> _Any:
    """A kernel's 4over6 choices as uint8 0/1: bool or integer arrays (a float array is refused: 0.0/1.0 are not
    the choice codes, and their bits read as codes would be wrong)."""
    a = _np.ascontiguousarray(_np.asarray(r.detach().cpu().numpy() if _is_torch(r) else r)).reshape(-1)
    if a.dtype != _np.bool_ and a.dtype.kind not in "iu":
        raise TypeError(f"check: the kernel's choices are {a.dtype}; accepted: bool or integer arrays, "
                        "0 map-to-6, 1 map-to-4")
    bad = _np.flatnonzero((a < 0) | (a > 1)) if a.dtype != _np.bool_ else []
    if len(bad):
        raise ValueError(f"check: the kernel's choice for block {int(bad[0])} is {a[bad[0]]}; accepted: 0 (map-to-6), "
                         "1 (map-to-4)")
    return a.astype(_np.uint8)


def _block_words(r: _Any, what: str) -> _Any:
    """A kernel's codes or scales as a flat NumPy integer array of their bits (float32 scales as their bits)."""
    if _is_torch(r):
        r = r.detach().cpu().numpy() if str(r.dtype) != "torch.bfloat16" else r.detach().cpu().view(
            __import__("torch").int16).numpy()
    a = _np.ascontiguousarray(_np.asarray(r)).reshape(-1)
    if a.dtype == _np.float32:
        return a.view(_np.uint32)
    if (a.dtype.kind == "V" or a.dtype.kind == "f") and a.dtype.itemsize in (1, 2):
        return a.view({1: _np.uint8, 2: _np.uint16}[a.dtype.itemsize])  # ml_dtypes: the bits are the codes
    if a.dtype.kind not in "iu":
        raise TypeError(f"check: the kernel's {what} are {a.dtype}; accepted: integer codes, ml_dtypes arrays or "
                        "float32 scales")
    return a.view(_np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "i" else a


def _check_blocks(fn: _Any, scheme: str, n: int, *, source: _Any, round: str, overflow: str, profile: _Any,
                  sr: _Any, seed: int, batch: int, shrink: bool, diagnose: bool, nan: str,
                  packing: str, got_choices: bool = False, ftz: bool = False, daz: bool = False) -> CheckReport:
    """check() of a block quantizer (check_block.hpp): see check()."""
    if _check_source(source) != "f32":
        raise ValueError("source: a block-scheme target takes float32 blocks; accepted: float32")
    if sr is not None or round == "sr":
        raise ValueError("round: a block-scheme target takes deterministic rounding (sr is not checked per block)")
    if nan != "bits":
        raise ValueError("nan: applies to format targets; a block-scheme target compares codes and scales bit for bit")

    def kernel(x: _Any) -> tuple:
        r = fn(x)
        want = 3 if got_choices else 2
        if not isinstance(r, tuple) or len(r) != want:
            raise TypeError("check: a block kernel returns (codes, scales" + (", choices" if got_choices else "") +
                            f"); got {type(r).__name__}" + (f" of {len(r)}" if isinstance(r, tuple) else ""))
        codes = _block_words(r[0], "codes").astype(_np.uint8)
        out = (codes, _block_words(r[1], "scales").astype(_np.uint64))
        return out + ((_block_choices(r[2]),) if got_choices else ())

    d = _ext.check_block_kernel(kernel, _name("target", scheme), _spec(round, overflow, ftz=ftz, daz=daz),
                                _profile(profile), _name("packing", packing), _int_in("n", n, 1, 2**40),
                                _int_in("seed", seed, 0, 2**64 - 1), _int_in("batch", batch, 1, 2**40), bool(shrink),
                                bool(diagnose), bool(got_choices))
    return CheckReport(d)


def _check_dot(fn: _Any, model: str, n: int, *, a: _Any, b: _Any, k: _Any, source: _Any, round: str,
               overflow: _Any, sr: _Any, seed: int, batch: int, shrink: bool, diagnose: bool, nan: str,
               packing: str) -> CheckReport:
    """check() of a dot-product kernel (check_dot.hpp): see check()."""
    if source != "float32" or round != "rne" or overflow is not None or sr is not None or packing != "none":
        raise ValueError("source, round, overflow, sr, packing: do not apply to a dot-product target "
                         "(its accumulation model fixes the rounding)")
    if nan not in ("bits", "any"):
        raise ValueError(f"nan: {nan!r} is not accepted; accepted: bits, any")
    fa = _format("a", a if a is not None else "e4m3fn")
    fb = _format("b", b) if b is not None else fa
    kk = _int_in("k", 32 if k is None else k, 1, 4096)
    word = {True: _np.uint8, False: _np.uint16}

    def kernel(av: _np.ndarray, bv: _np.ndarray, cv: _np.ndarray) -> _np.ndarray:
        r = fn(av.astype(word[fa.bits <= 8]), bv.astype(word[fb.bits <= 8]), cv.astype(_np.uint32).view(_np.float32))
        if _is_torch(r):
            r = r.detach().cpu().numpy()
        r = _np.ascontiguousarray(_np.asarray(r)).reshape(-1)
        if r.dtype == _np.float32:
            r = r.view(_np.uint32)
        elif r.dtype == _np.float16:
            r = r.view(_np.uint16)
        elif r.dtype.kind not in "iu":
            raise TypeError(f"check: the dot kernel returned {r.dtype}; accepted: float32, float16 or integer codes")
        return _np.ascontiguousarray(r.astype(_np.uint64))

    d = _ext.check_dot_kernel(kernel, _name("target", model), fa, fb, kk, _int_in("n", n, 1, 2**40),
                              _int_in("seed", seed, 0, 2**64 - 1), _int_in("batch", batch, 1, 2**40), bool(shrink),
                              bool(diagnose), nan == "any")
    return CheckReport(d)


class Quantized:
    """A block-quantized tensor (``quantize``'s result).

    codes
        uint8 element codes in the input's shape, one per byte, right-aligned (FP4: low 4 bits;
        MX INT8: two's complement); ``packed()`` gives FP4 two per byte / FP6 dense.
    scales
        the block scales as stored: e8m0fnu codes (uint8; E8M0 rules), ue4m3 codes (uint8;
        nvfp4, nvfp4_ceil), ue5m3 codes (uint8; nvfp4_v2, nvfp4_v2_gs) or FP32 decode scales (float32; FP32
        rules), in ``scale_shape``.
    scale_values()
        the decoded block scales (float64).
    scales_in(layout)
        the scales as ``minifloat quantize --scale-layout LAYOUT`` writes them: ``rowmajor`` (= ``scales``),
        ``cutlass128x4``, ``flashinfer8x4``, ``vllm4x4`` (uint8) or ``deepgemm_packed`` (uint32 words), each
        laying out the grid [rows, K blocks] of 1×k / k×1 blocks (docs/cli.md "Scale layouts").
    scale_select
        with ``scale_select="4over6:mse"``/``"4over6:mae"`` (nvfp4): each block's choice, uint8 in ``scale_shape``,
        0 = map-to-6, 1 = map-to-4 (the CLI's ``--out-scale-select``); None otherwise.
    tensor_scale
        NVFP4's FP32 per-tensor decode scale (``tensor_encode_scale`` is S_enc; nvfp4_v2_gs: 1/g and g);
        with ``amax_scope="row"`` float32 arrays of shape (rows,), one per row of the [rows, cols] view (the
        CLI's ``--out-tensor-scale``); None otherwise.
    dequantize(scale_ftz=False)
        element × block scale (× tensor scale), exact in float64, in the input's shape.
    metadata
        ``scheme`` (table name or spec), ``spec``, ``rule``, ``element``, ``element_bits``, ``shape``,
        ``axis``, ``block_rows``/``block_cols`` (0 = whole dimension), ``scale_shape``, ``saturated``,
        ``flushed``, ``transform`` (``"none"`` or the RHT's canonical spelling: codes, scales and
        ``dequantize()`` are in the transformed domain; ``errors()`` compares x with the exact inverse).
    """

    def __init__(self, q: _Any, x_flat: _np.ndarray, kind: _Any = None):
        self._q = q
        self._x = x_flat
        self._kind = kind
        self.codes = q.codes
        self.scales = q.scale_codes if q.scale_codes is not None else q.scales_f32
        self.scale_select = q.scale_select
        tensor_scaled = q.rule in ("nvfp4", "nvfp4_ceil", "nvfp4_v2_gs")  # rules with an FP32 per-tensor scale
        self.tensor_scale = float(q.tensor_decode_scale) if tensor_scaled else None
        self.tensor_encode_scale = float(q.tensor_encode_scale) if tensor_scaled else None
        if q.row_decode_scales is not None:  # amax_scope="row" (issue 25 item 3): one FP32 scale per row
            self.tensor_scale = q.row_decode_scales
            self.tensor_encode_scale = q.row_encode_scales
        for k in ("scheme", "spec", "rule", "element", "element_bits", "axis", "block_rows", "block_cols",
                  "saturated", "flushed", "transform"):
            setattr(self, k, getattr(q, k))
        self.shape = tuple(q.shape)
        self.scale_shape = tuple(q.scale_shape)

    def dequantize(self, scale_ftz: bool = False) -> _np.ndarray:
        return self._q.dequantize(bool(scale_ftz))

    def scale_values(self) -> _np.ndarray:
        return self._q.scale_values()

    def scales_in(self, layout: str) -> _np.ndarray:
        return self._q.scales_in(str(layout))

    def packed(self) -> _np.ndarray:
        return self._q.packed()

    def transformed(self) -> _np.ndarray:
        """The values the codes quantize: the input after ``transform`` (with ``transform_gemm``'s arithmetic),
        float32 in the input's shape (quant.hpp ``transformed``); without a transform, the input rounded to
        float32."""
        t = self._q.transformed(_widened(self._kind, self._x))
        return _np.asarray(t, dtype=_np.float32).reshape(self.shape)

    def errors(self) -> dict:
        """SQNR (dB), relative Frobenius error, max |error|, counts, scale range against the input."""
        return dict(self._q.errors(_widened(self._kind, self._x)))  # f16/bf16: widened here, on demand

    def __repr__(self) -> str:
        return f"<Quantized {self.scheme} {self.shape} scales {self.scale_shape}>"


def _quant_input(x: _Any) -> tuple[_Any, _np.ndarray, tuple]:
    """(array type, flat array, shape); float16/bfloat16 go as their bits, widened inside the library."""
    a, implied, _ = _as_array(x, "x")
    if a.dtype.kind == "c" or a.dtype.kind == "O":
        raise TypeError(f"x: arrays of {a.dtype} are not accepted; accepted: float32, float64, float16, bfloat16")
    if implied == "bf16":
        kind = _ext.ArrayType.bf16
    elif a.dtype == _np.float16:
        kind = _ext.ArrayType.f16
    elif a.dtype in (_np.float32, _np.float64):
        kind = _ext.ArrayType.f32 if a.dtype == _np.float32 else _ext.ArrayType.f64
    else:
        raise TypeError(f"x: arrays of {a.dtype} are not accepted; accepted: float32, float64, float16, bfloat16")
    _check_shape(a, "x")
    flat = _flat(a)
    return kind, (flat.view(_np.uint16) if kind in (_ext.ArrayType.f16, _ext.ArrayType.bf16) else flat), a.shape


def _widened(kind: _Any, flat: _np.ndarray) -> _np.ndarray:
    """float16/bfloat16 bits as float32 (exact); float32/float64 as they are."""
    if kind == _ext.ArrayType.f16:
        return flat.view(_np.float16).astype(_np.float32)
    if kind == _ext.ArrayType.bf16:
        return (flat.astype(_np.uint32) << 16).view(_np.float32)
    return flat


def quantize(x: _Any, scheme: str, *, rule: str | None = None, axis: str = "last", round: str = "rne",
             overflow: str = "satfinite", profile: str | Profile = "ocp", sr: dict | None = None,
             amax_epsilon: _Any = None, mx_quirks: str | None = None, threads: int | None = None,
             transform: str | None = None, tensor_scale: _Any = None, scale_select: str | None = None,
             transform_gemm: str | None = None, amax_scope: str | None = None, ftz: bool = False,
             daz: bool = False, **policy: str) -> Quantized:
    """Block-quantize ``x`` (float32/float64; float16/bfloat16 are widened exactly, inside the library) with ``scheme``.

    scheme: a named scheme (mxfp8_e4m3 mxfp8_e5m2 mxfp6_e2m3 mxfp6_e3m2 mxfp4 mxint8 nvfp4 nvfp4_16x16 fp8_tensor
    fp8_row fp8_channel fp8_1x128 fp8_128x128 fp8_1x128_ue8m0 fp8_128x128_ue8m0 nvfp4_ue5m3; OCP MX v1.0, NVIDIA
    NVFP4, TE/DeepSeek-V3, auto-round UE5M3) or a spec string ``ELEMENT/ROWSxCOLS/SCALE[/POLICY...]``
    (``e2m3fn/1x16/e8m0fnu:rceil``; docs/names.md). ``rule`` overrides the scheme's scale rule
    with one of its scale family (``names("scale-rule")`` lists the rules; another family is another scheme). Blocks run along the last axis
    (``axis="first"``: along axis 0; the scales keep the input's axis order, (40, 5) in blocks of 32 giving
    scales (2, 5) as the spec ``e4m3fn/32x1/...`` does). Elements round with ``round``/``overflow``/``profile``
    (default rne + satfinite, as OCP MX); ``sr=dict(seed=, stream=, step=, variant=, bits=)`` with
    round="sr" (element i = flat C-order index). An f64 input enters every formula exactly.

    Block policies, as the spec keys and the CLI's quantize options, override the scheme's:
    ``zero_block``, ``nan_block``, ``inf_block``, ``subnormal_amax``, ``mxint8_min``, ``fp32_order``
    (the value names of ``names()``; the keywords are the library's policy-field list,
    ``_minifloat.policy_keywords()``), ``amax_epsilon`` (a number or exact text >= 0, rounded once to
    binary32); ``mx_quirks`` a peer's quantizer on purpose (``names("mx-quirks")``); ``threads`` None or
    0 = all cores, else 1..4096 (the bytes do not depend on it). ``transform`` (issue 25, as the CLI's
    ``--transform`` and the spec key ``transform=``): ``"rht16:te"``, ``"rht16:torchao"`` (bf16 output),
    ``"rht16:0xHHHH"`` — the 16-point random Hadamard transform along the block axis before quantization
    (core/hadamard.hpp); ``dequantize()`` then gives transformed values. ``tensor_scale`` (nvfp4, the CLI's
    ``--tensor-scale`` and the spec key ``tensor-scale=``): the FP32 tensor ENCODE scale given (a number or
    exact text > 0, rounded once to binary32) in place of fl32(2688 / amax). ``scale_select`` (nvfp4, the CLI's
    ``--scale-select`` and the spec key ``scale-select=``): ``"4over6:mse"`` or ``"4over6:mae"``, TE's 4over6
    adaptive block scale (map-to-6 or map-to-4 per block, the smaller error kept; the result's ``scale_select``).
    ``transform_gemm`` (with ``transform``; the CLI's ``--transform-gemm``, spec key ``transform-gemm=``): the
    transform's arithmetic, ``"exact"`` (the default: exact, then one rounding to binary32) or a tensor-core preset
    of ``dot`` (x rounded into its operand format, rne + satfinite; each group x·diag(s)·H16/4 on the model, C = +0).
    ``amax_scope`` (nvfp4 1×k, the CLI's ``--amax-scope`` and the spec key ``amax-scope=``): ``"tensor"`` (the
    default) or ``"row"``, one FP32 encode scale per row from the row's amax (TE row_scaled_nvfp4; with
    ``axis="first"`` per column); the result's ``tensor_scale`` is then an array of shape (rows,).
    ``ftz``/``daz`` (the CLI's ``--ftz``/``--daz``): element results that round to a subnormal become +-0;
    subnormal inputs read as +-0 before the amax.
    A keyword given beside the same key in a spec string overrides the spec's value (the policies, ``transform``,
    ``tensor_scale``, ``scale_select``, ``transform_gemm``, ``amax_scope``; as the CLI's options over ``--scheme``).
    Example: ``quantize(x, "mxfp8_e4m3", zero_block="unit_scale")`` equals
    ``quantize(x, "e4m3fn/1x32/e8m0fnu:ocp_floor/zero-block=unit_scale")``.
    """
    args = _quantize_args(scheme, rule=rule, axis=axis, round=round, overflow=overflow, profile=profile, sr=sr,
                          amax_epsilon=amax_epsilon, mx_quirks=mx_quirks, transform=transform,
                          tensor_scale=tensor_scale, scale_select=scale_select, transform_gemm=transform_gemm,
                          amax_scope=amax_scope, ftz=ftz, daz=daz, **policy)
    kind, flat, shape = _quant_input(x)
    q = _ext.quantize_array(kind, flat, list(shape), threads=_threads(threads), **args)
    return Quantized(q, flat, kind)


def _quantize_args(scheme: str, *, rule: str | None = None, axis: str = "last", round: str = "rne",
                   overflow: str = "satfinite", profile: str | Profile = "ocp", sr: dict | None = None,
                   amax_epsilon: _Any = None, mx_quirks: str | None = None, transform: str | None = None,
                   tensor_scale: _Any = None, scale_select: str | None = None, transform_gemm: str | None = None,
                   amax_scope: str | None = None, ftz: bool = False, daz: bool = False, **policy: str) -> dict:
    """``quantize``'s arguments (all but ``x`` and ``threads``) as the compiled request's keyword arguments
    (``_ext.quantize_array`` and ``_ext.device_plan`` take the same), checked and named as ``quantize`` does."""
    keywords = _policy_keywords()
    unknown = [k for k in policy if k not in keywords]
    if unknown:
        raise TypeError(f"quantize: unexpected keyword argument {unknown[0]!r}; accepted block policies: "
                        f"{', '.join(keywords)}, amax_epsilon, mx_quirks, transform, tensor_scale, "
                        "scale_select, transform_gemm, amax_scope")
    variant, nbits, srt = _sr_args(sr)
    if srt is not None and srt[3] != 0:
        raise ValueError("sr['index_base']: not accepted by quantize (element i reads index i)")
    return dict(
        scheme=_name("scheme", scheme), rule=None if rule is None else _name("rule", rule),
        spec=_spec(round, overflow, variant, nbits, ftz, daz), profile=_profile(profile), axis=_name("axis", axis),
        sr=None if srt is None else srt[:3], policies=[(k, _name(k, policy[k])) for k in keywords if k in policy],
        amax_epsilon=None if amax_epsilon is None else _exact_text(amax_epsilon),
        mx_quirks=None if mx_quirks is None else _name("mx_quirks", mx_quirks),
        transform=None if transform is None else _name("transform", transform),
        tensor_scale=None if tensor_scale is None else _exact_text(tensor_scale),
        scale_select=None if scale_select is None else _name("scale_select", scale_select),
        transform_gemm=None if transform_gemm is None else _name("transform_gemm", transform_gemm),
        amax_scope=None if amax_scope is None else _name("amax_scope", amax_scope))


def report(x: _Any, schemes: _Any, **kw: _Any) -> list[dict]:
    """One dict per scheme (as ``minifloat report``): scheme, count, sqnr_db, rel_frobenius,
    max_abs_err, saturated, flushed, nonfinite_out, scale_min, scale_max. ``schemes`` is a name/spec,
    a list of them, or ``"all"`` (every named scheme, ``schemes()``, as ``report --schemes all``);
    keyword arguments go to ``quantize``."""
    if isinstance(schemes, str):
        schemes = list(_ext.scheme_names()) if schemes == "all" else [schemes]
    out = []
    for s in schemes:
        out.append(quantize(x, s, **kw).errors())
    return out


def schemes() -> list[str]:
    """The named block schemes (spec strings are accepted too)."""
    return list(_ext.scheme_names())


@_functools.lru_cache(maxsize=1)
def _policy_keywords() -> tuple[str, ...]:
    return tuple(_ext.policy_keywords())


del annotations  # the __future__ import's name: not part of the package's namespace


# ---- dot products and GEMM under the accumulation models (accumulate.hpp; the CLI's `dot`) ----

def _dot_operand(x: _Any, arg: str) -> tuple[_np.ndarray, str | None, bool, tuple, bool]:
    """(flat uint64 codes, source format or None for bare uint8/uint16 codes, is a float array, shape, from torch)."""
    a, implied, from_torch = _as_array(x, arg)
    dt = a.dtype
    if implied == "bf16":
        src, is_float, bits = "bf16", True, _flat(a).view(_np.uint16)
    elif implied is not None:  # ml_dtypes / torch float8 arrays: codes of their own format
        src, is_float, bits = implied, False, _flat(a).view(_np.uint8 if dt.itemsize == 1 else _np.uint16)
    elif dt == _np.float32:
        src, is_float, bits = "f32", True, _flat(a).view(_np.uint32)
    elif dt == _np.float64:
        src, is_float, bits = "f64", True, _flat(a).view(_np.uint64)
    elif dt == _np.float16:
        src, is_float, bits = "f16", True, _flat(a).view(_np.uint16)
    elif dt == _np.uint8 or dt == _np.uint16:
        src, is_float, bits = None, False, _flat(a)
    else:
        raise TypeError(f"{arg}: arrays of {dt} are not accepted; accepted: float32, float64, float16, bfloat16, "
                        "ml_dtypes float8/float6/float4 (their codes), uint8/uint16 codes with format=/format_b=")
    if a.ndim not in (1, 2) or a.size == 0:
        want = "(k,) or (m, k)" if arg == "a" else "(k,) or (k, n)"
        raise ValueError(f"{arg}: shape {a.shape} is not accepted; accepted: {want}, not empty")
    return bits.astype(_np.uint64), src, is_float, a.shape, from_torch


def _scale_codes(x: _Any, arg: str) -> _np.ndarray:
    a, implied, _ = _as_array(x, arg)
    if a.dtype != _np.uint8 and implied not in ("e8m0fnu",):
        raise TypeError(f"{arg}: arrays of {a.dtype} are not accepted; accepted: uint8 codes of the preset's scale "
                        "format (e8m0fnu or ue4m3)")
    return _flat(a).view(_np.uint8).astype(_np.uint64)


_DOT_C_DTYPES = {"f32": _np.float32, "f16": _np.float16, "f64": _np.float64}


def dot(a: _Any, b: _Any, *, model: str, format: str | Format | None = None, format_b: str | Format | None = None,
        c: _Any = 0, operand_round: str = "satfinite", scale_a: _Any = None, scale_b: _Any = None) -> _Any:
    """Dot products / GEMM ``a @ b + c`` under a named accumulation model (the CLI's ``minifloat dot``).

    The same library calls as the CLI (accumulate.hpp: ``round_operands``, ``gemm``), so the same
    inputs give the same bits as ``minifloat dot --model M --format F --format-b G --c C``.

    a, b
        ``a`` of shape (k,) or (m, k), ``b`` (k,) or (k, n); row-major (any strides: copied once).
        NumPy arrays, CPU torch tensors (float32/float16/bfloat16/float64, float8 as codes) and anything
        with ``__dlpack__``. Float arrays (float32, float16, bfloat16, float64) are rounded into
        ``format``/``format_b`` by ``operand_round``; code arrays (ml_dtypes float8/6/4, torch float8:
        their own format; uint8/uint16: need ``format``/``format_b``) are taken as they are.
    model
        An accumulation model (``names("accumulation")``): exact, fp32, pairwise, kahan, blocked<N>, a
        tensor-core preset (hopper-fp8, ampere-tf32, ...), <preset>+blocked<N>, dmma-f64-unvalidated.
        Tensor-core models multiply their own operand formats only (hopper-fp8: e4m3fn, e5m2).
    format, format_b
        ``a``'s element format and ``b``'s (default: ``format``), as ``--format``/``--format-b``.
        Without them a float array keeps its own format (f32, f16, ...), which a tensor-core model refuses.
    c
        The addend: a number or exact text (``"0x1p-3"``), rounded once to f32 (rne), for every result;
        or an array of the result's shape ((m, n), (m,) or (n,) for a vector operand; () or (1,) for two
        vectors) whose dtype is the model's accumulator: float32, float16 for an FP16-destination preset
        (``*-f16-f16*``, ``*-fp8-f16*``), float64 for dmma-f64-unvalidated (taken whole).
    operand_round
        ``names("operand-round")``: ``"satfinite"`` (default, the CLI's default: rne, overflow and Inf to
        ±max, NaN kept), ``"cvt"`` (the PTX cvt from f32: tf32 cvt.rna.tf32.f32 keeps Inf/NaN and ties
        away; f16/bf16 cvt.rn; FP8/FP6/FP4 cvt.rn.satfinite), ``"truncate"`` (tf32 only: the f32 low 13
        bits ignored, as a tf32 mma fed f32 registers). cvt/truncate refuse float64 arrays.
    scale_a, scale_b
        Block scales of a block-scaled preset (blackwell-tcgen05-mxf8f6f4/mxf4/nvf4-unvalidated): uint8
        codes of its scale format, (m, nb) and (nb, n) (or (nb,) for a vector), nb = ceil(k / block).

    Returns the results' values, shape (m, n) / (m,) / (n,) / (): float32 (f32 and f16 destinations, as
    the CLI's ``--out``; the bits of an f32 result exactly) or float64 (dmma-f64-unvalidated); a torch
    tensor when an input was one. Raises ValueError (bad name, format, shape, C dtype, scales; one line
    naming what was given and what is accepted) or TypeError (an unsupported array type).
    Example: ``dot(np.float32([1.5, 2]), np.float32([0.5, 3]), model="exact", format="e4m3fn",
    format_b="e5m2", c=0.25)`` -> ``array(7., dtype=float32)``.
    """
    A, a_src, a_float, a_shape, ta = _dot_operand(a, "a")
    B, b_src, b_float, b_shape, tb = _dot_operand(b, "b")
    fa = None if format is None else _format("format", format)
    fb = None if format_b is None else _format("format_b", format_b)
    if a_src is None and fa is None:
        raise ValueError("a: uint8/uint16 codes need format= (their element format)")
    if b_src is None and fb is None and fa is None:
        raise ValueError("b: uint8/uint16 codes need format_b= or format= (their element format)")
    for arg, src, is_float, f in (("a", a_src, a_float, fa), ("b", b_src, b_float, fb if fb is not None else fa)):
        if src is not None and not is_float and f is not None and _format(arg, src) != f:
            raise ValueError(f"{arg}: the array holds {src} codes (its dtype), not {f.name}; drop format/format_b "
                             "or pass the matching one")
    m = a_shape[0] if len(a_shape) == 2 else 1
    k = a_shape[-1]
    n = b_shape[1] if len(b_shape) == 2 else 1
    if b_shape[0] != k:
        raise ValueError(f"b: inner dimensions differ: a has k = {k} (shape {a_shape}), b has k = {b_shape[0]} "
                         f"(shape {b_shape})")
    shape = tuple(d for d, keep in ((m, len(a_shape) == 2), (n, len(b_shape) == 2)) if keep)
    rf = _ext.dot_result_format(_name("model", model))
    from_torch = ta or tb
    if isinstance(c, (str, _numbers.Number)) and not isinstance(c, bool):
        fc = _parse_format("f32")
        C = _np.full(m * n, encode_scalar(c, "f32"), dtype=_np.uint64)
    else:
        carr, implied, tc = _as_array(c, "c")
        from_torch = from_torch or tc
        want = _DOT_C_DTYPES[rf.name]
        ok_shape = carr.shape == shape or (shape == () and carr.shape == (1,))
        if implied is not None or carr.dtype != want or not ok_shape:
            raise ValueError(f"c: dtype {carr.dtype} and shape {carr.shape} are not accepted for model {model!r}; "
                             f"accepted: a number, or {_np.dtype(want).name} ({rf.name}, its accumulator) of shape "
                             f"{shape} (the result's)")
        fc = rf
        C = _flat(carr).view({4: _np.uint32, 2: _np.uint16, 8: _np.uint64}[carr.dtype.itemsize]).astype(_np.uint64)
    sa, sb = (None if s is None else _scale_codes(s, arg) for s, arg in ((scale_a, "scale_a"), (scale_b, "scale_b")))
    src_a = _parse_format(a_src) if a_src is not None else fa
    src_b = _parse_format(b_src) if b_src is not None else (fb if fb is not None else fa)
    if not isinstance(operand_round, str):
        raise TypeError(f"operand_round: expected a name (str), got {type(operand_round).__name__}")
    codes, rf = _ext.gemm_codes(model, m, n, k, src_a, a_float, A, fa, src_b, b_float, B, fb, operand_round, fc, C,
                                sa, sb)
    if rf.name == "f64":
        out = codes.view(_np.float64)
    elif rf.name == "f16":
        out = codes.astype(_np.uint16).view(_np.float16).astype(_np.float32)
    else:
        out = codes.astype(_np.uint32).view(_np.float32)
    out = out.reshape(shape)
    return _to_torch(_np.ascontiguousarray(out)) if from_torch else out


def gemm(a: _Any, b: _Any, *, model: str, format: str | Format | None = None, format_b: str | Format | None = None,
         c: _Any = 0, operand_round: str = "satfinite", scale_a: _Any = None, scale_b: _Any = None) -> _Any:
    """``D = A @ B + C`` for matrices: ``a`` (m, k), ``b`` (k, n), ``c`` a number or an (m, n) array.

    ``dot`` with both operands 2-D (same arguments, dtypes, errors and results; returns (m, n)).
    Raises ValueError when ``a`` or ``b`` is not 2-D.
    """
    for arg, x in (("a", a), ("b", b)):
        nd = len(getattr(x, "shape", _np.shape(x)))
        if nd != 2:
            raise ValueError(f"{arg}: gemm takes matrices, got {nd} dimensions; accepted: a (m, k), b (k, n) "
                             "(dot also takes vectors)")
    return dot(a, b, model=model, format=format, format_b=format_b, c=c, operand_round=operand_round,
               scale_a=scale_a, scale_b=scale_b)
