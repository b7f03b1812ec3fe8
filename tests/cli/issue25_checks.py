#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# issue25_checks.py: issue 25 item 1, the 16-point random Hadamard transform (`--transform`), against an
# exact-rational oracle written here (Fraction arithmetic and our own RNE rounding to binary32 / bfloat16;
# no minifloat code): the transform's definition is TE transformer_engine/pytorch/tensor/nvfp4_tensor.py:49-104
# (sign vector, Sylvester H16, 1/sqrt(16)) and reference_nvfp4.py:335-447 (_apply_rht: x_mat @ (diag(s) H / 4)),
# torchao hadamard_utils.py:19 (the same sign vector) and nvfp4_reference.py:218-228 (output rounded to bf16).
#  - hand-derived values for one 16-vector (x = 4·e_3 → y_j = s_3·H[3][j] = −(−1)^popcount(3 & j));
#  - quantize --transform T x  ==  quantize (oracle RHT(x)) byte for byte (codes, scales, tensor scale),
#    axis last and first, te / torchao / a user mask; the check can fail: another mask gives other codes;
#  - --dequant-domain original == the exact inverse (Fraction) of the exact dequantized values, rounded once;
#  - the spec key transform= is the same scheme as --transform; bad input gets one clear error.
# usage: issue25_checks.py BIN
import math
import pathlib
import tempfile
from fractions import Fraction as F

import numpy as np

from checks_common import expect, finish, run  # tests/cli/checks_common.py (BIN = argv[1])


SIGNS_TE = [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1]  # TE nvfp4_tensor.py:49-59


def H(i, j):
    return -1 if bin(i & j).count("1") % 2 else 1


def signs_of(mask):
    return [-1 if (mask >> i) & 1 else 1 for i in range(16)]


def rne(q, mant, emin):
    """Round the Fraction q to a binary format with `mant` fraction bits and minimum exponent emin (no overflow
    handling needed here); returns a float (exact). A nonzero q that rounds to zero keeps its sign (IEEE: −0);
    an exact zero sum is +0 (this oracle's inputs are never all −0)."""
    if q == 0:
        return 0.0
    s = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while F(2) ** e > a:
        e -= 1
    while F(2) ** (e + 1) <= a:
        e += 1
    quantum = F(2) ** (max(e, emin) - mant)
    m = a / quantum
    fl = m.numerator // m.denominator
    rem = m - fl
    if rem > F(1, 2) or (rem == F(1, 2) and fl % 2 == 1):
        fl += 1
    return math.copysign(float(fl * quantum), s)


def to_f32(q):
    return rne(q, 23, -126)


def to_bf16(q):
    return rne(q, 7, -126)


def rht(x2d, mask, bf16, axis_first=False):
    """The oracle: exact y = x · diag(s) H / 4 per 16-group along the axis, rounded to f32 (then bf16)."""
    s = signs_of(mask)
    x = x2d.T if axis_first else x2d
    out = np.zeros(x.shape, dtype=np.float32)
    for r in range(x.shape[0]):
        for g in range(0, x.shape[1], 16):
            v = [F(float(t)) for t in x[r, g:g + 16]]
            for j in range(16):
                y = to_f32(sum(v[i] * s[i] * H(i, j) for i in range(16)) / 4)
                if bf16 and y != 0:
                    y = to_bf16(F(y))
                with np.errstate(over="ignore"):  # a sum of 2^128 or more after rounding: +-Inf (RNE, nonsat)
                    out[r, g + j] = np.float32(y)
    return out.T.copy() if axis_first else out




def quant(d, x_path, tag, *extra):
    c, s, t, q = (d / f"{tag}_c.npy", d / f"{tag}_s.npy", d / f"{tag}_t.npy", d / f"{tag}_q.npy")
    nv = "nvfp4" in extra or any("ue4m3:nvfp4" in str(e) for e in extra)
    rc, out, err = run("quantize", "--in", x_path, "--out-codes", c, "--out-scales", s, "--out-dequant", q,
                       *(("--out-tensor-scale", t) if nv else ()), *extra)
    expect(rc == 0, f"quantize {' '.join(map(str, extra))} must run", err)
    if rc != 0:
        return None
    return [np.load(c).tobytes(), np.load(s).tobytes(), np.load(t).tobytes() if nv else b""], np.load(q), out


E2M1 = [0, 0.5, 1, 1.5, 2, 3, 4, 6]


def e2m1(code):
    v = F(E2M1[code & 7]).limit_denominator()
    return -v if code & 8 else v


def e4m3(code):
    e, m = (code >> 3) & 0xF, code & 7
    return F(m, 8) * F(2) ** -6 if e == 0 else (1 + F(m, 8)) * F(2) ** (e - 7)


with tempfile.TemporaryDirectory() as tmp:
    d = pathlib.Path(tmp)

    # ---- hand-derived: x = 4·e_3 in one 16-group; TE's s_3 = −1, so y_j = −H[3][j] = −(−1)^popcount(3&j)
    # (j = 0, 1, 2, 3: −1, +1, +1, −1, repeating), exact in e4m3fn with a unit E8M0 scale.
    x = np.zeros((1, 16), np.float32)
    x[0, 3] = 4.0
    np.save(d / "e3.npy", x)
    got = quant(d, d / "e3.npy", "e3", "--scheme", "e4m3fn/1x16/e8m0fnu:ocp_floor", "--transform", "rht16:te")
    want = [-1.0, 1.0, 1.0, -1.0] * 4
    expect(got is not None and got[1].ravel().tolist() == want, "hand: RHT(4·e_3) = (−1, 1, 1, −1, ...)",
           None if got is None else got[1])
    # x = all ones: y_0 = Σ s_i / 4 = (6 − 10) / 4 = −1 (six +1 in TE's vector); y_j for j > 0: Σ s_i H[i][j] / 4
    x = np.ones((1, 16), np.float32)
    np.save(d / "ones.npy", x)
    got = quant(d, d / "ones.npy", "ones", "--scheme", "e4m3fn/1x16/e8m0fnu:ocp_floor", "--transform", "rht16:te")
    expect(got is not None and got[1].ravel()[0] == -1.0, "hand: RHT(ones)_0 = −1",
           None if got is None else got[1])

    # ---- the oracle: random tensors over a wide range, each transform, both axes
    rng = np.random.default_rng(25)
    x = (rng.standard_normal((32, 48)) * np.exp2(rng.integers(-20, 20, (32, 48)))).astype(np.float32)
    x[3, 5] = 0.0
    x[7, :16] = np.float32(1e-30)  # tiny values: the one rounding to f32 of their sums
    np.save(d / "x.npy", x)
    for tname, mask, bf16 in (("rht16:te", 0xD7E8, False), ("rht16:torchao", 0xD7E8, True),
                              ("rht16:0x8001", 0x8001, False)):
        for axis in ("last", "first"):
            y = rht(x, mask, bf16, axis_first=axis == "first")
            np.save(d / "y.npy", y)
            a = quant(d, d / "x.npy", "a", "--scheme", "nvfp4", "--transform", tname, "--axis", axis)
            b = quant(d, d / "y.npy", "b", "--scheme", "nvfp4", "--axis", axis)
            expect(a is not None and b is not None and a[0] == b[0],
                   f"quantize --transform {tname} --axis {axis} == quantize of the exact-rational RHT")
            expect(a is not None and b is not None and a[1].tobytes() == b[1].tobytes(),
                   f"--transform {tname} --axis {axis}: --out-dequant (transformed domain) == dequant of the RHT")
    # the comparison discriminates: another sign mask gives other codes
    y = rht(x, 0x0000, False)
    np.save(d / "y0.npy", y)
    a = quant(d, d / "x.npy", "a", "--scheme", "nvfp4", "--transform", "rht16:te")
    b = quant(d, d / "y0.npy", "b", "--scheme", "nvfp4")
    expect(a is not None and b is not None and a[0][0] != b[0][0], "mask 0 and TE's mask must give other codes")

    # ---- --dequant-domain original: the exact inverse x = y · diagless Mᵀ of the exact dequantized values
    a = quant(d, d / "x.npy", "o", "--scheme", "nvfp4", "--transform", "rht16:te", "--dequant-domain", "original")
    if a is not None:
        codes = np.load(d / "o_c.npy")
        scales = np.load(d / "o_s.npy")
        tds = F(float(np.load(d / "o_t.npy")[0]))
        s = signs_of(0xD7E8)
        want = np.zeros(x.shape, np.float32)
        for r in range(x.shape[0]):
            for g in range(0, x.shape[1], 16):
                yv = [e2m1(int(codes[r, g + j])) * e4m3(int(scales[r, (g + j) // 16])) * tds for j in range(16)]
                for i in range(16):
                    want[r, g + i] = np.float32(float(to_f32(s[i] * sum(H(i, j) * yv[j] for j in range(16)) / 4)))
        expect(a[1].tobytes() == want.tobytes(), "--dequant-domain original == exact inverse of the exact dequant",
               np.argwhere(a[1] != want)[:5])

    # ---- the spec key is the same scheme; its canonical name prints it
    a = quant(d, d / "x.npy", "k", "--scheme", "e2m1fn/1x16/ue4m3:nvfp4/transform=RHT16:torchao")
    b = quant(d, d / "x.npy", "l", "--scheme", "nvfp4", "--transform", "rht16:torchao")
    expect(a is not None and b is not None and a[0] == b[0] and "transform=rht16:torchao" in a[2],
           "spec key transform=rht16:torchao == --transform rht16:torchao", None if a is None else a[2])

    # ---- report --schemes SPEC runs the transform; its errors compare x with the exact inverse (original domain)
    rc, out, err = run("report", "--in", d / "x.npy", "--schemes", "e2m1fn/1x16/ue4m3:nvfp4/transform=rht16:te",
                       "--csv")
    rows = [r for r in out.splitlines() if "transform=rht16:te" in r]
    expect(rc == 0 and rows, "report --schemes with transform=rht16:te must print its row", err or out)

    # ---- probe gen --transform: the expected codes of each block (one tensor each) are those of the oracle's RHT
    # of the block quantized without a transform; probe check passes them and fails the untransformed codes
    rc, out, err = run("probe", "gen", "--scheme", "nvfp4", "--transform", "rht16:te", "--count", "60", "--seed", "7",
                       "--out", d / "pg")
    expect(rc == 0, "probe gen --scheme nvfp4 --transform rht16:te must run", err)
    if rc == 0:
        ins = np.load(d / "pg" / "inputs.npy")
        exp_c, exp_s = np.load(d / "pg" / "expected.npy"), np.load(d / "pg" / "expected_scales.npy")
        bad_rows = []
        for r in range(0, ins.shape[0], 2):
            if not np.all(np.isfinite(ins[r])):
                continue
            np.save(d / "row.npy", rht(ins[r:r + 1], 0xD7E8, False))
            got = quant(d, d / "row.npy", "row", "--scheme", "nvfp4")
            if got is None or got[0][0] != exp_c[r].tobytes() or got[0][1] != exp_s[r:r + 1].tobytes():
                bad_rows.append(r)
        expect(not bad_rows, "probe gen --transform: expected codes == quantize(oracle RHT(block))", bad_rows)
        rc, out, err = run("probe", "check", d / "pg", "--got", d / "pg" / "expected.npy", "--got-scales",
                           d / "pg" / "expected_scales.npy")
        expect(rc == 0, "probe check of the expected files passes", err or out)
        np.save(d / "plain.npy", ins)
        rc2, _, err2 = run("quantize", "--in", d / "plain.npy", "--out-codes", d / "plain_c.npy", "--scheme",
                           "fp8_tensor")  # any codes of the right shape that are not the transform's
        rc, out, err = run("probe", "check", d / "pg", "--got", d / "plain_c.npy", "--got-scales",
                           d / "pg" / "expected_scales.npy")
        expect(rc2 == 0 and rc == 1, "probe check must fail codes that are not the transform's", err or out)
    rc, out, err = run("probe", "gen", "--format", "e4m3fn", "--transform", "rht16:te", "--seed", "1", "--out",
                       d / "pg2")
    expect(rc == 2 and "--transform applies to block targets" in err, "probe gen --transform without --scheme", err)

    # ---- bad input: one clear error each, naming what is accepted
    for args, needle in ((("--transform", "rht8:te"), "accepted: none, rht16:te, rht16:torchao, rht16:0xHHHH"),
                         (("--transform", "rht16:0x12345"), "accepted: none, rht16:te"),
                         (("--transform", "rht16:te", "--axis", "first"), "multiple of 16"),
                         (("--transform", "rht16:te", "--dequant-domain", "raw"), "accepted: transformed, original"),
                         (("--dequant-domain", "original",), "applies with a transform")):
        np.save(d / "x20.npy", x[:20])  # axis first: length 20, not a multiple of 16
        rc, out, err = run("quantize", "--in", d / ("x20.npy" if args[-1] == "first" else "x.npy"), "--out-codes",
                           d / "bad.npy", "--scheme", "nvfp4", "--out-dequant", d / "badq.npy", *args)
        expect(rc == 2 and needle in err and not (d / "bad.npy").exists(), f"bad input {args}: '{needle}'", err or out)
    rc, out, err = run("quantize", "--in", d / "x.npy", "--out-codes", d / "bad.npy", "--scheme",
                       "e2m1fn/1x16/ue4m3:nvfp4/transform=hadamard")
    expect(rc == 2 and "transform 'hadamard' is not a transform" in err, "bad spec key value", err)

# ---- item 3: --tensor-scale VALUE|FILE, the given FP32 tensor encode scale (hand-derived from TE
# reference_nvfp4.py:713-760: S_enc = 64 gives block code e4m3(fl32(6 · fl32(64 · fl32(1/6)))) = e4m3(64) = 0x68,
# decode 2^-6, element multiplier 1, so the elements are x in e2m1fn; without it S_enc = 448 → block 0x7e)
with tempfile.TemporaryDirectory() as tmp:
    d = pathlib.Path(tmp)
    x = np.zeros((1, 16), np.float32)
    x[0, :4] = [6.0, 3.0, -1.5, 0.5]
    np.save(d / "x.npy", x)
    np.save(d / "s.npy", np.float32([64.0]))
    np.save(d / "s2.npy", np.float32([64.0, 2.0]))
    np.save(d / "s8.npy", np.float64([64.0]))
    want = (bytes([0x7, 0x5, 0xB, 0x1] + [0] * 12), bytes([0x68]), np.float32([0.015625]).tobytes())
    for how in (("--tensor-scale", "64"), ("--tensor-scale", d / "s.npy")):
        got = quant(d, d / "x.npy", "ts", "--scheme", "nvfp4", *how)
        expect(got is not None and tuple(got[0]) == want, f"--tensor-scale {how[1]}: hand-derived codes/scale 0x68",
               None if got is None else got[0])
    got = quant(d, d / "x.npy", "sk", "--scheme", "e2m1fn/1x16/ue4m3:nvfp4/tensor-scale=64")
    expect(got is not None and tuple(got[0]) == want and "tensor-scale=64" in got[2], "spec key tensor-scale=64",
           None if got is None else got[2])
    got = quant(d, d / "x.npy", "no", "--scheme", "nvfp4")
    expect(got is not None and got[0][1] == bytes([0x7E]), "without --tensor-scale: S_enc = 448, block 0x7e",
           None if got is None else got[0])
    for val, needle in (("-1", "not a positive finite number"), ("0", "not a positive finite number"),
                        ("nan", "not a positive finite number"), ("inf", "not a positive finite number"),
                        (d / "s2.npy", "of shape (2,)"), (d / "s8.npy", "holds <f8"),
                        (d / "missing.npy", "missing.npy")):
        rc, out, err = run("quantize", "--in", d / "x.npy", "--out-codes", d / "bad.npy", "--scheme", "nvfp4",
                           "--tensor-scale", val)
        expect(rc == 2 and needle in err and not (d / "bad.npy").exists(), f"--tensor-scale {val}: '{needle}'",
               err or out)
    rc, out, err = run("quantize", "--in", d / "x.npy", "--out-codes", d / "bad.npy", "--scheme", "mxfp8_e4m3",
                       "--tensor-scale", "2")
    expect(rc == 2 and "tensor-scale applies to the nvfp4 rule" in err, "--tensor-scale with mxfp8", err or out)

    # ---- --transform-gemm (the transform on a tensor-core model), hand-derived: x_0 = 1.1875, x_3 = 2^-25 (bf16
    # values). y_j = 0.25·1.1875 + c_j·0.25·2^-25 = 0.296875 + c_j·2^-27, c_j = s_3·H[3][j] (s_3 = −1 in TE's
    # vector: c = −1, +1, +1, −1, ...). Exact then RNE to f32 (quantum 2^-25 in [0.25, 0.5)): 0.296875 for every j.
    # hopper-bf16-unvalidated (F = 25 bits below the largest product 2^-2·1.1875: quantum 2^-27, kept; output RZ):
    # 0.296875 − 2^-25 where c_j = −1, 0.296875 where c_j = +1. e4m3fn/1x16/e8m0fnu:ocp_floor: amax 0.296875,
    # scale 2^(−2−8); 0.296875·2^10 = 304, the tie between 288 (0x79) and 320 (0x7a), to even: 0x7a; 304 − 2^-15
    # rounds to 288: 0x79.
    x = np.zeros((1, 16), np.float32)
    x[0, 0], x[0, 3] = 1.1875, 2.0 ** -25
    np.save(d / "tg.npy", x)
    c = [-1, 1, 1, -1] * 4
    exact = quant(d, d / "tg.npy", "tge", "--scheme", "e4m3fn/1x16/e8m0fnu:ocp_floor", "--transform", "rht16:te")
    model = quant(d, d / "tg.npy", "tgm", "--scheme", "e4m3fn/1x16/e8m0fnu:ocp_floor", "--transform", "rht16:te",
                  "--transform-gemm", "hopper-bf16-unvalidated")
    expect(exact is not None and list(exact[0][0]) == [0x7A] * 16, "hand: exact transform codes all 0x7a",
           None if exact is None else exact[0][0].hex())
    expect(model is not None and list(model[0][0]) == [0x79 if cj < 0 else 0x7A for cj in c],
           "hand: --transform-gemm hopper-bf16-unvalidated codes 0x79 where c_j = −1",
           None if model is None else model[0][0].hex())
    spec = quant(d, d / "tg.npy", "tgs",
                 "--scheme", "e4m3fn/1x16/e8m0fnu:ocp_floor/transform=rht16:te/transform-gemm=hopper-bf16-unvalidated")
    expect(spec is not None and model is not None and spec[0] == model[0], "spec key transform-gemm= = the option",
           None if spec is None else spec[2])
    for extra, needle in ((("--transform-gemm", "hopper-fp9"), "is not a tensor-core preset; accepted: exact"),
                          (("--transform-gemm", "hopper-bf16-unvalidated", "--transform", "none"),
                           "is the arithmetic of a transform"),
                          (("--transform-gemm", "blackwell-tcgen05-mxf4-unvalidated"), "unscaled preset")):
        rc, out, err = run("quantize", "--in", d / "tg.npy", "--out-codes", d / "bad.npy", "--scheme", "nvfp4",
                           *(extra if "--transform" in extra else ("--transform", "rht16:te", *extra)))
        expect(rc == 2 and needle in err and not (d / "bad.npy").exists(), f"{' '.join(extra)}: '{needle}'",
               err or out)

finish("issue 25 items 1 (with --transform-gemm) and 3 (tensor scale) checks")
