#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# issue28_checks.py: issue 28's CLI items that need input files (written here with NumPy and the
# safetensors package): convert --as ml_dtypes refuses formats ml_dtypes lacks (13), compare prints the
# NaN sign (15) and "an e4m3fn code" (16), report refuses duplicate/empty scheme-list items and says
# which tensors it skipped (16). Expected texts are the issue's; no minifloat code is used to make them.
# usage: issue28_checks.py BIN
import json
import pathlib
import tempfile

import numpy as np

from checks_common import expect, finish, run  # tests/cli/checks_common.py (BIN = argv[1])





with tempfile.TemporaryDirectory() as tmp:
    d = pathlib.Path(tmp)
    x = d / "x.npy"
    np.save(x, np.float32([1.0, -2.5, 448.0, 1e-3]))

    # ---- 13: --as ml_dtypes only for formats ml_dtypes has (Python's ml_dtype() refuses the same ones)
    for fmt in ("ue4m3", "Binary8p3se", "custom:4,3,8,signed,fn"):
        rc, out, err = run("convert", "--in", x, "--out", d / "o.npy", "-f", fmt, "--as", "ml_dtypes")
        expect(rc == 2 and "ml_dtypes" in err and "float8_e4m3fn" in err and not (d / "o.npy").exists(),
               f"13: convert -f {fmt} --as ml_dtypes must be refused naming the formats ml_dtypes has", err or out)
    for fmt, descr in (("e4m3fn", "<V1"), ("bf16", "<V2"), ("f16", "<f2")):
        rc, out, err = run("convert", "--in", x, "--out", d / f"{fmt}.npy", "-f", fmt, "--as", "ml_dtypes")
        expect(rc == 0, f"13: convert -f {fmt} --as ml_dtypes works", err)

    # ---- 15 and 16: compare prints -nan, and "an e4m3fn code"
    ref, got = d / "ref.npy", d / "got.npy"
    np.save(ref, np.uint8([0x7f, 0x01]))
    np.save(got, np.uint8([0xff, 0x01]))
    rc, out, err = run("compare", "--ref", ref, "--got", got, "--format", "e4m3fn")
    expect(rc == 1 and "ref 0x7f (nan) got 0xff (-nan)" in out, "15: compare shows the NaN sign", out + err)
    wide = d / "wide.npy"
    np.save(wide, np.uint16([0x1ff, 0x01]))
    np.save(ref, np.uint16([0x7f, 0x01]))
    rc, out, err = run("compare", "--ref", ref, "--got", wide, "--format", "e4m3fn")
    expect(rc == 2 and "is not an e4m3fn code" in err, "16: compare says 'an e4m3fn code'", err)
    rc, out, err = run("compare", "--ref", ref, "--got", wide, "--format", "ue4m3")
    expect(rc == 2 and "is not a ue4m3 code" in err, "16: compare says 'a ue4m3 code'", err)

    # ---- 16: one list rule for --schemes (and train --recipes): no duplicates, no empty items
    w = d / "w.npy"
    np.save(w, np.random.default_rng(1).standard_normal((64, 64)).astype(np.float32))
    for bad in ("mxfp4,mxfp4", "mxfp4,", ",mxfp4", "mxfp4,,nvfp4", "mxfp4,e2m1fn/1x32/e8m0fnu:ocp_floor"):
        rc, out, err = run("report", "--in", w, "--schemes", bad)
        expect(rc == 2 and err.startswith("minifloat: error: --schemes"), f"16: report --schemes {bad} refused",
               err or out)
    rc, out, err = run("report", "--in", w, "--schemes", "mxfp4,nvfp4")
    expect(rc == 0, "16: report --schemes mxfp4,nvfp4 works", err)
    for bad in ("fp32,", "fp32,,mxfp4"):
        rc, out, err = run("train", "--recipes", bad, "--out", d / "runs")
        expect(rc == 2 and "--recipes" in err and "empty" in err, f"16: train --recipes {bad} refused", err or out)

    # ---- 16: report says which tensors it skipped (an I64 position_ids beside F32 weights)
    try:
        from safetensors.numpy import save_file
    except ImportError:
        save_file = None
    if save_file is not None:
        st = d / "m.safetensors"
        save_file({"w": np.ones((4, 32), np.float32), "position_ids": np.arange(8, dtype=np.int64).reshape(1, 8)},
                  str(st))
        rc, out, err = run("report", "--in", st, "--schemes", "mxfp4")
        expect(rc == 0 and "position_ids" in out and "skipped" in out, "16: report's summary names skipped tensors",
               out + err)
        rc, out, err = run("report", "--in", st, "--schemes", "mxfp4", "--csv")
        expect(rc == 0 and "skipped" not in out.splitlines()[0], "16: report --csv header unchanged", out)

finish("issue 28 CLI file checks")
