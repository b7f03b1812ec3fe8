#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# amaxscope_checks.py: issue 25 item 3 on the CLI, `quantize --amax-scope row` (and the spec key amax-scope=,
# `probe gen --amax-scope`), with the hand-derived two rows of tests/blocks/amax_scope_test.cpp (TE
# transformer_engine/pytorch/custom_recipes/reference_nvfp4.py:709-730 and :875-889 at d0067d0): one FP32
# encode scale per row, S_enc[r] = fl32(2688 / row amax).
#  row 0 [42, 21, -10.5, 3.5, 0...]: S_enc 64, block 0x7e (448), decode 2^-6, multiplier fl32(1/7): codes 7 5 b 1;
#  row 1 [6, 3, -1.5, 0.5, 0...]: S_enc 448, block fl32(6·fl32(448·fl32(1/6))) = 448.00003 → 0x7e, decode
#    fl32(1/448) = 9586981·2^-32, multiplier 1: codes 7 5 b 1.
#  --out-tensor-scale holds (2,) float32 [2^-6, fl32(1/448)]; --axis first on the transpose: the same per column.
# Bad input (an unknown scope, mxfp4, with --tensor-scale, a .safetensors --out-codes, --mx-quirks) gets one
# clear error and writes nothing.
# usage: amaxscope_checks.py BIN
import pathlib
import tempfile

import numpy as np

from checks_common import expect, finish, run  # tests/cli/checks_common.py (BIN = argv[1])

DEC1 = np.float32(9586981 * 2.0**-32)  # fl32(1/448), derived by hand in the header




with tempfile.TemporaryDirectory() as t:
    d = pathlib.Path(t)
    x = np.zeros((2, 16), np.float32)
    x[0, :4] = [42, 21, -10.5, 3.5]
    x[1, :4] = [6, 3, -1.5, 0.5]
    np.save(d / "x.npy", x)
    np.save(d / "xt.npy", np.ascontiguousarray(x.T))
    outs = {}
    for how, inp, scheme, extra in (("option", "x", "nvfp4", ["--amax-scope", "row"]),
                                    ("spec", "x", "e2m1fn/1x16/ue4m3:nvfp4/amax-scope=row", []),
                                    ("first", "xt", "nvfp4", ["--amax-scope", "row", "--axis", "first"])):
        rc, out, err = run("quantize", "--in", d / f"{inp}.npy", "--scheme", scheme, *extra,
                           "--out-codes", d / f"c_{how}.npy", "--out-scales", d / f"s_{how}.npy",
                           "--out-tensor-scale", d / f"t_{how}.npy", "--out-dequant", d / f"d_{how}.npy")
        expect(rc == 0, f"quantize {how}", err or out)
        if rc != 0:
            continue
        c, s, ts, dq = (np.load(d / f"{k}_{how}.npy") for k in "cstd")
        if how == "first":
            c, s, dq = c.T, s.T, dq.T
        expect(ts.dtype == np.float32 and ts.shape == (2,) and ts.tolist() == [2.0**-6, float(DEC1)],
               f"{how}: per-row decode scales {ts.dtype} {ts.shape} {ts.tolist()}")
        expect(s.reshape(-1).tolist() == [0x7E, 0x7E], f"{how}: block scales {s.tolist()}")
        expect(c[:, :5].tolist() == [[7, 5, 0xB, 1, 0]] * 2 and not c[:, 5:].any(), f"{how}: codes {c.tolist()}")
        want1 = np.float32(6 * 448 * float(DEC1))  # element 6 · 448 · fl32(1/448), rounded once to f32
        expect(dq[0, 0] == 42 and dq[1, 0] == want1, f"{how}: dequantized {dq[:, 0].tolist()}")
        outs[how] = (c.tobytes(), s.tobytes(), ts.tobytes())
    expect(len(outs) == 3 and outs["option"] == outs["spec"] == outs["first"], "--amax-scope == spec key == axis first")
    # tensor scope: one scale (1,), row 1's block 0x68 (64): the option changes the output
    rc, out, err = run("quantize", "--in", d / "x.npy", "--scheme", "nvfp4", "--out-codes", d / "c_t.npy",
                       "--out-scales", d / "s_t.npy", "--out-tensor-scale", d / "t_t.npy")
    expect(rc == 0 and np.load(d / "t_t.npy").shape == (1,) and np.load(d / "s_t.npy")[:, 0].tolist() == [0x7E, 0x68],
           "amax-scope tensor (default): one tensor scale, row 1 block 0x68", err or out)
    # probe gen takes it; a probe block is a one-row tensor, so the expected values are the tensor scope's
    for scope in ("tensor", "row"):
        rc, out, err = run("probe", "gen", "--scheme", "nvfp4", "--amax-scope", scope, "--count", 64,
                           "--seed", 7, "--out", d / f"probe_{scope}")
        expect(rc == 0, f"probe gen --amax-scope {scope}", err or out)
    if all((d / f"probe_{s}").is_dir() for s in ("tensor", "row")):
        for n in ("inputs.npy", "expected.npy", "expected_scales.npy"):
            a, b = np.load(d / "probe_row" / n), np.load(d / "probe_tensor" / n)
            expect(a.tobytes() == b.tobytes(), f"probe gen: {n} differs between amax scopes row and tensor")
        manifest = (d / "probe_row" / "manifest.json").read_text()
        expect("amax-scope=row" in manifest, "probe gen: the manifest's scheme keeps amax-scope=row", manifest)
        rc, out, err = run("probe", "check", d / "probe_row", "--got", d / "probe_tensor" / "expected.npy",
                           "--got-scales", d / "probe_tensor" / "expected_scales.npy")
        expect(rc == 0, "probe check of a row-scope folder passes the expected codes", err or out)
    rc, out, err = run("probe", "gen", "--format", "e4m3fn", "--amax-scope", "row", "--seed", 1, "--out", d / "probe_bad")
    expect(rc != 0 and "--amax-scope applies to block targets" in err, "probe gen elementwise --amax-scope", err)
    # bad input: one clear error, nothing written
    bad = [
        (["--scheme", "nvfp4", "--amax-scope", "rows"], "accepted: tensor, row"),
        (["--scheme", "mxfp4", "--amax-scope", "row"], "amax-scope row applies to the nvfp4 rules"),
        (["--scheme", "nvfp4_16x16", "--amax-scope", "row"], "amax-scope row applies to the nvfp4 rules"),
        (["--scheme", "nvfp4", "--amax-scope", "row", "--tensor-scale", "64"], "not with a given tensor-scale"),
        (["--scheme", "nvfp4", "--amax-scope", "row", "--mx-quirks", "torchao_0_18"], "not with amax-scope row"),
        (["--scheme", "nvfp4", "--amax-scope", "row", "--scale-select", "4over6:mse"], "not in the engine yet"),
    ]
    for args, msg in bad:
        out_c = d / "bad_codes.npy"
        rc, out, err = run("quantize", "--in", d / "x.npy", *args, "--out-codes", out_c)
        expect(rc != 0 and msg in err and not out_c.exists(), f"refused {args}: {msg!r}", err)
    rc, out, err = run("quantize", "--in", d / "x.npy", "--scheme", "nvfp4", "--amax-scope", "row",
                       "--out-codes", d / "bad.safetensors")
    expect(rc != 0 and "a .safetensors --out-codes holds one tensor scale" in err and
           not (d / "bad.safetensors").exists(), "refused .safetensors", err)

finish("amax-scope CLI checks")
