#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""probe gen --scheme / probe check --got --got-scales with a NumPy + ml_dtypes block kernel (not the
library): an MX e4m3fn quantizer with E8M0 floor scales checked against an RCEIL target must exit 1 and
be diagnosed as ocp_floor; with `--rerun` (this file run as the kernel: `block_flow_test.py --kernel IN
CODES SCALES`) its scale_edge block shrinks to one nonzero element. The folder's own expected files exit
0; swapped FP4 nibbles are diagnosed; FP6 dense packing equals numpy's and an MSB-first one is
diagnosed; bad input exits 2 with one line. Exit 77 = SKIPPED (no numpy/ml_dtypes)."""
import json, os, subprocess, sys, tempfile

try:
    import numpy as np
    import ml_dtypes
except ImportError:
    print("SKIPPED: numpy/ml_dtypes not installed")
    sys.exit(77)



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
if sys.argv[1] == "--kernel":  # the --rerun command: floor_kernel on the candidate blocks
    c, s = floor_kernel(np.load(sys.argv[2]))
    np.save(sys.argv[3], c)
    np.save(sys.argv[4], s)
    sys.exit(0)
cli = sys.argv[1]
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
    nz_plain = int(np.count_nonzero(np.load(os.path.join(p, "minimal.npy"))[0]))
    # --rerun: the same kernel run on candidate blocks shrinks the scale_edge block to one element.
    kern = f"{sys.executable} {os.path.abspath(__file__)} --kernel {{in}} {{codes}} {{scales}}"
    r = run("probe", "check", p, "--got", os.path.join(d, "c.npy"), "--got-scales", os.path.join(d, "s.npy"), "--rerun", kern)
    expect(r.returncode == 1 and r.stdout.splitlines()[1].startswith("[scale_edge]"), f"--rerun exits 1 ({r.returncode}): {r.stdout}{r.stderr}")
    expect("E8M0 floor instead of RCEIL" in r.stdout, "--rerun diagnosis: " + r.stdout)
    rep = json.load(open(os.path.join(p, "report.json")))
    mins = np.load(os.path.join(p, "minimal.npy"))
    m0 = rep["minimal"][0]
    nz = int(np.count_nonzero(mins[0]))
    expect(rep["kernel_calls"] > 1 and nz == 1 and nz_plain > 1, f"shrunk to one element: {nz} (unshrunk {nz_plain}), {rep['kernel_calls']} calls")
    # Hand-derived: in [1, 2) floor and rceil give 2^-8 up to amax 1.75 = 448*2^-8; the simplest f32 above it
    # (fewest significand bits) is 1.875 = 0x3ff00000, where floor keeps 2^-8 and rceil takes 2^-7.
    expect(mins[0][0] == np.float32(1.875), f"minimal scale_edge block is 1.875 at element 0: {mins[0][:4]}")
    c1, s1 = floor_kernel(mins[:1])  # the minimal block still fails: floor's scale is not rceil's
    expect(int(s1[0]) == m0["got_scale"] and m0["got_scale"] + 1 == m0["expected_scale"], f"minimal block reproduces: {m0}")
    r = run("probe", "check", p, "--got", os.path.join(d, "c.npy"), "--got-scales", os.path.join(d, "s.npy"), "--rerun", "true {in} {codes}")
    expect(r.returncode == 2 and "{scales}" in r.stderr and len(r.stderr.strip().splitlines()) == 1, "--rerun without {scales}: " + r.stderr)
    r = run("probe", "check", p, "--got", os.path.join(d, "c.npy"), "--got-scales", os.path.join(d, "s.npy"), "--rerun", "true {in} {codes} {scales}")
    expect(r.returncode == 2 and "--rerun" in r.stderr and len(r.stderr.strip().splitlines()) == 1, "--rerun writing nothing: " + r.stderr)
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

    # FP6, packed dense (4 codes in 3 bytes, LSB-first): the packed expected files are the unpacked
    # probe's codes packed by numpy here (not pack.hpp); an MSB-first packing is diagnosed.
    def pack6(c, msb_first=False):
        c = c.reshape(-1, 4).astype(np.uint32)
        w = (c[:, 3] | c[:, 2] << 6 | c[:, 1] << 12 | c[:, 0] << 18) if msb_first else (c[:, 0] | c[:, 1] << 6 | c[:, 2] << 12 | c[:, 3] << 18)
        b = [w >> 16, w >> 8, w] if msb_first else [w, w >> 8, w >> 16]
        return np.stack(b, axis=1).astype(np.uint8)
    u, f = os.path.join(d, "u6"), os.path.join(d, "f6")
    for out, extra in ((u, []), (f, ["--packing", "fp6_dense"])):
        r = run("probe", "gen", "--scheme", "mxfp6_e3m2", *extra, "--count", "200", "--seed", "4", "--out", out)
        expect(r.returncode == 0, "gen mxfp6_e3m2: " + r.stderr)
    eu, ef = np.load(os.path.join(u, "expected.npy")), np.load(os.path.join(f, "expected.npy"))
    expect(ef.shape == (200, 24) and np.array_equal(pack6(eu).reshape(200, 24), ef), f"fp6_dense expected = numpy-packed codes {ef.shape}")
    np.save(os.path.join(d, "m6.npy"), pack6(eu, msb_first=True).reshape(200, 24))
    r = run("probe", "check", f, "--got", os.path.join(d, "m6.npy"), "--got-scales", os.path.join(f, "expected_scales.npy"))
    expect(r.returncode == 1 and '"fp6 msb-first"' in r.stdout and "wrong FP6 bit order" in r.stdout, "MSB-first FP6 diagnosed: " + r.stdout)
    r = run("probe", "check", f, "--got", os.path.join(f, "expected.npy"), "--got-scales", os.path.join(f, "expected_scales.npy"))
    expect(r.returncode == 0, "packed fp6 expected files pass: " + r.stdout + r.stderr)
    r = run("probe", "check", f, "--got", os.path.join(u, "expected.npy"), "--got-scales", os.path.join(f, "expected_scales.npy"))
    expect(r.returncode == 2 and "24 code bytes" in r.stderr and len(r.stderr.strip().splitlines()) == 1, "unpacked got for fp6_dense: " + r.stderr)
    r = run("probe", "gen", "--scheme", "mxfp8_e4m3", "--packing", "fp6_dense", "--seed", "1", "--out", os.path.join(d, "x"))
    expect(r.returncode == 2 and "6-bit element" in r.stderr and len(r.stderr.strip().splitlines()) == 1, "fp6_dense with e4m3fn: " + r.stderr)

print("block flow:", "FAIL" if fails else "pass")
sys.exit(1 if fails else 0)
