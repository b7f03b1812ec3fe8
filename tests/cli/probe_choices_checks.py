#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# probe_choices_checks.py: issue 25 item 2's "the choice per block ... is checked by `probe check`":
# `probe gen --scheme nvfp4 --scale-select 4over6:mse|4over6:mae` writes expected_choices.npy (and names it in
# the manifest), and `probe check --got-choices FILE` reports the first mismatching block with both candidates
# and both errors. Hand-derived blocks (TE transformer_engine/pytorch/custom_recipes/reference_nvfp4.py:524-648
# at d0067d0, as tests/cli/fourover6_checks.py): each probe block is its own tensor, amax 6, so S_enc =
# fl32(1536/6) = 256, base = fl32(6/6)·256 = 256: map6 0x78 (256), map4 0x7c (384); an element's error value is
# fl32(q·sf·6/1536), i.e. q (map6) or 1.5·q (map4).
#  block 0 [6, -5, 0...]: map6: -5·1 ties to E2M1 -4 (RNE), d = 1: err6 1 (MAE and MSE);
#                         map4: -5·fl32(2/3) = -3.33.. -> -3, value -4.5, d = 0.5: err4 0.5 (MAE), 0.25 (MSE) -> map-to-4
#  block 1 [6, 1, 0...]: map6 exact (err 0); map4: 1·(2/3) -> 0.5, value 0.75: err 0.25 -> map-to-6
#  block 2 [6, 0...]: both exact: a tie -> map-to-6.
# Bad input (one clear error each): --got-choices of the wrong dtype, size or values, on a folder without
# scale-select or an elementwise folder; --scale-select outside --scheme or an unknown name.
# usage: probe_choices_checks.py BIN
import json
import pathlib
import shutil
import tempfile

import numpy as np

from checks_common import expect, finish, run  # tests/cli/checks_common.py (BIN = argv[1])





with tempfile.TemporaryDirectory() as t:
    d = pathlib.Path(t)
    for mode, err4 in (("4over6:mse", 0x3E800000), ("4over6:mae", 0x3F000000)):
        tag = mode.replace(":", "_")
        g = d / f"gen_{tag}"
        rc, out, err = run("probe", "gen", "--scheme", "nvfp4", "--scale-select", mode, "--count", 200, "--seed", 7,
                           "--out", g)
        expect(rc == 0, f"probe gen --scale-select {mode}", err)
        if rc != 0:
            continue
        m = json.loads((g / "manifest.json").read_text())
        expect(m["files"].get("expected_choices") == "expected_choices.npy", f"{tag}: manifest names the choices")
        expect(m["block_target"]["scheme"].endswith("scale-select=" + mode), f"{tag}: manifest scheme {m}")
        ch = np.load(g / "expected_choices.npy")
        n = np.load(g / "inputs.npy").shape[0]
        expect(ch.dtype == np.uint8 and ch.shape == (n,) and set(ch.tolist()) <= {0, 1}, f"{tag}: choices {ch}")
        expect(0 < int(ch.sum()) < n, f"{tag}: both choices occur among the probe blocks ({int(ch.sum())} of {n})")
        # the spec key gives the same folder
        g2 = d / f"spec_{tag}"
        rc, _, err = run("probe", "gen", "--scheme", "e2m1fn/1x16/ue4m3:nvfp4/scale-select=" + mode, "--count", 200,
                         "--seed", 7, "--out", g2)
        expect(rc == 0 and all((g / f).read_bytes() == (g2 / f).read_bytes() for f in
                               ("inputs.npy", "expected.npy", "expected_scales.npy", "expected_choices.npy")),
               f"{tag}: --scale-select == spec key", err)
        ok = ("--got", g / "expected.npy", "--got-scales", g / "expected_scales.npy")
        rc, out, err = run("probe", "check", g, *ok, "--got-choices", g / "expected_choices.npy")
        expect(rc == 0 and f"4over6 choices: {n} blocks, pass" in out, f"{tag}: reference choices pass", out + err)
        # the choices of the blocks each quantized on its own by `quantize --out-scale-select` agree
        x = np.load(g / "inputs.npy")
        sel = []
        for i in range(0, n, 25):
            np.save(d / "b.npy", x[i:i + 1])
            rc, _, err = run("quantize", "--in", d / "b.npy", "--scheme", "nvfp4", "--scale-select", mode,
                             "--out-codes", d / "bc.npy", "--out-scale-select", d / "bs.npy")
            sel.append(int(np.load(d / "bs.npy")[0, 0]) if rc == 0 else -1)
        expect(sel == ch[::25].tolist(), f"{tag}: quantize --out-scale-select per block {sel} vs {ch[::25]}")
        flip = ch.copy()
        flip[[3, 11]] ^= 1
        np.save(d / "flip.npy", flip)
        rc, out, err = run("probe", "check", g, *ok, "--got-choices", d / "flip.npy")
        expect(rc == 1 and "4over6 choices: " + str(n) + " blocks, 2 failing; first block 3" in out,
               f"{tag}: a flipped choice is found", out + err)
        expect(", pass\n" in out.splitlines(True)[0], f"{tag}: codes and scales still pass", out)
        rep = json.loads((g / "report.json").read_text())
        expect(rep["choices"]["failed"] == 2 and rep["choices"]["first"]["block"] == 3, f"{tag}: report.json {rep}")

        # the hand-derived blocks in a probe folder of their own
        h = d / f"hand_{tag}"
        shutil.copytree(g, h)
        (h / "expected_choices.npy").unlink()  # probe check then recomputes the reference's choices
        xh = np.zeros((3, 16), np.float32)
        xh[0, :2] = [6, -5]
        xh[1, :2] = [6, 1]
        xh[2, 0] = 6
        np.save(h / "inputs.npy", xh)
        np.save(h / "classes.npy", np.zeros(3, np.uint8))
        codes = np.zeros((3, 16), np.uint8)
        codes[0, :2] = [0x6, 0xD]
        codes[1, :2] = [0x7, 0x2]
        codes[2, 0] = 0x7
        np.save(h / "codes.npy", codes)
        np.save(h / "scales.npy", np.array([0x7C, 0x78, 0x78], np.uint8))
        hk = ("--got", h / "codes.npy", "--got-scales", h / "scales.npy")
        np.save(h / "right.npy", np.array([1, 0, 0], np.uint8))
        rc, out, err = run("probe", "check", h, *hk, "--got-choices", h / "right.npy")
        expect(rc == 0 and "3 blocks, pass" in out and "4over6 choices: 3 blocks, pass" in out,
               f"{tag}: hand blocks pass", out + err)
        np.save(h / "wrong.npy", np.array([0, 0, 0], np.uint8))
        rc, out, err = run("probe", "check", h, *hk, "--got-choices", h / "wrong.npy")
        want = (f"4over6 choices: 3 blocks, 1 failing; first block 0: got map-to-6 (0) expected map-to-4 (1); "
                f"candidates map-to-6 0x78 (256) err 0x3f800000 (1), map-to-4 0x7c (384) err 0x{err4:08x}")
        expect(rc == 1 and want in out, f"{tag}: hand block 0's finding\nwant {want}", out + err)
        rep = json.loads((h / "report.json").read_text())["choices"]["first"]
        expect((rep["got"], rep["expected"], rep["map6_code"], rep["map4_code"], rep["map6_err"], rep["map4_err"]) ==
               (0, 1, 0x78, 0x7C, "0x3f800000", f"0x{err4:08x}"), f"{tag}: report.json first {rep}")

    # bad input: one clear error each, exit 2
    g = d / "gen_4over6_mse"
    ok = ("--got", g / "expected.npy", "--got-scales", g / "expected_scales.npy")
    n = np.load(g / "inputs.npy").shape[0]
    np.save(d / "u2.npy", np.zeros(n, np.uint16))
    np.save(d / "short.npy", np.zeros(n - 1, np.uint8))
    two = np.zeros(n, np.uint8)
    two[4] = 2
    np.save(d / "two.npy", two)
    for f, msg in (("u2.npy", "--got-choices has dtype <u2; accepted: |u1"),
                   ("short.npy", f"--got-choices has {n - 1} elements but the probe folder has {n} blocks"),
                   ("two.npy", "--got-choices element 4 = 2; accepted: 0 (map-to-6), 1 (map-to-4)")):
        rc, out, err = run("probe", "check", g, *ok, "--got-choices", d / f)
        expect(rc == 2 and msg in err and err.count("\n") == 1, f"bad {f}: {msg}", err)
    rc, _, err = run("probe", "gen", "--scheme", "nvfp4", "--count", 50, "--seed", 1, "--out", d / "plain")
    expect(rc == 0 and not (d / "plain" / "expected_choices.npy").exists(), "no choices file without scale-select")
    np.save(d / "z.npy", np.zeros(np.load(d / "plain" / "inputs.npy").shape[0], np.uint8))
    rc, _, err = run("probe", "check", d / "plain", "--got", d / "plain" / "expected.npy", "--got-scales",
                     d / "plain" / "expected_scales.npy", "--got-choices", d / "z.npy")
    expect(rc == 2 and "has no scale-select; choices apply to scale-select 4over6:mse or 4over6:mae" in err,
           "--got-choices on a folder without scale-select", err)
    rc, _, err = run("probe", "gen", "--format", "e4m3fn", "--count", 50, "--seed", 1, "--out", d / "ew")
    rc, _, err = run("probe", "check", d / "ew", "--got", d / "ew" / "expected.npy", "--got-choices", d / "z.npy")
    expect(rc == 2 and "--got-choices applies to block folders" in err, "--got-choices on an elementwise folder", err)
    rc, _, err = run("probe", "gen", "--format", "e4m3fn", "--scale-select", "4over6:mse", "--seed", 1, "--out",
                     d / "ew2")
    expect(rc == 2 and "--scale-select applies to block targets" in err, "--scale-select with --format", err)
    rc, _, err = run("probe", "gen", "--scheme", "nvfp4", "--scale-select", "4over7", "--seed", 1, "--out", d / "b")
    expect(rc == 2 and "4over7" in err and "4over6:mse" in err, "--scale-select unknown name", err)

finish("probe_choices_checks")
