#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""probe check --scale-layout (issue 25 item 7) with scales laid out by NumPy, not by the library: the
folder's expected scales swizzled the way torchao's `to_blocked` does it (view/permute/reshape, for
cutlass128x4), FlashInfer's [m tiles, k tiles, 8, 4] (flashinfer8x4) and DeepGEMM's packed MN-major
int32 words (deepgemm_packed) each pass under their layout; scales in another layout than the one
declared are named ("right but in layout X"), whether the sizes differ (exit 2, one line) or agree
(exit 1 after the report); elementwise and dot folders refuse --scale-layout and --got-scales. Exit 77 = SKIPPED (no numpy)."""
import os, subprocess, sys, tempfile

try:
    import numpy as np
except ImportError:
    print("SKIPPED: numpy not installed")
    sys.exit(77)

cli = sys.argv[1]
fails = 0


def expect(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True)


def pad(s, rows, cols):
    """The scale grid [n, 1] zero-padded to [rows, cols]."""
    out = np.zeros((rows, cols), np.uint8)
    out[: s.shape[0], : s.shape[1]] = s
    return out


def ceil_to(x, m):
    return (x + m - 1) // m * m


def to_blocked(s):
    """torchao mx_formats/utils.py to_blocked: 128x4 blocks, each rearranged (4, 32, 4) -> (32, 4, 4)."""
    r, c = ceil_to(s.shape[0], 128), ceil_to(s.shape[1], 4)
    p = pad(s, r, c)
    blocks = p.reshape(r // 128, 128, c // 4, 4).transpose(0, 2, 1, 3)
    return blocks.reshape(-1, 4, 32, 4).transpose(0, 2, 1, 3).reshape(-1)


def flashinfer_8x4(s):
    """FlashInfer get_sf_out_offset_8x4: SF layout [numMTiles, numKTiles, 8 (mTile), 4 (kTile)]."""
    r, c = ceil_to(s.shape[0], 8), ceil_to(s.shape[1], 4)
    return pad(s, r, c).reshape(r // 8, 8, c // 4, 4).transpose(0, 2, 1, 3).reshape(-1)


def deepgemm_packed(s):
    """DeepGEMM get_mn_major_tma_aligned_packed_ue8m0_tensor_torch: pad to [align(mn, 4), align(k, 4)],
    view as int32 [mn, k/4], store MN-major: the storage is the transpose [k/4, mn] row-major."""
    r, c = ceil_to(s.shape[0], 4), ceil_to(s.shape[1], 4)
    words = np.ascontiguousarray(pad(s, r, c)).view("<u4").reshape(r, c // 4)
    return np.ascontiguousarray(words.T)


with tempfile.TemporaryDirectory() as d:
    folder = os.path.join(d, "mx")
    r = run("probe", "gen", "--scheme", "mxfp8_e4m3", "--count", "128", "--seed", "7", "--out", folder)
    expect(r.returncode == 0, f"probe gen: {r.stdout}{r.stderr}")
    got = os.path.join(folder, "expected.npy")
    exp = np.load(os.path.join(folder, "expected_scales.npy"))
    n = exp.shape[0]
    grid = exp.reshape(n, 1)
    files = {}
    for name, f in (("cutlass128x4", to_blocked), ("flashinfer8x4", flashinfer_8x4), ("deepgemm_packed", deepgemm_packed)):
        files[name] = os.path.join(d, name + ".npy")
        np.save(files[name], f(grid))
        r = run("probe", "check", folder, "--got", got, "--got-scales", files[name], "--scale-layout", name)
        expect(r.returncode == 0, f"{name}: {r.returncode} {r.stdout}{r.stderr}")
        expect("scale layout:" not in r.stdout, f"{name}: a layout note on a pass: {r.stdout}")

    # declared rowmajor, given 128x4 bytes: the sizes differ, one line names the layout they are right in
    r = run("probe", "check", folder, "--got", got, "--got-scales", files["cutlass128x4"])
    expect(r.returncode == 2, f"rowmajor vs cutlass128x4: status {r.returncode}")
    expect("right but in layout cutlass128x4" in r.stderr + r.stdout, f"no layout named: {r.stderr}{r.stdout}")

    # equal sizes (8x4 and 128x4 both pad to 4 columns; 128 blocks fill a 128-row tile exactly when n = 128)
    if to_blocked(grid).size == flashinfer_8x4(grid).size:
        r = run("probe", "check", folder, "--got", got, "--got-scales", files["flashinfer8x4"],
                "--scale-layout", "cutlass128x4")
        expect(r.returncode == 1, f"flashinfer8x4 read as cutlass128x4: status {r.returncode} {r.stdout}{r.stderr}")
        expect("scale layout: the kernel's scales are right but in layout flashinfer8x4, not cutlass128x4"
               in r.stdout, f"no layout note: {r.stdout}")
    else:
        expect(False, f"probe gen --count 128 gave {n} blocks; the equal-size case needs a multiple of 128")

    # vllm4x4 needs 4 K blocks a row; FP32 scales and elementwise folders take no layout
    r = run("probe", "check", folder, "--got", got, "--got-scales", files["cutlass128x4"], "--scale-layout", "vllm4x4")
    expect(r.returncode == 2 and "multiples of 4" in r.stderr, f"vllm4x4: {r.returncode} {r.stderr}")
    ew = os.path.join(d, "ew")
    run("probe", "gen", "--format", "e4m3fn", "--count", "50", "--seed", "7", "--out", ew)
    r = run("probe", "check", ew, "--got", os.path.join(ew, "expected.npy"), "--scale-layout", "cutlass128x4")
    expect(r.returncode == 2 and "--scale-layout applies to block folders" in r.stderr, f"elementwise: {r.stderr}")
    dp = os.path.join(d, "dot")  # a dot folder ignored --got-scales before: now refused as elementwise ones are
    run("probe", "gen", "--model", "hopper-fp8", "--format", "e4m3fn", "--count", "20", "--seed", "1", "--out", dp)
    r = run("probe", "check", dp, "--got", os.path.join(dp, "expected.npy"), "--got-scales", files["cutlass128x4"])
    expect(r.returncode == 2 and "--got-scales applies to block folders" in r.stderr, f"dot: {r.returncode} {r.stderr}")

print("FAILED" if fails else "ok")
sys.exit(1 if fails else 0)
