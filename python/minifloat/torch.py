# SPDX-License-Identifier: Apache-2.0
"""minifloat.torch: the library's quantizers as PyTorch custom ops (namespace ``minifloat``), issue 27.

One door: every op calls the package's own functions (``minifloat.convert``, ``decode``, ``quantize``),
which run the compiled library; there is no second implementation here. CPU tensors cross zero-copy
through the package's array door (DLPack; float16 as is, bfloat16 as its int16 bits), the GIL released
inside the library; results come back with ``torch.from_numpy`` (no copy).

Ops (``torch.ops.minifloat.*``; the Python functions below are the documented front end)
    convert(x, fmt, options) -> codes      uint8 (formats of <= 8 bits) or int16 bits (9..16 bits)
    decode(codes, fmt, dtype) -> values    float32 or float64 ("float32"/"float64")
    quantize(x, scheme, options) -> (codes uint8 in x's shape, scales uint8 codes or float32 in the
        scale shape, tensor_scale float32 of shape (1,) for nvfp4, shape (0,) otherwise)
    dequantize(codes, scales, tensor_scale, scheme, options, dtype) -> dtype: quantize's output back, exact and
        rounded once as fake_quant (the library's dequantize; the block layout from the scheme and options)
    fake_quant(x, scheme, options) -> x's dtype: the exact dequantized value (element x block scale
        x tensor scale, exact in binary64) rounded once to nearest even into x's dtype: float64 as is,
        float32 by the IEEE binary64 -> binary32 conversion (the library's own dequantize to f32 does the
        same), float16/bfloat16 by the library's converter (``minifloat.convert(..., "f16"|"bf16",
        round="rne", overflow="nonsat")``: one rounding, never through float32). Byte-identical to
        ``minifloat quantize --out-dequant F --dequant-dtype f32|f64|f16|bf16`` (tests/python/test_torch.py).
    ``options`` is the keyword arguments of ``minifloat.quantize`` (rule, axis, round, overflow, profile,
    sr, amax_epsilon, mx_quirks, threads and the block-policy keywords) as canonical JSON text, so every
    scheme and option of ``minifloat.quantize`` is an option of the ops, and the ops keep a schema of
    Tensor and str that ``torch.compile(fullgraph=True)`` traces; ``fake_quant``'s options also take
    ``scale_ftz`` (bool, as ``Quantized.dequantize``).

Autograd (``fake_quant``): a straight-through estimator. ``ste="identity"`` (default): d fake_quant / dx =
1 everywhere. ``ste="clipped"``: 1 where the element did not saturate at the scheme's range, 0 where it
did (|x| > |fake_quant(x)| and the element's code is the element format's largest magnitude: the value
lies beyond element max x block scale), as the clipped STE of QAT (e.g. PACT / LSQ's clip gradient).

Devices: CPU tensors run the library as above. CUDA tensors run the project's CUDA kernels on the tensor's
device and current stream when the package was built with them (``cuda_built()``; CMake
``MINIFLOAT_PYTHON_CUDA``, ``pip install . -C cmake.define.MINIFLOAT_PYTHON_CUDA=ON``): ``quantize`` is the
block kernels (cuda/blocks.hpp: the bodies the host engine's tests prove equal to ``minifloat.quantize``);
``dequantize``/``fake_quant`` are each element code's exact value times its tile's decode scale (the library's
``block_scale_value``, computed on the host from the scales, one per tile), one binary64 product on the device
as the library's dequantize does, then rounded once as above (float32: the IEEE binary64 -> binary32
conversion; float16/bfloat16: the engine conversion kernel, rne nonsat); ``convert``/``decode`` are the engine
conversion kernel (decode to float32). float16/bfloat16 inputs are widened exactly to float32 on the device;
float64 CUDA inputs, ``mx_quirks``, ``daz``, a tensor-core ``transform_gemm`` (not in the block kernels) and
``amax_scope="row"`` (not in this door's one tensor scale) raise ValueError naming it. Without CUDA kernels in the build, a CUDA tensor
raises ValueError naming its device. Either error names the explicit ``device_fallback="cpu"`` (the op then
runs on a CPU copy and returns to the input's device). The same kernel bodies run on CPU tensors through the
CPU launcher (cuda/api.hpp ``cpu::``): the default tests compare that path with the CPU ops for every scheme,
so everything but the device pointers is tested where no GPU is; ``scripts/device-check`` runs the GPU.
Fake (meta) kernels give every op's output shape and dtype without running it.
"""
from __future__ import annotations

import json as _json
from typing import Any as _Any

try:
    import torch as _torch
except ImportError as _e:  # pragma: no cover - exercised by test_torch.py in a subprocess with torch hidden
    raise ImportError(f"minifloat.torch needs PyTorch, and 'import torch' failed ({_e}); scripts/setup installs "
                      "the pinned torch 2.15.0 into .venv (pip install torch elsewhere); without torch, "
                      "minifloat.quantize/convert/decode take NumPy arrays") from None

import numpy as _np

import minifloat as _mf

__all__ = ["convert", "decode", "quantize", "dequantize", "fake_quant", "dequant_dtype_name", "cuda_built", "recipes",
           "sr_stream",
           "quantize_operand", "QuantLinear", "quantize_model", "loss_figure_svg"]

# torch dtype -> the CLI's --dequant-dtype name (cmd_quantize.cpp kDequantDtypes) and the library format.
_DTYPE_NAMES = {_torch.float32: "f32", _torch.float64: "f64", _torch.float16: "f16", _torch.bfloat16: "bf16"}
_STE = ("identity", "clipped")
_DEVICE_FALLBACKS = (None, "cpu")


def dequant_dtype_name(dtype: _Any) -> str:
    """The ``--dequant-dtype`` name of a torch float dtype (float32 f32, float64 f64, float16 f16, bfloat16 bf16)."""
    if dtype not in _DTYPE_NAMES:
        raise TypeError(f"dtype {dtype} is not accepted; accepted: float32, float64, float16, bfloat16")
    return _DTYPE_NAMES[dtype]


@_torch.compiler.assume_constant_result  # keyword arguments are constants of the traced program
def _options(kw: dict) -> str:
    """Canonical JSON of quantize's keyword arguments (sorted keys): the ops' `options` text."""
    try:
        return _json.dumps(kw, sort_keys=True)
    except TypeError as e:
        raise TypeError(f"options: {e}; accepted: the keyword arguments of minifloat.quantize as names, "
                        "numbers and dicts (a Profile object by its name)") from None


def _kw(options: str) -> dict:
    return _json.loads(options)


def _numpy_in(x: _Any) -> _Any:
    """What the package's array door takes: the tensor itself (zero-copy DLPack), detached."""
    return x.detach() if isinstance(x, _torch.Tensor) else x


def cuda_built() -> bool:
    """True when this build of the package has the project's CUDA kernels (CMake ``MINIFLOAT_PYTHON_CUDA``)."""
    return bool(_mf._ext.cuda_built)


_FALLBACK_HINT = "pass device_fallback=\"cpu\" to run on a CPU copy and get the result back on the input's device"


def _cpu_only(x: _Any, op: str) -> None:
    if x.device.type != "cpu":
        why = ("this build of the package has no CUDA kernels (build it with "
               "-C cmake.define.MINIFLOAT_PYTHON_CUDA=ON)") if x.device.type == "cuda" else "accepted: cpu, cuda"
        raise ValueError(f"minifloat.torch.{op}: tensor on device {x.device}; {why}: {_FALLBACK_HINT}")


def _launcher(x: _Any, op: str) -> str | None:
    """None for a CPU tensor (the library) or a meta tensor (the op's fake kernel gives its shape and dtype, as for
    any torch op), "cuda" for a CUDA tensor in a CUDA build; else the error."""
    if x.device.type in ("cpu", "meta"):
        return None
    if x.device.type == "cuda" and cuda_built():
        return "cuda"
    _cpu_only(x, op)
    return None


def _round_to(deq64: _np.ndarray, dtype: _Any) -> _Any:
    """The exact binary64 dequantized values rounded once (RNE) into `dtype` (see the module docstring)."""
    name = dequant_dtype_name(dtype)
    if name == "f64":
        return _torch.from_numpy(deq64)
    if name == "f32":
        return _torch.from_numpy(deq64.astype(_np.float32))  # IEEE RNE binary64 -> binary32, one rounding
    codes = _mf.convert(deq64, name, round="rne", overflow="nonsat")  # uint16 words, one rounding
    return _torch.from_numpy(codes.view(_np.int16)).view(dtype)


# ---- the CUDA door: the project's kernels on device tensors (and, for the tests, on CPU tensors) ----------
# launcher "cuda": device pointers and the tensor's current stream; "cpu": the same kernel bodies through the CPU
# launcher (cuda/api.hpp cpu::) on CPU tensors. Buffers are allocated here, on the input's device.

def _stream(x: _Any) -> int:
    return int(_torch.cuda.current_stream(x.device).cuda_stream) if x.device.type == "cuda" else 0


def _quant_kw(options: str) -> tuple[dict, _Any]:
    kw = _kw(options)
    for k in ("scale_ftz", "ste"):
        kw.pop(k, None)
    return kw, kw.pop("threads", None)


def _k_plan(shape: _Any, scheme: str, kw: dict, op: str) -> _Any:
    try:
        return _mf._ext.device_plan(list(int(d) for d in shape), **_mf._quantize_args(scheme, **kw))
    except ValueError as e:
        raise ValueError(f"minifloat.torch.{op} on the CUDA kernels: {e}; {_FALLBACK_HINT}") from None


def _k_input(x: _Any, op: str) -> _Any:
    """x as a contiguous float32 tensor on its device: float16/bfloat16 widened (exact), float32 as is."""
    if x.dtype == _torch.float64:
        raise ValueError(f"minifloat.torch.{op}: the CUDA kernels take float32 (float16/bfloat16 widened exactly); "
                         f"got float64; {_FALLBACK_HINT}")
    if x.dtype not in (_torch.float32, _torch.float16, _torch.bfloat16):
        raise TypeError(f"x: {x.dtype} is not accepted; accepted: float32, float16, bfloat16 (float64 on CPU)")
    return x.detach().to(_torch.float32).contiguous()


def _k_quantize(x: _Any, scheme: str, options: str, launcher: str, op: str = "quantize") -> tuple:
    kw, threads = _quant_kw(options)
    plan = _k_plan(x.shape, scheme, kw, op)
    xf = _k_input(x, op)
    h = plan.header
    codes = _torch.empty(x.shape, dtype=_torch.uint8, device=x.device)
    scales = _torch.empty(tuple(h.scale_shape), dtype=_torch.float32 if plan.fp32_scales else _torch.uint8,
                          device=x.device)
    tensor = _torch.empty((3 if plan.tensor_scaled else 0,), dtype=_torch.float32, device=x.device)
    _mf._ext.device_quantize(plan, launcher, xf.data_ptr(), codes.data_ptr(),
                             0 if plan.fp32_scales else scales.data_ptr(), scales.data_ptr() if plan.fp32_scales else 0,
                             tensor.data_ptr() if plan.tensor_scaled else 0, _stream(x), _mf._threads(threads))
    return codes, scales, tensor[1:2].clone() if plan.tensor_scaled else tensor


def _k_dequantize64(codes: _Any, scales: _Any, tensor_scale: _Any, scheme: str, options: str, op: str) -> _Any:
    """Each element's exact value (element code value x its tile's decode scale, one binary64 product), float64."""
    kw, _ = _quant_kw(options)
    ftz = bool(_kw(options).get("scale_ftz", False))
    for k in _QUANT_ONLY:
        kw.pop(k, None)
    if codes.dtype != _torch.uint8:
        raise TypeError(f"codes: expected uint8 codes (quantize's), got {codes.dtype}")
    plan = _k_plan(codes.shape, scheme, kw, op)
    bits = plan.header.element_bits
    if codes.numel() and bits < 8 and int(codes.max()) >= 1 << bits:
        raise ValueError(f"codes: a code wider than the {bits} bits of {plan.header.element}; "
                         f"accepted: 0..{(1 << bits) - 1}")
    s = scales.detach().contiguous().cpu().reshape(-1).numpy()  # one per tile
    ts = tensor_scale.detach().reshape(-1).cpu()
    if ts.numel() > 1:
        raise ValueError(f"tensor_scale: {ts.numel()} values; accepted: quantize's tensor_scale, shape (1,) or (0,)")
    sv = _mf._ext.tile_scale_values(plan, None if plan.fp32_scales else s, s if plan.fp32_scales else None,
                                    float(ts[0]) if ts.numel() else None, ftz)
    dev = codes.device
    rows, cols, tr, tc, tb = plan.layout
    tile = ((_torch.arange(rows, device=dev) // tr) * tb).reshape(-1, 1) + (_torch.arange(cols, device=dev) // tc)
    lut = _torch.tensor(plan.element_values, dtype=_torch.float64, device=dev)
    deq = lut[codes.detach().reshape(-1).long()] * _torch.from_numpy(sv).to(dev)[tile.reshape(-1)]
    return deq.reshape(codes.shape)


def _k_round_to(deq64: _Any, dtype: _Any, launcher: str) -> _Any:
    """As _round_to, on deq64's device: float32 by the IEEE binary64 -> binary32 conversion, float16/bfloat16 by
    the engine conversion kernel (rne nonsat: one rounding, as minifloat.convert)."""
    name = dequant_dtype_name(dtype)
    if name == "f64":
        return deq64
    if name == "f32":
        return deq64.to(_torch.float32)
    d = deq64.contiguous()
    out = _torch.empty(d.shape, dtype=_torch.int16, device=d.device)
    _mf._ext.device_convert(launcher, d.data_ptr(), out.data_ptr(), d.numel(), _mf._format("source", "f64"),
                            _mf._format("fmt", name), _mf._spec("rne", "nonsat"), _mf._profile("ocp"), None,
                            _stream(d), 0)
    return out.view(dtype)


def _k_convert(x: _Any, fmt: str, options: str, launcher: str) -> _Any:
    kw = _kw(options)
    unknown = [k for k in kw if k not in ("round", "overflow", "profile", "sr", "threads", "ftz", "daz")]
    if unknown:
        raise ValueError(f"minifloat.torch.convert: {unknown[0]!r} is not run by the CUDA kernels (accepted there: "
                         f"round, overflow, profile, sr, threads, ftz, daz); {_FALLBACK_HINT}")
    variant, nbits, srt = _mf._sr_args(kw.get("sr"))
    spec = _mf._spec(kw.get("round", "rne"), kw.get("overflow", "nonsat"), variant, nbits, kw.get("ftz", False),
                     kw.get("daz", False))
    to = _mf._format("fmt", fmt)
    if x.dtype not in _DTYPE_NAMES:
        raise TypeError(f"x: {x.dtype} is not accepted; accepted: float32, float64, float16, bfloat16")
    src = x.detach().contiguous()
    out = _torch.empty(x.shape, dtype=_torch.uint8 if to.bits <= 8 else _torch.int16, device=x.device)
    _mf._ext.device_convert(launcher, src.data_ptr(), out.data_ptr(), src.numel(),
                            _mf._format("source", _DTYPE_NAMES[x.dtype]), to, spec,
                            _mf._profile(kw.get("profile", "ocp")), srt, _stream(x), _mf._threads(kw.get("threads")))
    return out


def _k_decode(codes: _Any, fmt: str, dtype: str, options: str, launcher: str) -> _Any:
    kw = _kw(options)
    if dtype != "float32" or any(k not in ("profile",) for k in kw):
        raise ValueError("minifloat.torch.decode: the CUDA kernels decode to float32 with a profile only (got "
                         f"dtype {dtype!r}, options {sorted(kw)}); {_FALLBACK_HINT}")
    f = _mf._format("fmt", fmt)
    want = _torch.uint8 if f.bits <= 8 else _torch.int16
    if codes.dtype != want:
        raise TypeError(f"codes: {fmt} codes on the device must be {want}, got {codes.dtype}")
    c = codes.detach().contiguous()
    out = _torch.empty(c.shape, dtype=_torch.float32, device=c.device)
    _mf._ext.device_convert(launcher, c.data_ptr(), out.data_ptr(), c.numel(), f, _mf._format("fmt", "f32"),
                            _mf._spec("rne", "nonsat"), _mf._profile(kw.get("profile", "ocp")), None, _stream(c), 0)
    return out


def _k_fake_quant(x: _Any, scheme: str, options: str, launcher: str) -> _Any:
    codes, scales, ts = _k_quantize(x, scheme, options, launcher, "fake_quant")
    return _k_round_to(_k_dequantize64(codes, scales, ts, scheme, options, "fake_quant"), x.dtype, launcher)


def _k_saturated(x: _Any, scheme: str, options: str, launcher: str) -> _Any:
    codes, scales, ts = _k_quantize(x, scheme, options, launcher, "fake_quant")
    deq = _k_dequantize64(codes, scales, ts, scheme, options, "fake_quant")
    kw, _ = _quant_kw(options)
    plan = _k_plan(x.shape, scheme, kw, "fake_quant")
    lut = _torch.tensor(plan.element_values, dtype=_torch.float64, device=x.device)
    return _saturation(plan.header.element, codes, lut[codes.long()], x, deq)


def _saturation(element: str, codes: _Any, values: _Any, x: _Any, deq: _Any) -> _Any:
    """The clipped STE's mask (torch tensors of one shape): the element code has the largest magnitude (mxint8: |code|
    >= 127 as int8; else |value| = the format's max) and |x| > |dequantized|."""
    if element == "mxint8":
        top = codes.view(_torch.int8).to(_torch.int16).abs() >= 127
    else:
        top = values.abs() == _element_max(element)
    return top & (x.detach().to(_torch.float64).abs() > deq.abs())


# ---- the ops ------------------------------------------------------------------------------------------

@_torch.library.custom_op("minifloat::convert", mutates_args=())
def _convert_op(x: _torch.Tensor, fmt: str, options: str) -> _torch.Tensor:
    if (launcher := _launcher(x, "convert")) is not None:
        return _k_convert(x, fmt, options, launcher)
    return _mf.convert(_numpy_in(x), fmt, as_="torch", **_kw(options))


@_convert_op.register_fake
def _(x, fmt, options):
    bits = _mf.format_info(fmt)["bits"]
    return _torch.empty(x.shape, dtype=_torch.uint8 if bits <= 8 else _torch.int16, device=x.device)


@_torch.library.custom_op("minifloat::decode", mutates_args=())
def _decode_op(codes: _torch.Tensor, fmt: str, dtype: str, options: str) -> _torch.Tensor:
    if (launcher := _launcher(codes, "decode")) is not None:
        return _k_decode(codes, fmt, dtype, options, launcher)
    c = codes.detach()
    if c.dtype == _torch.int16:
        c = _torch.from_numpy(c.numpy().view(_np.uint16))  # the int16 bits convert() gives, as uint16 codes
    out = _mf.decode(c.numpy(), fmt, dtype=dtype, **_kw(options))
    return _torch.from_numpy(out)


@_decode_op.register_fake
def _(codes, fmt, dtype, options):
    return _torch.empty(codes.shape, dtype=getattr(_torch, dtype), device=codes.device)


def _quantize_np(x: _Any, scheme: str, options: str) -> _Any:
    kw = _kw(options)
    kw.pop("scale_ftz", None)  # fake_quant's own options
    kw.pop("ste", None)
    return _mf.quantize(_numpy_in(x), scheme, **kw)


def _one_tensor_scale(options: str) -> None:
    """The quantize op's tensor_scale output holds one FP32 scale: amax_scope="row" (one per row) is refused."""
    if _kw(options).get("amax_scope", "tensor") != "tensor":
        raise ValueError("minifloat.torch.quantize: amax_scope='row' has one tensor scale per row, and this op's "
                         "tensor_scale output holds one; accepted: amax_scope='tensor' (fake_quant takes 'row'; "
                         "minifloat.quantize gives the (rows,) scales)")


@_torch.library.custom_op("minifloat::quantize", mutates_args=())
def _quantize_op(x: _torch.Tensor, scheme: str,
                 options: str) -> tuple[_torch.Tensor, _torch.Tensor, _torch.Tensor]:
    _one_tensor_scale(options)
    if (launcher := _launcher(x, "quantize")) is not None:
        return _k_quantize(x, scheme, options, launcher)
    q = _quantize_np(x, scheme, options)
    ts = _np.array([q.tensor_scale], _np.float32) if q.tensor_scale is not None else _np.zeros(0, _np.float32)
    return _torch.from_numpy(q.codes), _torch.from_numpy(_np.ascontiguousarray(q.scales)), _torch.from_numpy(ts)


@_quantize_op.register_fake
def _(x, scheme, options):
    _one_tensor_scale(options)
    # The scale shape and dtype: the library's own answer for this shape (a zero tensor quantizes at trace
    # time only; shapes must be static).
    shape = tuple(int(d) for d in x.shape)
    q = _quantize_np(_np.zeros(shape, _np.float32), scheme, options)
    sdt = _torch.uint8 if q.scales.dtype == _np.uint8 else _torch.float32
    return (_torch.empty(x.shape, dtype=_torch.uint8, device=x.device),
            _torch.empty(q.scale_shape, dtype=sdt, device=x.device),
            _torch.empty((1 if q.tensor_scale is not None else 0,), dtype=_torch.float32, device=x.device))


# quantize's options that change neither the block layout nor the values of given codes and scales (the given
# tensor scale is the tensor_scale argument; a transform's values stay in its domain)
_QUANT_ONLY = ("round", "sr", "threads", "scale_ftz", "ste", "ftz", "daz", "transform", "transform_gemm",
               "scale_select", "tensor_scale")


def _dequantize_np(codes: _Any, scales: _Any, tensor_scale: _Any, scheme: str, options: str) -> _np.ndarray:
    """The library's exact dequantize (float64) of codes and scales as ``quantize`` gives them, the block layout
    taken from the scheme and quantize's options for codes' shape (the compiled ``dequantize_codes``)."""
    kw = _kw(options)
    ftz = bool(kw.get("scale_ftz", False))
    for k in _QUANT_ONLY:
        kw.pop(k, None)
    _one_tensor_scale(_options({"amax_scope": kw.pop("amax_scope", "tensor")}))
    keywords = _mf._policy_keywords()
    unknown = [k for k in kw if k not in keywords + ("rule", "axis", "overflow", "profile", "amax_epsilon",
                                                     "mx_quirks")]
    if unknown:
        raise TypeError(f"dequantize: unexpected keyword argument {unknown[0]!r}; accepted: the keywords of "
                        "minifloat.quantize")
    c = codes.detach().contiguous().numpy()
    if c.dtype != _np.uint8:
        raise TypeError(f"codes: expected uint8 codes (quantize's), got {codes.dtype}")
    s = scales.detach().contiguous().numpy()
    if s.dtype not in (_np.uint8, _np.float32):
        raise TypeError(f"scales: expected uint8 scale codes or float32 decode scales, got {scales.dtype}")
    ts = tensor_scale.detach().reshape(-1)
    if ts.numel() > 1:
        raise ValueError(f"tensor_scale: {ts.numel()} values; accepted: quantize's tensor_scale, shape (1,) or (0,)")
    eps = kw.get("amax_epsilon")
    return _mf._ext.dequantize_codes(
        c.reshape(-1), s.reshape(-1) if s.dtype == _np.uint8 else None, s.reshape(-1) if s.dtype != _np.uint8 else None,
        float(ts[0]) if ts.numel() else None, list(c.shape), _mf._name("scheme", scheme),
        None if kw.get("rule") is None else _mf._name("rule", kw["rule"]), _mf._profile(kw.get("profile", "ocp")),
        _mf._name("axis", kw.get("axis", "last")), [(k, _mf._name(k, kw[k])) for k in keywords if k in kw],
        None if eps is None else _mf._exact_text(eps),
        None if kw.get("mx_quirks") is None else _mf._name("mx_quirks", kw["mx_quirks"]), ftz)


_DTYPE_ARGS = {"float32": _torch.float32, "float64": _torch.float64, "float16": _torch.float16,
               "bfloat16": _torch.bfloat16}


def _dtype_arg(dtype: str) -> _Any:
    if dtype not in _DTYPE_ARGS:
        raise ValueError(f"dtype: {dtype!r} is not accepted; accepted: {', '.join(_DTYPE_ARGS)}")
    return _DTYPE_ARGS[dtype]


@_torch.library.custom_op("minifloat::dequantize", mutates_args=())
def _dequantize_op(codes: _torch.Tensor, scales: _torch.Tensor, tensor_scale: _torch.Tensor, scheme: str,
                   options: str, dtype: str) -> _torch.Tensor:
    if (launcher := _launcher(codes, "dequantize")) is not None:
        deq = _k_dequantize64(codes, scales.to(codes.device), tensor_scale, scheme, options, "dequantize")
        return _k_round_to(deq, _dtype_arg(dtype), launcher)
    return _round_to(_dequantize_np(codes, scales, tensor_scale, scheme, options), _dtype_arg(dtype))


@_dequantize_op.register_fake
def _(codes, scales, tensor_scale, scheme, options, dtype):
    return _torch.empty(codes.shape, dtype=_dtype_arg(dtype), device=codes.device)


@_torch.library.custom_op("minifloat::fake_quant", mutates_args=())
def _fake_quant_op(x: _torch.Tensor, scheme: str, options: str) -> _torch.Tensor:
    if (launcher := _launcher(x, "fake_quant")) is not None:
        return _k_fake_quant(x, scheme, options, launcher)
    dequant_dtype_name(x.dtype)
    q = _quantize_np(x, scheme, options)
    return _round_to(q.dequantize(bool(_kw(options).get("scale_ftz", False))), x.dtype)


@_fake_quant_op.register_fake
def _(x, scheme, options):
    return _torch.empty_like(x)


def _saturated_np(x: _Any, scheme: str, options: str) -> _np.ndarray:
    """Where the element saturated: |x| > |dequantized| and the element code has the largest magnitude."""
    q = _quantize_np(x, scheme, options)
    values = _mf.decode(q.codes, q.element, dtype="float64") if q.element != "mxint8" else q.codes
    return _saturation(q.element, _torch.from_numpy(q.codes), _torch.from_numpy(values), x,
                       _torch.from_numpy(q.dequantize())).numpy()


def _element_max(fmt: str) -> float:
    return float(_mf.format_info(fmt)["max"])


@_torch.library.custom_op("minifloat::_saturated", mutates_args=())
def _saturated_op(x: _torch.Tensor, scheme: str, options: str) -> _torch.Tensor:
    if (launcher := _launcher(x, "fake_quant")) is not None:
        return _k_saturated(x, scheme, options, launcher)
    return _torch.from_numpy(_saturated_np(x, scheme, options))


@_saturated_op.register_fake
def _(x, scheme, options):
    return _torch.empty(x.shape, dtype=_torch.bool, device=x.device)


def _fq_setup(ctx, inputs, output):
    x, scheme, options = inputs
    ctx.clipped = _kw(options).get("ste", "identity") == "clipped"
    if ctx.clipped:
        ctx.save_for_backward(_torch.ops.minifloat._saturated(x, scheme, options))


def _fq_backward(ctx, grad):
    if ctx.clipped:
        (sat,) = ctx.saved_tensors
        grad = _torch.where(sat, _torch.zeros_like(grad), grad)
    return grad, None, None


_fake_quant_op.register_autograd(_fq_backward, setup_context=_fq_setup)


# ---- the front end ------------------------------------------------------------------------------------

def _flag_arg(arg: str, v: _Any) -> None:
    if not isinstance(v, bool):
        raise TypeError(f"{arg}: expected True or False, got {v!r}")


def _on_cpu(x: _Any, device_fallback: _Any, op: str) -> _Any:
    if device_fallback not in _DEVICE_FALLBACKS:
        raise ValueError(f"device_fallback: {device_fallback!r} is not accepted; accepted: None, 'cpu'")
    if x.device.type not in ("cpu", "meta") and device_fallback == "cpu":
        return x.cpu()
    _launcher(x, op)  # a CUDA tensor stays on its device in a CUDA build; otherwise the error
    return x


def fake_quant(x: _torch.Tensor, scheme: str, *, ste: str = "identity", scale_ftz: bool = False,
               device_fallback: str | None = None, **quantize_kw: _Any) -> _torch.Tensor:
    """``x`` quantized with ``scheme`` and dequantized, in ``x``'s dtype (float32/float64/float16/bfloat16).

    Every keyword of ``minifloat.quantize`` is accepted (``rule``, ``axis``, ``round``, ``sr``, block
    policies, ...). The value is element x block scale (x tensor scale), exact, rounded once (RNE) to
    x's dtype. ``ste``: the backward, ``"identity"`` or ``"clipped"`` (module docstring). With ``transform`` the
    result is in the transformed domain (as the CLI's default ``--dequant-domain transformed``: the dequantized
    codes of x·M, not an estimate of x; QuantLinear gives it to both wgrad operands, whose product is then the
    GEMM's), so only ``ste="identity"`` is accepted with it.
    Example: ``fake_quant(w, "mxfp8_e4m3")``; ``fake_quant(g, "nvfp4", round="sr", sr=dict(seed=1))``.
    """
    if ste not in _STE:
        raise ValueError(f"ste: {ste!r} is not accepted; accepted: {', '.join(_STE)}")
    _flag_arg("scale_ftz", scale_ftz)
    if ste == "clipped" and quantize_kw.get("transform", "none") != "none":
        raise ValueError("ste: 'clipped' compares x with the output, which a transform puts in the transformed domain; "
                         "accepted with transform: ste='identity'")
    if not isinstance(x, _torch.Tensor):
        raise TypeError(f"x: expected a torch.Tensor, got {type(x).__name__}")
    dequant_dtype_name(x.dtype)
    xc = _on_cpu(x, device_fallback, "fake_quant")
    opts = dict(quantize_kw, scale_ftz=bool(scale_ftz), ste=ste)
    y = _torch.ops.minifloat.fake_quant(xc, scheme, _options(opts))
    return y.to(x.device) if xc is not x else y


def quantize(x: _torch.Tensor, scheme: str, *, device_fallback: str | None = None,
             **quantize_kw: _Any) -> tuple[_torch.Tensor, _torch.Tensor, _torch.Tensor]:
    """(codes, scales, tensor_scale) of ``minifloat.quantize(x, scheme, **quantize_kw)`` as tensors
    (``Quantized.codes``, ``.scales``, ``.tensor_scale`` as shape (1,), or shape (0,) when the scheme has none)."""
    xc = _on_cpu(x, device_fallback, "quantize")
    return _torch.ops.minifloat.quantize(xc, scheme, _options(quantize_kw))


def dequantize(codes: _torch.Tensor, scales: _torch.Tensor, tensor_scale: _torch.Tensor, scheme: str, *,
               dtype: str = "float32", device_fallback: str | None = None, **quantize_kw: _Any) -> _torch.Tensor:
    """The values of ``quantize``'s (codes, scales, tensor_scale) in ``dtype`` (float32/float64/float16/bfloat16):
    exact (element x block scale x tensor scale) and rounded once (RNE) as ``fake_quant``; give the same scheme and
    layout keywords (``rule``, ``axis``, block policies, ``mx_quirks``) as to ``quantize``. ``scale_ftz=True``
    reads subnormal scales as 0. ``dequantize(*quantize(x, s), s, dtype=...)`` equals ``fake_quant(x, s)``."""
    if isinstance(dtype, _torch.dtype):  # a torch dtype, as the other functions take, or its name
        dtype = {v: k for k, v in _DTYPE_ARGS.items()}.get(dtype, str(dtype))
    _dtype_arg(dtype)
    _flag_arg("scale_ftz", quantize_kw.get("scale_ftz", False))
    cc = _on_cpu(codes, device_fallback, "dequantize")
    out = _torch.ops.minifloat.dequantize(cc, scales.to(cc.device), tensor_scale.to(cc.device), scheme,
                                          _options(quantize_kw), dtype)
    return out.to(codes.device) if cc is not codes else out


def convert(x: _torch.Tensor, fmt: str, *, device_fallback: str | None = None, **convert_kw: _Any) -> _torch.Tensor:
    """``minifloat.convert(x, fmt, as_="torch", **convert_kw)`` as an op: uint8 codes (<= 8 bits) or int16 bits."""
    xc = _on_cpu(x, device_fallback, "convert")
    return _torch.ops.minifloat.convert(xc, fmt, _options(convert_kw))


def decode(codes: _torch.Tensor, fmt: str, *, dtype: str = "float32", device_fallback: str | None = None,
           **decode_kw: _Any) -> _torch.Tensor:
    """``minifloat.decode(codes, fmt, dtype=dtype)`` as an op (uint8 codes, or the int16 bits of convert)."""
    cc = _on_cpu(codes, device_fallback, "decode")
    return _torch.ops.minifloat.decode(cc, fmt, dtype, _options(decode_kw))


# ---- recipes on the user's model: QuantLinear, quantize_model -----------------------------------------

_OPERANDS = ("x", "w", "g")  # train/recipe.hpp Operand
_GEMMS = ("fprop", "dgrad", "wgrad")  # train/recipe.hpp Gemm


def recipes() -> dict:
    """The recipes of ``minifloat train`` (train/recipe.hpp ``recipes()``, the one list), by name: ``x``/``w``/``g``
    give each operand class's quantization (``kind`` none|cast|scheme|delayed, ``scheme`` spec string, ``element``,
    ``block_rows``/``block_cols``, ``rule``, ``round``, ``overflow``, ``sr_variant``, ``sr_bits``), the same in
    fprop, dgrad and wgrad, blocks always along the GEMM's contraction axis."""
    return {r["name"]: r for r in _mf._ext.train_recipes()}


def sr_stream(layer: int, operand: str, gemm: str) -> int:
    """The SR stream of an operand ("x", "w", "g") of a GEMM ("fprop", "dgrad", "wgrad") of layer ``layer``:
    ``(layer << 4) | (operand << 2) | gemm`` (train/recipe.hpp sr_stream, the rule ``minifloat train`` uses).
    Element i of that operand at step s reads ``minifloat.sr_bits(seed, stream, s, i)``."""
    if operand not in _OPERANDS or gemm not in _GEMMS:
        raise ValueError(f"sr_stream: operand {operand!r} / gemm {gemm!r}; accepted: operand x, w, g and gemm "
                         "fprop, dgrad, wgrad")
    return _mf._ext.train_sr_stream(int(layer), _OPERANDS.index(operand), _GEMMS.index(gemm))


def _operand_options(oq: dict, *, seed: int, stream: int, step: int, gemm: str) -> dict:
    """The keywords the recipe row ``oq`` quantizes with (rounding, SR, the wgrad transform)."""
    sr = None
    if oq["round"] == "sr":
        sr = dict(seed=seed, stream=stream, step=step, variant=oq["sr_variant"], bits=oq["sr_bits"])
    kw = dict(round=oq["round"], overflow=oq["overflow"], **({"sr": sr} if sr else {}))
    if oq["kind"] == "scheme":
        transform = oq.get("wgrad_transform", "none") if gemm == "wgrad" else "none"
        if transform != "none":
            kw["transform"] = transform
    return kw


def _unsupported_kind(kind: str) -> ValueError:
    return ValueError(f"recipe operand kind {kind!r} (Transformer Engine DelayedScaling keeps an amax history per "
                      "tensor) is not supported by QuantLinear; accepted: recipes whose operands are none, cast or "
                      "scheme")


def quantize_operand(t: _torch.Tensor, oq: dict, *, seed: int, stream: int, step: int,
                     gemm: str = "fprop") -> _torch.Tensor:
    """One GEMM operand (float32, blocks along its last axis = the contraction axis) as the recipe row ``oq``
    quantizes it in ``minifloat train`` (train/quantizer.cpp Quantizer::apply): none as is; cast: rounded into
    ``element`` and decoded; scheme: ``fake_quant`` with the row's spec, rounding and SR
    ``sr=dict(seed=seed, stream=stream, step=step)``, and for ``gemm="wgrad"`` the row's ``wgrad_transform``
    (values in the transformed domain: both wgrad operands take it, so their product is the GEMM's)."""
    kind = oq["kind"]
    kw = _operand_options(oq, seed=seed, stream=stream, step=step, gemm=gemm)
    if kind == "none":
        return t
    if kind == "cast":
        return decode(convert(t, oq["element"], **kw), oq["element"], dtype="float32")
    if kind == "scheme":
        return fake_quant(t, oq["scheme"], **kw)
    raise _unsupported_kind(kind)


class _Parts:
    """One operand as a tensor-core GEMM reads it: element codes (rows, k) of format ``element``, the block scales
    per (row, k-block) as float32 values and as stored (``scale_codes``: uint8 codes or None), the k-block length
    and the FP32 tensor decode scale (1 when the scheme has none); ``value`` is the fake-quantized float32 tensor."""

    def __init__(self, t: _torch.Tensor, oq: dict, kw: dict):
        rows, k = t.shape
        x = t.detach().contiguous().numpy()
        kind = oq["kind"]
        if kind == "none":
            raise ValueError("gemm: a tensor-core model multiplies its own operand formats, and this recipe leaves "
                             "an operand unquantized (kind none); accepted: recipes whose operands are cast or scheme")
        if kind == "cast":
            self.element = oq["element"]
            self.codes = _mf.convert(x, self.element, **kw)
            self.kblock, self.scale_codes, self.tensor_scale = k, None, 1.0
            self.scales = _np.ones((rows, 1), _np.float32)
            self.value = _torch.from_numpy(_mf.decode(self.codes, self.element, dtype="float32"))
            return
        if kind != "scheme":
            raise _unsupported_kind(kind)
        q = _mf.quantize(x, oq["scheme"], **kw)
        self.element, self.codes = q.element, q.codes
        br = rows if q.block_rows == 0 else q.block_rows
        self.kblock = k if q.block_cols == 0 else q.block_cols
        sv = q.scale_values()
        s32 = sv.astype(_np.float32)
        if not _np.array_equal(s32.astype(_np.float64), sv, equal_nan=True):
            raise ValueError(f"gemm: the block scales of {oq['scheme']!r} are not all FP32 values")
        self.scales = _np.repeat(s32, br, axis=0)[:rows]
        self.scale_codes = (_np.repeat(q.scales, br, axis=0)[:rows] if q.scales.dtype == _np.uint8 else None)
        self.tensor_scale = 1.0 if q.tensor_scale is None else float(q.tensor_scale)
        self.value = _torch.from_numpy(q.dequantize().astype(_np.float32))


def model_gemm(a: _Parts, b: _Parts, model: str) -> _torch.Tensor:
    """``Y = A B^T`` for operands quantized along their last axis (a: (m, k), b: (n, k)), through the tensor-core
    accumulation model ``model`` (``minifloat.gemm``, the CLI's ``minifloat dot``): slow and exact.

    Block-scaled models (``blackwell-tcgen05-mxf8f6f4/mxf4/nvf4-unvalidated``) take the codes and scale codes
    whole (the scales must be in the model's scale format and block). Other models see one k-block at a time (the
    recipe's block length along k; the whole k for per-tensor scales and casts), C = 0, and each partial sum P is
    promoted in k-block order into an FP32 accumulator, ``acc = fl32(acc + fl32(fl32(sa·sb)·P))``, as DeepGEMM's
    Hopper FP8 kernels do every 128 k (deep_gemm/include/deep_gemm/impls/sm90_fp8_gemm_1d1d.cuh:308, written
    ``final_accum += scale_a * scale_b * accum``; this model does not fuse the last multiply-add, which nvcc's
    default --fmad=true may). Tensor scales (NVFP4) last: ``fl32(acc·fl32(ta·tb))``, the GEMM's alpha."""
    f32 = _np.float32
    ca, cbt = a.codes, _np.ascontiguousarray(b.codes.T)
    m, n = ca.shape[0], cbt.shape[1]
    scaled = _mf._ext.dot_block_scale(_mf._name("model", model))
    if scaled is not None:
        if a.scale_codes is None or b.scale_codes is None:
            raise ValueError(f"gemm: model {model!r} is block-scaled ({scaled[0].name}, block {scaled[1]}); this "
                             "recipe's operands have no scale codes of that format")
        sa = _np.ascontiguousarray(a.scale_codes)
        sb = _np.ascontiguousarray(b.scale_codes.T)
        acc = _np.asarray(_mf.gemm(ca, cbt, model=model, format=a.element, format_b=b.element, scale_a=sa,
                                   scale_b=sb), f32)
    else:
        if a.kblock != b.kblock:
            raise ValueError(f"gemm: the operands' k-blocks differ ({a.kblock} and {b.kblock}); accepted: equal "
                             "block lengths along the contraction axis")
        kb = a.kblock
        acc = _np.zeros((m, n), f32)
        for j in range((ca.shape[1] + kb - 1) // kb):
            part = _np.asarray(_mf.gemm(_np.ascontiguousarray(ca[:, j * kb:(j + 1) * kb]),
                                        _np.ascontiguousarray(cbt[j * kb:(j + 1) * kb]), model=model,
                                        format=a.element, format_b=b.element), f32)
            s = a.scales[:, j][:, None] * b.scales[:, j][None, :]  # float32 x float32: one rounding
            acc = acc + s * part
    if a.tensor_scale != 1.0 or b.tensor_scale != 1.0:
        acc = acc * (f32(a.tensor_scale) * f32(b.tensor_scale))
    return _torch.from_numpy(_np.ascontiguousarray(acc, f32))


class _QuantLinearFn(_torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b, layer):
        ctx.layer, ctx.step = layer, layer.step
        ctx.save_for_backward(x, w)
        y = layer._mm(x, "x", w, "w", "fprop", layer.step)
        return y + b if b is not None else y

    @staticmethod
    def backward(ctx, gy):
        x, w = ctx.saved_tensors
        layer, step = ctx.layer, ctx.step
        gy = gy.contiguous()
        # wgrad: dW = G^T X, contracted over the batch: G^T and X^T quantized along their rows (layers.cpp)
        dw = layer._mm(gy.t().contiguous(), "g", x.t().contiguous(), "x", "wgrad", step)
        # dgrad: dX = G W, contracted over the output features: G and W^T along their rows
        dx = layer._mm(gy, "g", w.t().contiguous(), "w", "dgrad", step)
        db = gy.sum(0) if ctx.needs_input_grad[2] else None
        return dx, dw, db, None


class QuantLinear(_torch.nn.Module):
    """``nn.Linear`` whose three GEMMs run on operands quantized by a recipe of ``minifloat train`` (``recipes()``):
    fprop Y = Xq Wq^T, dgrad dX = Gq (W^T)q^T, wgrad dW = (G^T)q (X^T)q^T, each operand quantized along its GEMM's
    contraction axis with its class's row (x, w, g), as Transformer Engine quantizes per GEMM. The GEMM runs in
    torch float32 (``gemm=None``, the default) or through a tensor-core accumulation model (``gemm="hopper-fp8"``,
    any name of ``minifloat.names("accumulation")``: ``model_gemm``, slow and exact; eager only, not traced by
    torch.compile). SR: operand ``o`` of GEMM ``m`` at step ``s`` reads
    ``sr_bits(seed, sr_stream(layer, o, m), s, i)``; ``step`` counts this layer's training-mode forward calls (0
    first). ``hook(gemm, operand, source, quantized)``, when set, sees every operand (tests). Inputs of any leading
    shape [..., in_features]; float32 only.
    """

    def __init__(self, linear: _torch.nn.Linear, recipe: str | dict, *, layer: int, seed: int = 0,
                 gemm: str | None = None):
        super().__init__()
        self.recipe = recipes()[recipe] if isinstance(recipe, str) else recipe
        for o in _OPERANDS:
            if self.recipe[o]["kind"] == "delayed":
                quantize_operand(_torch.zeros(1, 1), self.recipe[o], seed=0, stream=0, step=0)  # the one error
        if self.recipe.get("gaussws"):
            raise ValueError(f"recipe {self.recipe['name']!r}: GaussWS weights are not supported by QuantLinear")
        if gemm is not None:
            _mf._ext.dot_result_format(_mf._name("model", gemm))  # the one error for a bad model name
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.weight = linear.weight
        self.bias = linear.bias
        self.layer, self.seed, self.step, self.gemm = int(layer), int(seed), 0, gemm
        self.streams = {(o, m): sr_stream(self.layer, o, m) for o in _OPERANDS for m in _GEMMS}
        self.hook = None

    def _mm(self, a, oa, b, ob, gemm, step):
        """``Aq @ Bq^T`` of GEMM ``gemm`` (a, b quantized along their last axis as operands oa, ob)."""
        def opts(operand):
            return _operand_options(self.recipe[operand], seed=self.seed, stream=self.streams[operand, gemm],
                                    step=step, gemm=gemm)
        if self.gemm is None:
            qa, qb = (quantize_operand(t, self.recipe[o], seed=self.seed, stream=self.streams[o, gemm], step=step,
                                       gemm=gemm) for t, o in ((a, oa), (b, ob)))
        else:
            pa, pb = (_Parts(t, self.recipe[o], opts(o)) for t, o in ((a, oa), (b, ob)))
            qa, qb = pa.value, pb.value
        if self.hook is not None:
            self.hook(gemm, oa, a, qa)
            self.hook(gemm, ob, b, qb)
        return qa @ qb.t() if self.gemm is None else model_gemm(pa, pb, self.gemm)

    def forward(self, x):
        if x.dtype != _torch.float32 or self.weight.dtype != _torch.float32:
            raise TypeError(f"QuantLinear: float32 inputs and weights only (got {x.dtype}, {self.weight.dtype})")
        lead = x.shape[:-1]
        y = _QuantLinearFn.apply(x.reshape(-1, self.in_features), self.weight, self.bias, self)
        if self.training:
            self.step += 1
        return y.reshape(*lead, self.out_features)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, recipe={self.recipe['name']}, "
                f"layer={self.layer}, seed={self.seed}")


def quantize_model(model: _torch.nn.Module, recipe: str, *, seed: int = 0, gemm: str | None = None) -> list:
    """Swap every ``nn.Linear`` of ``model`` (in ``named_modules`` order; layer ids 0, 1, ...) for a ``QuantLinear``
    sharing its parameters; returns ``[(qualified name, QuantLinear), ...]``. ``recipe``: a name of ``recipes()``;
    ``gemm``: QuantLinear's (None: torch float32; a tensor-core model name: ``model_gemm``)."""
    table = recipes()
    if recipe not in table:
        raise ValueError(f"recipe: {recipe!r} is not a recipe; accepted: {', '.join(table)}")
    targets = [(n, m) for n, m in model.named_modules() if type(m) is _torch.nn.Linear]
    swapped = []
    for layer, (name, lin) in enumerate(targets):
        q = QuantLinear(lin, table[recipe], layer=layer, seed=seed, gemm=gemm)
        parent = model
        *path, leaf = name.split(".")
        for p in path:
            parent = getattr(parent, p)
        setattr(parent, leaf, q)
        swapped.append((name, q))
    return swapped


def loss_figure_svg(runs: list, *, recipes: list, seeds: int, model: str = "mlp-digits") -> str:
    """The loss figure of ``minifloat train`` (train/study.hpp loss_figure_svg, the project's one plot writer) for
    runs made here: ``runs`` are dicts ``recipe``, ``seed``, ``loss_curve`` (train loss per step), ``val_steps``,
    ``val_curve``; ``recipes`` names the legend order (names of ``recipes()``); ``model`` (a ``minifloat names
    train-model`` name) and ``seeds`` make the title. Returns the SVG text."""
    return _mf._ext.train_loss_svg(model, list(recipes), int(seeds), list(runs))
