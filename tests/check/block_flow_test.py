#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""probe gen --scheme / probe check --got --got-scales with a NumPy + ml_dtypes block kernel (not the
library): an MX e4m3fn quantizer with E8M0 floor scales checked against an RCEIL target must exit 1 and
be diagnosed as ocp_floor; the folder's own expected files exit 0; swapped FP4 nibbles are diagnosed;
bad input exits 2 with one line. Exit 77 = SKIPPED (no numpy/ml_dtypes)."""
import json, os, subprocess, sys, tempfile

try:
    import numpy as np
    import ml_dtypes
except ImportError:
    print("SKIPPED: numpy/ml_dtypes not installed")
    sys.exit(77)

cli = sys.argv[1]


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True)


def floor_kernel(x):
    """MX e4m3fn: X = 2^(floor(log2 amax) - 8) (OCP MX v1.0 §6.3), elements x/X RNE satfinite."""
    n, k = x.shape
    codes = np.zeros((n, k), np.uint8)
    scales = np.zeros(n, np.uint8)
    for i in range(n):
        b = x[i].astype(np.float64)
        if not np.all(np.isfinite(b)):
            scales[i] = 0xFF
            codes[i] = 0x7F
            continue
        amax = np.max(np.abs(b))
        e = -127 if amax == 0 else int(np.clip(np.frexp(amax)[1] - 1 - 8, -127, 127))
        scales[i] = e + 127
        y = np.clip(np.ldexp(b, -e), -448, 448)
        codes[i] = y.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    return codes, scales


np.seterr(all="ignore")
fails = 0


def expect(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "p")
    r = run("probe", "gen", "--scheme", "e4m3fn/1x32/e8m0fnu:rceil", "--count", "400", "--seed", "2", "--out", p)
    expect(r.returncode == 0, "probe gen --scheme: " + r.stderr)
    x = np.load(os.path.join(p, "inputs.npy"))
    expect(x.dtype == np.float32 and x.shape == (400, 32), f"inputs shape {x.shape}")
    r = run("probe", "check", p, "--got", os.path.join(p, "expected.npy"), "--got-scales", os.path.join(p, "expected_scales.npy"))
    expect(r.returncode == 0 and "pass" in r.stdout, "expected files pass: " + r.stdout + r.stderr)
    c, s = floor_kernel(x)
    np.save(os.path.join(d, "c.npy"), c)
    np.save(os.path.join(d, "s.npy"), s)
    r = run("probe", "check", p, "--got", os.path.join(d, "c.npy"), "--got-scales", os.path.join(d, "s.npy"))
    expect(r.returncode == 1, f"floor kernel exits 1 (got {r.returncode}): {r.stderr}")
    expect(r.stdout.splitlines()[1].startswith("[scale_edge]"), "first mismatch line names the class: " + r.stdout)
    expect('agrees with "scale rule ocp_floor"' in r.stdout and "E8M0 floor instead of RCEIL" in r.stdout, "diagnosis: " + r.stdout)
    rep = json.load(open(os.path.join(p, "report.json")))
    expect(rep["failed"] > 0 and rep["minimal"][0]["class"] == "scale_edge", "report.json")
    expect(np.load(os.path.join(p, "minimal.npy")).shape[1] == 32, "minimal.npy holds blocks")
    # Bad input: one line on stderr, exit 2.
    r = run("probe", "check", p, "--got", os.path.join(d, "c.npy"), "--got-scales", os.path.join(d, "c.npy"))
    expect(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--got-scales" in r.stderr, "bad scales: " + r.stderr)
    r = run("probe", "check", p, "--got", os.path.join(d, "s.npy"), "--got-scales", os.path.join(d, "s.npy"))
    expect(r.returncode == 2 and "--got has" in r.stderr, "bad codes: " + r.stderr)
    # FP4, packed, nibbles swapped.
    q = os.path.join(d, "q")
    r = run("probe", "gen", "--scheme", "mxfp4", "--packing", "fp4x2", "--count", "300", "--seed", "1", "--out", q)
    expect(r.returncode == 0, "gen mxfp4 fp4x2: " + r.stderr)
    e = np.load(os.path.join(q, "expected.npy"))
    expect(e.shape == (300, 16), f"packed expected shape {e.shape}")
    sw = ((e & 0xF) << 4) | (e >> 4)
    np.save(os.path.join(d, "sw.npy"), sw.astype(np.uint8))
    r = run("probe", "check", q, "--got", os.path.join(d, "sw.npy"), "--got-scales", os.path.join(q, "expected_scales.npy"))
    expect(r.returncode == 1 and '"nibbles swapped"' in r.stdout, "swapped nibbles diagnosed: " + r.stdout)

print("block flow:", "FAIL" if fails else "pass")
sys.exit(1 if fails else 0)
