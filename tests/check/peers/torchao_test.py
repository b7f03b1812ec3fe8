# SPDX-License-Identifier: Apache-2.0
"""check.peers.torchao: torchao 0.18 `to_mx` and `nvfp4_quantize` (prototype/mx_formats, CPU eager) against the
block checker.
For each element type x scale mode, `probe gen --scheme ELEM/1x32/e8m0fnu:RULE` blocks go through torchao;
its codes and scales are checked bit for bit (1) under `--mx-quirks torchao_0_18 --profile torch` (must pass)
and (2) under the OCP definitions, where the differing blocks are counted per class with the report's
diagnosis. NVFP4 (nvfp4_quantize with and without its per-tensor scale): the checker's nvfp4 blocks under
`--mx-quirks torchao_0_18` / `torchao_0_18_no_tensor_scale` (must pass) and under the default (TE) definition
(must be diagnosed as the option at 100 %); random whole tensors through `minifloat quantize` (must match; the
blocks that differ under the default are scored by exact squared error); then, per mismatch class (MX and NVFP4),
a shrunk example dequantized in exact rational arithmetic: which side is nearer the exact value and what the
definition requires. Opt-in label `peers` (setup_peers.sh makes the venv; not CI). TORCHAO_BLOCKS sets the
blocks per configuration, TORCHAO_TENSORS the random NVFP4 tensors per mode.

usage: torchao_test.py MINIFLOAT_BINARY
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torchao
from torchao.prototype.mx_formats.config import ScaleCalculationMode
from torchao.prototype.mx_formats.mx_tensor import to_mx

MF = sys.argv[1]
ELEMS = {"e4m3fn": (torch.float8_e4m3fn, False), "e5m2": (torch.float8_e5m2, False), "e2m1fn": (torch.float4_e2m1fn_x2, True)}
MODES = {"ocp_floor": ScaleCalculationMode.FLOOR, "ceil": ScaleCalculationMode.CEIL, "even": ScaleCalculationMode.EVEN,
         "rceil": ScaleCalculationMode.RCEIL}
COUNT = int(os.environ.get("TORCHAO_BLOCKS", "4096"))
print(f"torch {torch.__version__}, torchao {torchao.__version__}, {COUNT} blocks per configuration")
fails = []
total = 0


def mf(*a):
    return subprocess.run([MF, *a], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as d:
    for en, (dt, packed) in ELEMS.items():
        for rule, mode in MODES.items():
            scheme = f"{en}/1x32/e8m0fnu:{rule}"
            pk = ["--packing", "fp4x2"] if packed else []
            res = {}
            for quirks in ("torchao_0_18", "none"):
                p = os.path.join(d, f"{en}-{rule}-{quirks}")
                r = mf("probe", "gen", "--scheme", scheme, "--profile", "torch", "--mx-quirks", quirks, *pk,
                       "--count", str(COUNT), "--seed", "1", "--out", p)
                if r.returncode:
                    fails.append(f"{scheme} {quirks}: probe gen: {r.stderr.strip()}")
                    continue
                x = torch.from_numpy(np.load(os.path.join(p, "inputs.npy")))
                s, q = to_mx(x, dt, 32, scaling_mode=mode)
                np.save(os.path.join(p, "got.npy"), q.view(torch.uint8).numpy().reshape(x.shape[0], -1))
                np.save(os.path.join(p, "got_scales.npy"), s.view(torch.uint8).numpy().reshape(-1))
                r = mf("probe", "check", p, "--got", os.path.join(p, "got.npy"), "--got-scales", os.path.join(p, "got_scales.npy"))
                res[quirks] = r
            if len(res) < 2:
                continue
            total += COUNT
            a, b = res["torchao_0_18"], res["none"]
            print(f"{scheme}: under torchao_0_18: exit {a.returncode}; under OCP: {b.stdout.splitlines()[0].split(': ', 1)[1]}")
            for line in b.stdout.splitlines()[1:]:
                print("    " + line)
            if a.returncode != 0:
                fails.append(f"{scheme}: torchao_0_18 does not reproduce torchao:\n{a.stdout}{a.stderr}")

print(f"{total} blocks compared per target")

# ---- NVFP4: torchao 0.18 nvfp4_quantize (CPU eager) ---------------------------------------------------------
from fractions import Fraction as F

import ml_dtypes
from torchao.prototype.mx_formats.nvfp4_tensor import nvfp4_quantize, per_tensor_amax_to_scale

E2M1 = [0, 0.5, 1, 1.5, 2, 3, 4, 6]
NV_MODES = {"torchao_0_18": True, "torchao_0_18_no_tensor_scale": False}  # quirk -> torchao per_tensor_scale given
# What the definition requires, per NVFP4 class of the block checker (each block its own tensor; pts = amax/2688).
NV_NOTES = {
    ("scale_edge", True): "a tiny amax (~5e-36): exact s = (A/6)/(A/2688) = 448; TE's S_enc = 2688/A exceeds FLT_MAX and "
                          "clamps (s = 288), torchao gets 448 but 1/pts overflows to Inf: elements +-6 and 0*Inf = NaN "
                          "(code 0xc = -2) for zeros",
    ("special", True): "an Inf: TE (inf-block=nan_scale) NaN scale 0x7f; torchao pts = Inf, Inf/Inf = NaN scale 0xff: "
                       "both decode to NaN",
    ("zero", True): "all zero: TE S_enc = 1, scale 0, codes 0, exact; torchao pts = 0, 0/0 = NaN scale 0xff, codes 0xc",
    ("subnormal_amax", True): "amax 2^-149: TE s -> 0, elements 0 (abs error <= 2^-149); torchao A/2688 = 0, 0/0 NaN",
    ("scaled_midpoint", True): "the operation order: TE s = A*fl32(S_enc*fl32(1/6)), r = 1/(s*fl32(1/S_enc)); torchao "
                               "s = (A/6)/pts, r = (1/pts)/s; both round fl32(x*r) before e2m1, so on these midpoints "
                               "both double-round (the once-rounded counts) and differ only in the direction: the exact "
                               "value supports neither order",
    ("random", True): "the operation order, as scaled_midpoint",
}
for c in ("scale_edge", "scaled_midpoint", "random", "special", "zero", "subnormal_amax"):
    NV_NOTES.setdefault((c, False), "per_tensor_scale None is torchao's single-level scheme (s = clamp(A/6, 2^-6, 448), "
                                    "r = 1/s); TE's NVFP4 always has the tensor scale, so every block differs in its "
                                    "scale: different schemes, the value column compares them")
NV_NOTES[("special", False)] = ("an Inf: torchao scale 448, Inf -> 6 (finite), the rest x/448; TE NaN scale: no finite "
                                "value is right for Inf")


def tao_nvfp4(x, two_level):
    """torchao on rows of x (n, k): each row its own tensor (pts = per_tensor_amax_to_scale(torch.max(|row|)))."""
    x = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
    pts = None
    if two_level:
        pts = torch.stack([per_tensor_amax_to_scale(torch.max(torch.abs(r))) for r in x]).reshape(-1, 1, 1)
    s, q = nvfp4_quantize(x, 16, pts)
    qb = q.view(torch.uint8).numpy().reshape(x.shape[0], -1)
    codes = np.stack([qb & 0xF, qb >> 4], axis=-1).reshape(x.shape[0], -1)
    return qb, codes, s.view(torch.uint8).numpy().reshape(x.shape[0], -1), (
        pts.numpy().reshape(-1) if pts is not None else np.ones(x.shape[0], np.float32))


def mf_quantize(d, x, scheme, quirk, tag):
    """minifloat quantize of one tensor x; returns (codes, scales, tensor decode scale or None)."""
    i, c, s, t = (os.path.join(d, f"{tag}-{n}.npy") for n in ("in", "codes", "scales", "tscale"))
    np.save(i, np.asarray(x, dtype=np.float32))
    a = ["quantize", "--scheme", scheme, "--profile", "torch", "--mx-quirks", quirk, "--in", i, "--out-codes", c,
         "--out-scales", s]
    nv = scheme.startswith("nvfp4")
    if nv:
        a += ["--out-tensor-scale", t]
    r = mf(*a)
    if r.returncode:
        raise RuntimeError(f"quantize {scheme} {quirk}: {r.stderr.strip()}")
    return np.load(c), np.load(s), (float(np.load(t)[0]) if nv else None)


def e4m3_val(code):
    return float(np.array([code], np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)[0])


def deq_nvfp4(codes, scale, tdec):
    """Exact dequantized values (Fractions; None for NaN): e2m1 x e4m3 block scale x FP32 tensor decode scale."""
    sv, tv = e4m3_val(int(scale)), float(tdec)
    if not (np.isfinite(sv) and np.isfinite(tv)):
        return [None] * len(codes)
    return [F(E2M1[int(c) & 7]) * (-1 if int(c) & 8 else 1) * F(sv) * F(tv) for c in codes]


def deq_mx(codes, scale, el):
    if int(scale) == 0xFF:
        return [None] * len(codes)
    x = np.asarray(codes, np.uint8).view(el).astype(np.float64)
    return [None if not np.isfinite(v) else F(float(v)) * F(2) ** (int(scale) - 127) for v in x]


def err(deq, x):
    """(sum of squared errors, elements lost to NaN/finite-for-Inf) of dequantized values against exact inputs."""
    sse, lost = F(0), 0
    for q, v in zip(deq, x):
        if not np.isfinite(v) or q is None:
            lost += int(not (q is None and not np.isfinite(v)))
            continue
        sse += (q - F(float(v))) ** 2
    return sse, lost


def e2m1_rne(q):
    """The e2m1fn code of the exact rational q rounded once (RNE, ties to the even code, satfinite)."""
    a, best = abs(q), 0
    for c in range(1, 8):
        dc, db = abs(F(E2M1[c]) - a), abs(F(E2M1[best]) - a)
        if dc < db or (dc == db and c % 2 == 0):
            best = c
    return best | (8 if q < 0 else 0)


def cr_miss(codes, scales, tdec, x, k=16):
    """Elements whose code is not the once-rounded exact x / (block scale x tensor decode scale) for the side's own
    stored scales (finite nonzero scales and finite x only; +-0 codes compared by value)."""
    miss = 0
    for j in range(len(codes) // k):
        sv = e4m3_val(int(scales[j]))
        if not np.isfinite(sv) or sv == 0 or not np.isfinite(tdec) or tdec == 0:
            continue
        dec = F(sv) * F(float(tdec))
        for c, v in zip(codes[j * k:(j + 1) * k], x[j * k:(j + 1) * k]):
            if not np.isfinite(v):
                continue
            want = e2m1_rne(F(float(v)) / dec)
            miss += int(E2M1[want & 7] * (-1 if want & 8 else 1) != E2M1[int(c) & 7] * (-1 if int(c) & 8 else 1))
    return miss


def fnum(f):
    return "NaN" if f is None else f"{float(f):.6g}"


nv_blocks = 0
with tempfile.TemporaryDirectory() as d:
    # (1) the block checker's adversarial blocks (probe gen --scheme nvfp4), each block a tensor of its own
    for quirk, two in NV_MODES.items():
        res = {}
        for q in (quirk, "none"):
            p = os.path.join(d, f"nvfp4-{q}")
            r = mf("probe", "gen", "--scheme", "nvfp4", "--profile", "torch", "--mx-quirks", q, "--packing", "fp4x2",
                   "--count", str(COUNT), "--seed", "1", "--out", p)
            if r.returncode:
                fails.append(f"nvfp4 {q}: probe gen: {r.stderr.strip()}")
                continue
            qb, _, s, _ = tao_nvfp4(np.load(os.path.join(p, "inputs.npy")), two)
            np.save(os.path.join(p, "got.npy"), qb)
            np.save(os.path.join(p, "got_scales.npy"), s.reshape(-1))
            res[q] = mf("probe", "check", p, "--got", os.path.join(p, "got.npy"), "--got-scales", os.path.join(p, "got_scales.npy"))
        if len(res) < 2:
            continue
        nv_blocks += COUNT
        a, b = res[quirk], res["none"]
        mode = "with per_tensor_scale" if two else "per_tensor_scale None"
        print(f"nvfp4 ({mode}): under {quirk}: exit {a.returncode}; under the default (TE): {b.stdout.splitlines()[0].split(': ', 1)[1]}")
        for line in b.stdout.splitlines()[1:]:
            if line.startswith("[") or line.startswith("diagnosis"):
                print("    " + line[:200])
        if a.returncode != 0:
            fails.append(f"nvfp4 {quirk} does not reproduce torchao:\n{a.stdout}{a.stderr}")
        diag = [ln for ln in b.stdout.splitlines() if ln.startswith("diagnosis")]
        if b.returncode != 1 or not diag or f'"mx-quirks {quirk}" on 100%' not in diag[0]:
            fails.append(f"nvfp4 default vs torchao ({mode}) not diagnosed as mx-quirks {quirk} at 100%: {diag}")

    # (2) random tensors through `minifloat quantize` (the whole tensor: one per-tensor scale, blocks of all sizes)
    rng = np.random.default_rng(18)
    TENSORS = int(os.environ.get("TORCHAO_TENSORS", "6"))
    for quirk, two in NV_MODES.items():
        n_bad = n_blocks = n_diff = 0
        nearer = {"torchao": 0, "TE": 0, "equal": 0}
        sse = {"torchao": F(0), "TE": F(0)}
        crm = {"torchao": 0, "TE": 0}
        for ti in range(TENSORS):
            x = rng.standard_normal((64, 256)).astype(np.float32)
            # block magnitudes spread over 2^-24 .. 2^8 so small blocks meet the 2^-6 clamp
            x *= np.exp2(rng.integers(-24, 9, size=(64, 16, 1))).repeat(16, axis=2).reshape(64, 256).astype(np.float32)
            xt = torch.from_numpy(x)
            pts = per_tensor_amax_to_scale(torch.max(torch.abs(xt))) if two else None
            s, qd = nvfp4_quantize(xt, 16, pts)
            qb = qd.view(torch.uint8).numpy()
            tc = np.stack([qb & 0xF, qb >> 4], axis=-1).reshape(64, 256)
            ts = s.view(torch.uint8).numpy().reshape(64, 16)
            tt = float(pts) if two else 1.0
            mc, ms, mt = mf_quantize(d, x, "nvfp4", quirk, f"t{ti}")
            n_blocks += 64 * 16
            bad = (mc.reshape(64, 16, 16) != tc.reshape(64, 16, 16)).any(axis=2) | (ms.reshape(64, 16) != ts)
            n_bad += int(bad.sum()) + (0 if np.float32(mt).tobytes() == np.float32(tt).tobytes() else 1)
            dc, ds, dt = mf_quantize(d, x, "nvfp4", "none", f"d{ti}")
            diff = (dc.reshape(64, 16, 16) != tc.reshape(64, 16, 16)).any(axis=2) | (ds.reshape(64, 16) != ts)
            for r_, b_ in zip(*np.nonzero(diff)):
                n_diff += 1
                xb = x[r_, b_ * 16:(b_ + 1) * 16]
                et, _ = err(deq_nvfp4(tc[r_, b_ * 16:(b_ + 1) * 16], ts[r_, b_], tt), xb)
                ed, _ = err(deq_nvfp4(dc[r_, b_ * 16:(b_ + 1) * 16], ds.reshape(64, 16)[r_, b_], dt), xb)
                sse["torchao"] += et
                sse["TE"] += ed
                crm["torchao"] += cr_miss(tc[r_, b_ * 16:(b_ + 1) * 16], ts[r_, b_:b_ + 1], tt, xb)
                crm["TE"] += cr_miss(dc[r_, b_ * 16:(b_ + 1) * 16], ds.reshape(64, 16)[r_, b_:b_ + 1], dt, xb)
                nearer["equal" if et == ed else ("torchao" if et < ed else "TE")] += 1
        mode = "with per_tensor_scale" if two else "per_tensor_scale None"
        print(f"nvfp4 random tensors ({mode}): {TENSORS} tensors, {n_blocks} blocks: {n_bad} differ from torchao under "
              f"{quirk}; {n_diff} differ under the default (TE); of those, by exact squared error the nearer is "
              f"torchao {nearer['torchao']}, TE {nearer['TE']}, equal {nearer['equal']} "
              f"(SSE torchao {float(sse['torchao']):.4g}, TE {float(sse['TE']):.4g}); elements not once-rounded from the "
              f"exact x / (its own stored scales): torchao {crm['torchao']}, TE {crm['TE']}")
        if n_bad:
            fails.append(f"nvfp4 random tensors: {n_bad} blocks differ from torchao under {quirk}")
        nv_blocks += n_blocks

    # (3) per mismatch class: a shrunk example, both sides through minifloat (checked against the real torchao),
    # dequantized in exact rational arithmetic and compared with the exact input: which side is nearer by value
    # (fewer elements lost to NaN / finite-for-Inf first, then the smaller sum of squared errors), and what the
    # definition (OCP MX v1.0, NVIDIA/TE NVFP4) requires.
    print("\nWhich side the exact value supports, per mismatch class (exact arithmetic with Fractions):")
    print("| class | example (nonzero elements) | OCP/TE: scale; dequantized | torchao 0.18: scale; dequantized | "
          "nearer by value | what the definition requires |")
    print("|---|---|---|---|---|---|")

    def sides(x, scheme, el, quirk, k):
        out = []
        for q in ("none", quirk):
            c, sc, t = mf_quantize(d, x, scheme, q, "c" + q)
            c, sc = c.reshape(-1), sc.reshape(-1)
            dq = []
            for j in range(len(c) // k):
                blk_c = c[j * k:(j + 1) * k]
                dq += deq_nvfp4(blk_c, sc[j], t) if el is None else deq_mx(blk_c, sc[j], el)
            out.append((c, sc, dq, cr_miss(c, sc, t, x) if el is None else None))
        return out

    def row(cls, x, scheme, el, quirk, tao_out, note, k=None):
        x = np.asarray(x, np.float32).reshape(-1)
        k = k or (16 if el is None else 32)
        (oc, os_, dq_o, cr_o), (qc, qs, dq_t, cr_t) = sides(x, scheme, el, quirk, k)
        if tao_out is not None and not (np.array_equal(np.asarray(tao_out[0]).reshape(-1), qc) and
                                        np.array_equal(np.asarray(tao_out[1]).reshape(-1), qs)):
            fails.append(f"class {cls}: the option differs from the real torchao on its example")
        eo, lo = err(dq_o, x)
        et, lt = err(dq_t, x)
        nz = [i for i, v in enumerate(x) if v != 0 or np.signbit(v)][:4]
        show = lambda dq: ", ".join(fnum(dq[i]) for i in nz) if nz else "all " + fnum(dq[0])
        ex = ", ".join(f"{float(x[i]):.6g}" for i in nz) if nz else f"all 0 ({len(x)})"
        scs = lambda v: "/".join(f"0x{int(c):02x}" for c in v)
        verdict = "OCP/TE" if (lo, eo) < (lt, et) else "torchao" if (lt, et) < (lo, eo) else "equal"
        cr = "" if cr_o is None else f"; not once-rounded for its own scales: {cr_o}"
        crt = "" if cr_t is None else f"; not once-rounded for its own scales: {cr_t}"
        print(f"| {cls} | {ex} | {scs(os_)}; {show(dq_o)} (lost {lo}, SSE {float(eo):.3g}{cr}) | {scs(qs)}; {show(dq_t)} "
              f"(lost {lt}, SSE {float(et):.3g}{crt}) | {verdict} | {note} |")

    def blk(k, *vals):
        b = np.zeros(k, np.float32)
        b[:len(vals)] = vals
        return b

    def tao_mx(x, dt, mode):
        s, q = to_mx(torch.from_numpy(x.reshape(1, -1)), dt, 32, scaling_mode=mode)
        return q.view(torch.uint8).numpy().reshape(-1), s.view(torch.uint8).numpy().reshape(-1)

    def tao_nv(x, two):
        _, c, s, _ = tao_nvfp4(x.reshape(1, -1), two)
        return c.reshape(-1), s.reshape(-1)

    e4 = ml_dtypes.float8_e4m3fn
    sch = lambda rule: f"e4m3fn/1x32/e8m0fnu:{rule}"
    FL, RC = ScaleCalculationMode.FLOOR, ScaleCalculationMode.RCEIL
    x = blk(32, np.inf, 1.0)
    row("MX Inf block (FLOOR)", x, sch("ocp_floor"), e4, "torchao_0_18", tao_mx(x, torch.float8_e4m3fn, FL),
        "no E8M0 scale is >= Inf (2^127 is the largest): the block has no finite representation; OCP's NaN scale "
        "says so, torchao's finite 0xf7 = 2^120 turns Inf into 448*2^120 and 1 into 0 (its zeros survive): OCP")
    row("MX Inf block (RCEIL)", x, sch("rceil"), e4, "torchao_0_18", tao_mx(x, torch.float8_e4m3fn, RC),
        "as above; torchao 0xfe, elements times 2^-127: Inf -> 448*2^127, 1 -> 0: OCP")
    x = blk(32, 2.0 ** -120)
    row("MX code 0x00 divides by 2^-126", x, sch("ocp_floor"), e4, "torchao_0_18", tao_mx(x, torch.float8_e4m3fn, FL),
        "X = 0x00 = 2^-127 (MX v1.0 E8M0); x/X = 128 exactly; torchao stores 0x00 but divides by 2^-126 (FP32 bits "
        "clamped to the min normal), so its codes decode to x/2: OCP")
    x = blk(32, np.nextafter(np.float32(7168.0), np.float32(np.inf)), 3.0, 1.1)
    row("MX RCEIL FP32 log2", x, sch("rceil"), e4, "torchao_0_18", tao_mx(x, torch.float8_e4m3fn, RC),
        "RCEIL X = 2^ceil(log2(amax/448)) = 2^5 exactly (amax/448 = 16(1+2^-23)); fl32(log2) = 4.0, so torchao's "
        "2^4 makes amax/X exceed 448 (saturates by 1 ulp) but halves every other element's quantum: the rule "
        "requires OCP's 2^5; the value column says which is nearer here")
    x = blk(32, 2.0 ** -130)
    row("MX RCEIL code 0x00 multiplies by 1", x, sch("rceil"), e4, "torchao_0_18", tao_mx(x, torch.float8_e4m3fn, RC),
        "X = 2^-127, x/X = 2^-3 exactly; torchao multiplies by 1.0 instead of 2^127 and flushes x to 0: OCP")
    x = blk(32, np.nan, 1.0)
    row("MX NaN block", x, sch("ocp_floor"), e4, "torchao_0_18", tao_mx(x, torch.float8_e4m3fn, FL),
        "X = NaN makes every element NaN (MX v1.0); both scales are 0xff, the element codes differ but are "
        "don't-care: equal")
    # NVFP4: the first failing block of each class under the default (probe check's report), then hand-made ones
    for quirk, two in NV_MODES.items():
        p = os.path.join(d, f"nvfp4cls-{quirk}")
        mf("probe", "gen", "--scheme", "nvfp4", "--profile", "torch", "--packing", "fp4x2", "--count", str(COUNT),
           "--seed", "1", "--out", p)
        qb, _, sc_, _ = tao_nvfp4(np.load(os.path.join(p, "inputs.npy")), two)
        np.save(os.path.join(p, "got.npy"), qb)
        np.save(os.path.join(p, "got_scales.npy"), sc_.reshape(-1))
        mf("probe", "check", p, "--got", os.path.join(p, "got.npy"), "--got-scales", os.path.join(p, "got_scales.npy"))
        mode = "pts" if two else "no pts"
        for m in json.load(open(os.path.join(p, "report.json")))["minimal"]:
            x = np.array([int(b, 16) for b in m["block_f32_bits"]], np.uint32).view(np.float32)
            row(f"NVFP4 {m['class']} ({mode})", x, "nvfp4", None, quirk, tao_nv(x, two),
                NV_NOTES.get((m["class"], two), "see the columns"))
    x = np.concatenate([blk(16, 6.0), blk(16, 3 * 2.0 ** -16, 2.0 ** -16)])
    row("NVFP4 2^-6 clamp (pts, a tensor of 2 blocks)", x, "nvfp4", None, "torchao_0_18", None,
        "block 2: s = 448*A/G = 448*2^-17*3 < 2^-6: torchao clamps it up to 2^-6 (0x08), TE keeps the subnormal "
        "e4m3 scale 2^-8 (0x02), which the NVFP4 definition allows (ue4m3 has subnormals)")
    x = blk(16, 0.0625, 0.015625, 0.01)
    row("NVFP4 2^-6 clamp (no pts)", x, "nvfp4", None, "torchao_0_18_no_tensor_scale", tao_nv(x, False),
        "amax/6 = 0.0104 < 2^-6: torchao clamps up to 2^-6; single-level NVFP4 is torchao's own scheme (TE always "
        "has the tensor scale), so the definition column is torchao's")

print(f"{nv_blocks} NVFP4 blocks compared")

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
