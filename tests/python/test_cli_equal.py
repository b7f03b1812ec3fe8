# SPDX-License-Identifier: Apache-2.0
"""Python results equal the C++ CLI's (`minifloat encode`, oracle: the CLI's scalar text path —
parse_value + round_pack per line — against the bindings' array path) for random arrays of every
accepted dtype, shape and stride, and the error messages are the CLI's.
"""
import math
import subprocess

import numpy as np
import pytest

import minifloat as mf

ml_dtypes = pytest.importorskip("ml_dtypes")

FORMATS = ["e4m3fn", "e5m2", "e4m3fnuz", "e2m1fn", "e3m2fn", "e8m0fnu", "ue4m3", "Binary8p3se", "bf16", "f16",
           "Binary12p5sf"]
MODES = [("rne", "nonsat", "ocp"), ("rtz", "satfinite", "nvidia"), ("rna", "satpropagate", "ml_dtypes"),
         ("rtp", "nonsat", "p3109"), ("rto", "satfinite", "ocp"), ("rtn", "satpropagate", "ocp")]


def exact_text(v: float) -> str:
    if math.isnan(v):
        return "-nan" if math.copysign(1.0, v) < 0 else "nan"
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    return v.hex()


def cli_encode(cli, lines, fmt, rnd, ovf, prof, source=None):
    cmd = [cli, "encode", "-f", fmt, "--round", rnd, "--overflow", ovf, "--profile", prof]
    if source:
        cmd += ["--from", source]
    r = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    return [int(s, 16) for s in r.stdout.split()]


def random_values(rng, dtype, n):
    """Random bit patterns (every class: NaN, Inf, subnormals) and normal samples at many scales."""
    if dtype in (np.float16, ml_dtypes.bfloat16):
        bits = rng.integers(0, 1 << 16, n // 2, dtype=np.uint16).view(dtype)
    elif dtype == np.float32:
        bits = rng.integers(0, 1 << 32, n // 2, dtype=np.uint32).view(np.float32)
    else:
        bits = rng.integers(0, 1 << 63, n // 2, dtype=np.int64).view(np.float64)
    with np.errstate(over="ignore"):
        scaled = (rng.standard_normal(n - n // 2) * np.exp2(rng.integers(-20, 20, n - n // 2))).astype(dtype)
    return np.concatenate([bits.astype(dtype), scaled])


VIEWS = [lambda a: a, lambda a: a[::3], lambda a: a.reshape(8, -1)[:, 1::2], lambda a: a.reshape(4, 5, -1)[::-1, :, 2],
         lambda a: a.reshape(-1, 10).T]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, ml_dtypes.bfloat16],
                         ids=["float64", "float32", "float16", "bfloat16"])
def test_float_arrays_equal_cli(cli, dtype):
    rng = np.random.default_rng(2025)
    checked = 0
    for k, fmt in enumerate(FORMATS):
        rnd, ovf, prof = MODES[k % len(MODES)]
        if prof == "ml_dtypes" and dtype == np.float64:  # D11: f64 arrays take an f32 step; the CLI's text does not
            prof = "ocp"
        base = random_values(rng, dtype, 800)
        view = VIEWS[k % len(VIEWS)](base)
        ours = mf.convert(view, fmt, round=rnd, overflow=ovf, profile=prof)
        assert ours.shape == view.shape
        flat = view.reshape(-1)
        with np.errstate(invalid="ignore"):
            as64 = flat.astype(np.float64)
        want = cli_encode(cli, [exact_text(float(v)) for v in as64], fmt, rnd, ovf, prof)
        got = ours.reshape(-1).tolist()
        bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
        assert not bad, f"{fmt} {rnd}/{ovf}/{prof}: {len(bad)} mismatches, first x={flat[bad[0]]!r} " \
                        f"ours {got[bad[0]]:#x} CLI {want[bad[0]]:#x}"
        checked += len(got)
    print(f"{dtype.__name__ if hasattr(dtype, '__name__') else dtype}: {checked} elements equal to the CLI's")
    assert checked > 0


@pytest.mark.parametrize("source, dtype", [("e4m3fn", np.uint8), ("e2m1fn", np.uint8), ("e8m0fnu", np.uint8),
                                           ("bf16", np.uint16), ("Binary12p5sf", np.uint16)])
def test_code_arrays_equal_cli(cli, source, dtype):
    rng = np.random.default_rng(7)
    bits = mf.format_info(source)["bits"]
    codes = rng.integers(0, 1 << bits, 600, dtype=dtype).reshape(20, 30)[:, ::2]
    for k, fmt in enumerate(["e4m3fn", "e5m2", "e2m1fn", "e8m0fnu", "f16"]):
        rnd, ovf, prof = MODES[k]
        ours = mf.convert(codes, fmt, source=source, round=rnd, overflow=ovf, profile=prof)
        want = cli_encode(cli, [hex(int(c)) for c in codes.reshape(-1)], fmt, rnd, ovf, prof, source=source)
        assert ours.reshape(-1).tolist() == want, (source, fmt)


def test_ml_dtypes_code_arrays_equal_cli(cli):
    codes = np.arange(256, dtype=np.uint8)
    x = codes.view(ml_dtypes.float8_e5m2).reshape(16, 16).T
    ours = mf.convert(x, "e4m3fn", overflow="satfinite")
    want = cli_encode(cli, [hex(int(c)) for c in codes.reshape(16, 16).T.reshape(-1)], "e4m3fn", "rne",
                      "satfinite", "ocp", source="e5m2")
    assert ours.reshape(-1).tolist() == want


@pytest.mark.parametrize("arg, cli_opt, bad", [("fmt", "--format", "e9m9"), ("round", "--round", "nearest"),
                                               ("overflow", "--overflow", "clip"), ("profile", "--profile", "amd")])
def test_error_messages_are_the_clis(cli, arg, cli_opt, bad):
    opts = {"fmt": "e4m3fn", "round": "rne", "overflow": "nonsat", "profile": "ocp"}
    opts[arg] = bad
    r = subprocess.run([cli, "encode", "-f", opts["fmt"], "--round", opts["round"], "--overflow", opts["overflow"],
                        "--profile", opts["profile"], "1"], capture_output=True, text=True)
    assert r.returncode == 2
    prefix = f"minifloat: error: {cli_opt}: "
    line = r.stderr.strip()
    assert line.startswith(prefix) and "\n" not in line
    with pytest.raises(ValueError) as e:
        mf.convert(np.float32([1.0]), opts.pop("fmt"), **opts)
    assert str(e.value) == f"{arg}: " + line[len(prefix):]
