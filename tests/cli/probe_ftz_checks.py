#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# probe_ftz_checks.py: issue 25 item 6's "--ftz / --daz on every converting command" for `probe gen`
# (elementwise and --scheme folders): the flags set RoundingSpec::ftz/daz, are recorded in manifest.json
# ("ftz": true / "daz": true, written only when set, so other folders stay byte-identical) and `probe check`
# reproduces the same reference from the manifest. Hand values from RoundingSpec's definition
# (include/minifloat/core/rounding.hpp; docs/conversion.md): e2m1fn's subnormal is 0.5 (min normal 1), so
# f32 0.5 -> 0x1, with --ftz 0x0; mxfp4 (E8M0 floor) of the block [1e-39, 0...] (an f32 subnormal amax):
# with --daz the input reads as +0, so the block is all-zero (scale 0x00 per zero-block=standard, code 0).
# Bad input: --ftz/--daz with --model, a manifest "ftz" that is not a boolean.
# usage: probe_ftz_checks.py BIN
import json
import pathlib
import tempfile

import numpy as np

from checks_common import expect, finish, run  # tests/cli/checks_common.py (BIN = argv[1])





with tempfile.TemporaryDirectory() as t:
    d = pathlib.Path(t)
    # elementwise
    rc0, _, e0 = run("probe", "gen", "--format", "e2m1fn", "--count", 3000, "--seed", 2, "--out", d / "e0")
    rc1, _, e1 = run("probe", "gen", "--format", "e2m1fn", "--ftz", "--count", 3000, "--seed", 2, "--out", d / "e1")
    rc2, _, e2 = run("probe", "gen", "--format", "e2m1fn", "--daz", "--count", 3000, "--seed", 2, "--out", d / "e2")
    expect(rc0 == rc1 == rc2 == 0, "probe gen --format e2m1fn [--ftz|--daz]", e0 + e1 + e2)
    if rc0 == rc1 == rc2 == 0:
        m0, m1, m2 = (json.loads((d / k / "manifest.json").read_text()) for k in ("e0", "e1", "e2"))
        expect("ftz" not in m0["target"] and "daz" not in m0["target"], f"no ftz/daz key when unset {m0['target']}")
        expect(m1["target"].get("ftz") is True and "daz" not in m1["target"], f"--ftz recorded {m1['target']}")
        expect(m2["target"].get("daz") is True and "ftz" not in m2["target"], f"--daz recorded {m2['target']}")
        expect(m1["target_text"].endswith(" ftz") and m2["target_text"].endswith(" daz"), "target_text names them")
        for k, code in (("e0", 0x1), ("e1", 0x0)):  # 0.5 -> e2m1fn 0x1 (its subnormal), with --ftz 0x0
            i = np.flatnonzero(np.load(d / k / "inputs.npy").view(np.uint32) == 0x3F000000)
            expect(i.size > 0 and np.load(d / k / "expected.npy")[i[0]] == code, f"{k}: 0.5 -> e2m1fn {code:#x}")
        for k in ("e1", "e2"):
            rc, out, err = run("probe", "check", d / k, "--got", d / k / "expected.npy")
            expect(rc == 0 and "all bit-exact" in out, f"{k}: its own expected passes", out + err)
        rc, out, err = run("probe", "check", d / "e1", "--got", d / "e0" / "expected.npy")
        expect(rc == 1 and "ftz" in out, "the reference of the --ftz folder is the ftz one (no-ftz codes fail)", out)

    # block
    for flag in ("--ftz", "--daz"):
        key = flag[2:]
        g = d / f"b_{key}"
        rc, _, err = run("probe", "gen", "--scheme", "mxfp4", flag, "--count", 400, "--seed", 3, "--out", g)
        expect(rc == 0, f"probe gen --scheme mxfp4 {flag}", err)
        if rc:
            continue
        m = json.loads((g / "manifest.json").read_text())["block_target"]
        expect(m.get(key) is True and ({"ftz", "daz"} - {key}).isdisjoint(m), f"{flag} recorded {m}")
        rc, out, err = run("probe", "check", g, "--got", g / "expected.npy", "--got-scales", g / "expected_scales.npy")
        expect(rc == 0, f"{flag}: its own expected passes", out + err)
        # the folder's expected values are quantize's with the same flag (one engine, two doors)
        rc, _, err = run("quantize", "--in", g / "inputs.npy", "--scheme", "mxfp4", flag, "--out-codes", d / "qc.npy",
                         "--out-scales", d / "qs.npy")
        expect(rc == 0 and np.array_equal(np.load(d / "qc.npy"), np.load(g / "expected.npy")) and
               np.array_equal(np.load(d / "qs.npy").reshape(-1), np.load(g / "expected_scales.npy")),
               f"{flag}: probe gen == quantize {flag}", err)
    # hand block under --daz: [1e-39, 0...] reads all-zero
    g = d / "b_daz"
    if (g / "manifest.json").exists():
        h = np.zeros((1, 32), np.float32)
        h[0, 0] = 1e-39
        np.save(g / "inputs.npy", h)
        np.save(g / "classes.npy", np.zeros(1, np.uint8))
        np.save(d / "hc.npy", np.zeros((1, 32), np.uint8))
        np.save(d / "hs.npy", np.zeros(1, np.uint8))
        rc, out, err = run("probe", "check", g, "--got", d / "hc.npy", "--got-scales", d / "hs.npy")
        expect(rc == 0, "--daz hand block: all-zero codes, scale 0x00", out + err)
        # a manifest "daz" that is not a boolean: one clear error
        mj = json.loads((g / "manifest.json").read_text())
        mj["block_target"]["daz"] = "yes"
        (g / "manifest.json").write_text(json.dumps(mj))
        rc, _, err = run("probe", "check", g, "--got", d / "hc.npy", "--got-scales", d / "hs.npy")
        expect(rc == 2 and 'field "daz" must be true or false' in err, "bad manifest daz", err)
    # without the flags: the manifest has neither key
    rc, _, err = run("probe", "gen", "--scheme", "mxfp4", "--count", 50, "--seed", 3, "--out", d / "bn")
    m = json.loads((d / "bn" / "manifest.json").read_text())["block_target"] if rc == 0 else {"ftz": 1}
    expect("ftz" not in m and "daz" not in m, f"no ftz/daz keys when unset {m}")
    rc, _, err = run("probe", "gen", "--model", "fp32", "--format", "e4m3fn", "--ftz", "--seed", 1, "--out", d / "dt")
    expect(rc == 2 and "--ftz does not apply with --model" in err, "--ftz with --model", err)

finish("probe_ftz_checks")
