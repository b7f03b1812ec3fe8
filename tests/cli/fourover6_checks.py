#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# fourover6_checks.py: issue 25 item 2 on the CLI, `quantize --scale-select 4over6:mse|4over6:mae` and
# `--out-scale-select FILE`, with the hand-derived blocks of tests/python/test_fourover6.py (TE
# transformer_engine/pytorch/custom_recipes/reference_nvfp4.py:524-648 at d0067d0): one tensor, amax 6, so
# S_enc = 1536/6 = 256 and every block's base = 256: map6 0x78 (256), map4 0x7c (384).
#  row 0 [6, -5, 0...]: map6 errors 0 + |(-4) - (-5)| = 1; map4: -5·fl32(2/3) → -3 → -4.5, error 0.5 → map-to-4;
#  row 1 [6, 1, 0...]: map6 exact; map4: 1 → 0.5 → 0.75, error 0.25 → map-to-6;
#  row 2 [6, 0...]: both exact: a tie → map-to-6.
# Also: the spec key scale-select= gives the same files; bad input (unknown name, a non-nvfp4 scheme,
# --out-scale-select without --scale-select, --axis first) gets one clear error and writes nothing.
# usage: fourover6_checks.py BIN
import pathlib
import tempfile

import numpy as np

from checks_common import expect, finish, run  # tests/cli/checks_common.py (BIN = argv[1])





with tempfile.TemporaryDirectory() as t:
    d = pathlib.Path(t)
    x = np.zeros((3, 16), np.float32)
    x[0, :2] = [6, -5]
    x[1, :2] = [6, 1]
    x[2, 0] = 6
    np.save(d / "x.npy", x)
    for mode in ("4over6:mse", "4over6:mae"):
        outs = {}
        for how, scheme, extra in (("option", "nvfp4", ["--scale-select", mode]),
                                   ("spec", "e2m1fn/1x16/ue4m3:nvfp4/scale-select=" + mode, [])):
            tag = f"{mode.replace(':', '_')}_{how}"
            rc, out, err = run("quantize", "--in", d / "x.npy", "--scheme", scheme, *extra,
                               "--out-codes", d / f"c_{tag}.npy", "--out-scales", d / f"s_{tag}.npy",
                               "--out-scale-select", d / f"p_{tag}.npy", "--out-tensor-scale", d / f"t_{tag}.npy")
            expect(rc == 0, f"quantize {scheme} {extra}", err or out)
            if rc != 0:
                continue
            c, s, p, ts = (np.load(d / f"{k}_{tag}.npy") for k in "cspt")
            expect(ts.tolist() == [2.0**-8], f"{tag}: tensor decode scale fl32(1/256) {ts.tolist()}")
            expect(p.dtype == np.uint8 and p.shape == (3, 1) and p[:, 0].tolist() == [1, 0, 0],
                   f"{tag}: choices {p.tolist()}")
            expect(s[:, 0].tolist() == [0x7C, 0x78, 0x78], f"{tag}: scales {s.tolist()}")
            expect(c[0, :2].tolist() == [0x6, 0xD] and c[1, :2].tolist() == [0x7, 0x2] and c[2, 0] == 0x7,
                   f"{tag}: codes {c.tolist()}")
            outs[how] = (c.tobytes(), s.tobytes(), p.tobytes())
        expect(len(outs) == 2 and outs["option"] == outs["spec"], f"{mode}: --scale-select == spec key")
    # the plain scheme is not 4over6 (the check can fail: other S_enc, other scale for row 0)
    rc, out, err = run("quantize", "--in", d / "x.npy", "--scheme", "nvfp4", "--out-codes", d / "c.npy",
                       "--out-scales", d / "s.npy", "--out-tensor-scale", d / "t.npy")
    expect(rc == 0 and np.load(d / "s.npy")[0, 0] != 0x7C, "plain nvfp4 differs", err)
    for args, needle in ((["--scheme", "nvfp4", "--scale-select", "5over7"], "accepted: none, 4over6:mse, 4over6:mae"),
                         (["--scheme", "mxfp4", "--scale-select", "4over6:mse"], "applies to nvfp4"),
                         (["--scheme", "nvfp4", "--out-scale-select", d / "bad_p.npy"], "needs --scale-select"),
                         (["--scheme", "nvfp4", "--scale-select", "4over6:mae", "--axis", "first"],
                          "last axis only")):
        rc, out, err = run("quantize", "--in", d / "x.npy", "--out-codes", d / "bad.npy", *args)
        expect(rc == 2 and needle in err and not (d / "bad.npy").exists() and not (d / "bad_p.npy").exists(),
               f"{args}: '{needle}'", err or out)
    # probe check names a flipped 4over6 choice (issue 25 item 2): a probe block is its own tensor, so base =
    # fl32(fl32(amax/6) · fl32(1536/amax)) is 256 to within rounding and e4m3 (spacing 32 there) gives map-to-6
    # 0x78 (256) and map-to-4 e4m3(384) = 0x7c; a kernel whose scale is the other candidate for one block is told so
    spec = "e2m1fn/1x16/ue4m3:nvfp4/scale-select=4over6:mse"
    rc, out, err = run("probe", "gen", "--scheme", spec, "--count", 32, "--seed", 3, "--out", d / "p46")
    expect(rc == 0, "probe gen 4over6", err or out)
    if rc == 0:
        s = np.load(d / "p46" / "expected_scales.npy")
        i = [k for k in range(len(s)) if s[k] in (0x78, 0x7C)][3]
        f = s.copy()
        f[i] = 0x7C if s[i] == 0x78 else 0x78
        np.save(d / "p46" / "flipped.npy", f)
        rc, out, err = run("probe", "check", d / "p46", "--got", d / "p46" / "expected.npy", "--got-scales",
                           d / "p46" / "expected_scales.npy", "--rounds", 0)
        expect(rc == 0, "probe check 4over6: the expected codes pass", err or out)
        rc, out, err = run("probe", "check", d / "p46", "--got", d / "p46" / "expected.npy", "--got-scales",
                           d / "p46" / "flipped.npy", "--rounds", 0)
        want4 = s[i] == 0x7C
        needle = (f"4over6 choice: the block chose map-to-{'6' if want4 else '4'} (scale 0x{f[i]:02x}), "
                  f"reference map-to-{'4' if want4 else '6'} (0x{s[i]:02x}) under 4over6:mse")
        expect(rc == 1 and "1 failing" in out and needle in out, f"probe check names the flipped choice: {needle}",
               out + err)

finish("issue 25 item 2 (4over6) CLI checks")
