# SPDX-License-Identifier: Apache-2.0
"""minifloat.torch's CUDA door (issue 27): CUDA tensors through the project's CUDA kernels.

The door (torch.py `_k_*`) runs the block kernels' bodies (cuda/blocks.hpp) and the engine conversion kernel on
buffers it allocates on the tensor's device. Where no GPU is, the same door runs with launcher "cpu": the same
bodies over the same grid through the CPU launcher (cuda/api.hpp cpu::) on CPU tensors. So every step but the
device pointers is compared here, in the default suite, with the CPU ops (the library's BlockQuantizer and
array door, another implementation of each step: the host engine's tile loop and SIMD paths), for every named
scheme the kernels run, float32/float16/bfloat16 inputs, both axes, rne and SR. The tests named *cuda_device*
run the door on a CUDA device against the CPU ops; they skip with the reason where no device is
(scripts/device-check S6 runs them where one is lent).
"""
import types

import numpy as np
import pytest

import minifloat as mf

torch = pytest.importorskip("torch")
mft = pytest.importorskip("minifloat.torch")

DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def same(a, b):
    """Byte identity of two tensors (dtype, shape and bits)."""
    if a.dtype != b.dtype or tuple(a.shape) != tuple(b.shape):
        return False
    return a.numel() == 0 or torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


def tensor(shape, seed):
    """Random normals over a wide range with the specials every scheme has a rule for: a NaN, an Inf, a zero
    block, a huge value, a subnormal."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g) * torch.exp2(torch.randint(-20, 20, shape, generator=g).float())
    x[0, 0] = float("nan")
    x[1, 3] = float("inf")
    x[2, :] = 0.0
    x[3, 7] = 3.0e38
    x[4, 1] = 1.0e-40
    return x


def kernel_schemes():
    """Every named scheme, with whether the block kernels run it (a refused one names device_fallback)."""
    out = []
    for s in mf.schemes():
        try:
            mft._k_plan((32, 64), s, {}, "quantize")
            out.append((s, True))
        except ValueError as e:
            assert 'device_fallback="cpu"' in str(e), e
            out.append((s, False))
    return out


ISSUE25 = [{"transform": "rht16:te"}, {"transform": "rht16:torchao", "axis": "first"}, {"tensor_scale": 64},
           {"scale_select": "4over6:mse"}, {"scale_select": "4over6:mae", "round": "sr", "sr": {"seed": 1}}]


@pytest.mark.parametrize("kw", ISSUE25, ids=["rht16_te", "rht16_torchao_first", "tensor_scale", "4over6_mse",
                                             "4over6_mae_sr"])
def test_kernel_door_runs_issue25_steps_as_the_cpu_ops(kw):
    x = tensor((48, 96), seed=4)
    for dt in DTYPES:
        xx = x.to(dt)
        opts = mft._options(dict(kw, scale_ftz=False, ste="identity"))
        for g, w in zip(mft._k_quantize(xx, "nvfp4", opts, "cpu"), torch.ops.minifloat.quantize(xx, "nvfp4", opts)):
            assert same(g, w), (kw, dt)
        assert same(mft._k_fake_quant(xx, "nvfp4", opts, "cpu"), torch.ops.minifloat.fake_quant(xx, "nvfp4", opts))


@pytest.mark.parametrize("scheme", [s for s, runs in kernel_schemes() if runs])
@pytest.mark.parametrize("kw", [{}, {"axis": "first"}, {"round": "sr", "sr": {"seed": 7, "stream": 2, "step": 5}}],
                         ids=["last", "first", "sr"])
def test_kernel_door_equals_the_cpu_ops(scheme, kw):
    x = tensor((48, 96), seed=len(scheme))
    for dt in DTYPES:
        xx = x.to(dt)
        opts = mft._options(dict(kw, scale_ftz=False, ste="identity"))
        got = mft._k_quantize(xx, scheme, opts, "cpu")
        want = torch.ops.minifloat.quantize(xx, scheme, opts)
        for g, w, what in zip(got, want, ("codes", "scales", "tensor_scale")):
            assert same(g, w), (scheme, kw, dt, what)
        assert same(mft._k_fake_quant(xx, scheme, opts, "cpu"), torch.ops.minifloat.fake_quant(xx, scheme, opts))
        assert same(mft._k_saturated(xx, scheme, opts, "cpu"), torch.ops.minifloat._saturated(xx, scheme, opts))
        for out in DTYPES + (torch.float64,):
            name = str(out).split(".")[1]
            deq = mft._k_round_to(mft._k_dequantize64(*want, scheme, opts, "dequantize"), out, "cpu")
            assert same(deq, torch.ops.minifloat.dequantize(*want, scheme, opts, name)), (scheme, kw, dt, out)


def test_scale_ftz_and_block_policies_reach_the_kernels():
    x = tensor((32, 64), seed=3) * 1e-30
    for scheme, kw in (("mxfp8_e4m3", {"zero_block": "unit_scale", "scale_ftz": True}),
                       ("fp8_1x128", {"amax_epsilon": 1e-4, "fp32_order": "divide"}),
                       ("mxint8", {"mxint8_min": "symmetric"})):
        opts = mft._options(dict(kw, ste="identity", scale_ftz=kw.get("scale_ftz", False)))
        assert same(mft._k_fake_quant(x, scheme, opts, "cpu"), torch.ops.minifloat.fake_quant(x, scheme, opts))


@pytest.mark.parametrize("fmt", ["e4m3fn", "e5m2", "e2m1fn", "e3m2fn", "e8m0fnu", "bf16", "f16", "e4m3fnuz"])
def test_kernel_convert_and_decode_equal_the_cpu_ops(fmt):
    x = tensor((16, 40), seed=11)
    for dt in DTYPES + (torch.float64,):
        xx = x.to(dt)
        for kw in ({}, {"round": "rtz", "overflow": "satfinite"}, {"round": "sr", "sr": {"seed": 1, "step": 2}},
                   {"round": "rne", "ftz": True}):
            opts = mft._options(kw)
            want = torch.ops.minifloat.convert(xx, fmt, opts)
            got = mft._k_convert(xx, fmt, opts, "cpu")
            assert same(got, want), (fmt, dt, kw)
            assert same(mft._k_decode(got, fmt, "float32", mft._options({}), "cpu"),
                        torch.ops.minifloat.decode(want, fmt, "float32", mft._options({})))


def test_what_the_kernels_do_not_run_is_one_error_naming_the_fallback():
    x = torch.randn(4, 32)
    for kw, what in (({"mx_quirks": "torchao_0_18"}, "mx-quirks torchao_0_18 is not in the CUDA block body"),
                     ({"daz": True}, "daz is not in the CUDA block body"),
                     ({"amax_scope": "row"}, "amax_scope: 'row' is not run by minifloat.torch's CUDA door"),
                     ({"transform": "rht16:te", "transform_gemm": "hopper-bf16-unvalidated"},
                      "transform-gemm hopper-bf16-unvalidated")):
        with pytest.raises(ValueError) as e:
            mft._k_quantize(x, "nvfp4", mft._options(kw), "cpu")
        assert 'device_fallback="cpu"' in str(e.value) and what in str(e.value), e.value
    with pytest.raises(ValueError, match=r"float64; .*device_fallback=\"cpu\""):
        mft._k_quantize(x.double(), "mxfp8_e4m3", mft._options({}), "cpu")
    with pytest.raises(ValueError, match="decode to float32 with a profile only"):
        mft._k_decode(torch.zeros(4, dtype=torch.uint8), "e4m3fn", "float64", mft._options({}), "cpu")
    with pytest.raises(ValueError, match="launcher: 'tpu' is not accepted; accepted: cuda, cpu"):
        mf._ext.device_convert("tpu", 0, 0, 0, mf._format("s", "f32"), mf._format("f", "e4m3fn"),
                               mf._spec("rne", "nonsat"), mf._profile("ocp"), None, 0, 1)


def test_cuda_tensor_in_a_build_without_kernels_names_the_build_and_the_fallback(monkeypatch):
    monkeypatch.setattr(mft, "cuda_built", lambda: False)
    fake = types.SimpleNamespace(device=torch.device("cuda", 0))
    with pytest.raises(ValueError, match=r"device cuda:0; this build of the package has no CUDA kernels .*"
                                         r"device_fallback=\"cpu\""):
        mft._launcher(fake, "fake_quant")
    monkeypatch.setattr(mft, "cuda_built", lambda: True)
    assert mft._launcher(fake, "fake_quant") == "cuda"


needs_device = pytest.mark.skipif(not (torch.cuda.is_available() and mft.cuda_built()),
                                  reason="no CUDA device here, or a build without CUDA kernels (scripts/device-check "
                                         "runs these where a GPU is lent)")


@needs_device
@pytest.mark.parametrize("scheme", [s for s, runs in kernel_schemes() if runs])
def test_cuda_device_ops_equal_the_cpu_ops(scheme):
    x = tensor((256, 512), seed=5)
    for dt in DTYPES:
        xc = x.to(dt)
        xd = xc.cuda()
        for kw in ({}, {"axis": "first"}, {"round": "sr", "sr": {"seed": 9}}):
            got = mft.quantize(xd, scheme, **kw)
            want = mft.quantize(xc, scheme, **kw)
            for g, w in zip(got, want):
                assert g.device == xd.device and same(g.cpu(), w), (scheme, dt, kw)
            assert same(mft.fake_quant(xd, scheme, **kw).cpu(), mft.fake_quant(xc, scheme, **kw))
            for out in ("float32", "bfloat16", "float16", "float64"):
                assert same(mft.dequantize(*got, scheme, dtype=out, **kw).cpu(),
                            mft.dequantize(*want, scheme, dtype=out, **kw))


@needs_device
def test_cuda_device_convert_decode_and_autograd():
    x = tensor((64, 128), seed=2)
    for fmt in ("e4m3fn", "e5m2", "e2m1fn", "bf16"):
        c = mft.convert(x.cuda(), fmt, round="rne", overflow="satfinite")
        assert same(c.cpu(), mft.convert(x, fmt, round="rne", overflow="satfinite"))
        assert same(mft.decode(c, fmt).cpu(), mft.decode(c.cpu(), fmt))
    w = x.clone().cuda().requires_grad_()
    mft.fake_quant(w, "mxfp8_e4m3", ste="clipped").sum().backward()
    wc = x.clone().requires_grad_()
    mft.fake_quant(wc, "mxfp8_e4m3", ste="clipped").sum().backward()
    assert same(w.grad.cpu(), wc.grad)
