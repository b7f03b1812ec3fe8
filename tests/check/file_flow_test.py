# SPDX-License-Identifier: Apache-2.0
"""check.file_flow.*: the CLI flow for kernels in any language (probe gen / probe check / convert /
decode --in), driven with Python kernels. Oracles: ml_dtypes 0.6 `astype` (code nobody here wrote) and
the `minifloat encode` command the report prints; hand-derived facts are cited per line.

usage: file_flow_test.py MINIFLOAT_BINARY CASE   (CASE: must_show, ml_dtypes, convert, convert_2p24, decode, rerun, errors, dot,
                                                  fp6, gemm)
Exits 77 (skipped) when numpy or ml_dtypes is missing.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import ml_dtypes
except ImportError as e:  # pragma: no cover
    print(f"SKIP: {e}")
    sys.exit(77)

MF = sys.argv[1]
CASE = sys.argv[2]
PY = sys.executable
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def mf(*args, stdin=None):
    return subprocess.run([MF, *args], capture_output=True, text=True, input=stdin)


def kernel_file(d, name, body):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write("import sys, numpy as np, ml_dtypes\nx = np.load(sys.argv[1])\n" + body + "\n")
    return path


def run_kernel(k, d, out="got.npy"):
    subprocess.run([PY, k, os.path.join(d, "inputs.npy"), os.path.join(d, out)], check=True,
                   stderr=subprocess.DEVNULL)
    return os.path.join(d, out)


def must_show(d):
    p = os.path.join(d, "p")
    r = mf("probe", "gen", "--format", "e4m3fn", "--from", "f32", "--round", "rne", "--overflow", "satfinite",
           "--count", "100000", "--seed", "1", "--out", p)
    check(r.returncode == 0, f"probe gen: {r.stderr}")
    for f in ("inputs.npy", "classes.npy", "manifest.json", "expected.npy"):
        check(os.path.exists(os.path.join(p, f)), f"probe gen wrote {f}")
    bf16 = kernel_file(d, "k_bf16.py",
                       "y = np.clip(x.astype(ml_dtypes.bfloat16).astype(np.float32), -448, 448)\n"
                       "np.save(sys.argv[2], y.astype(ml_dtypes.float8_e4m3fn).view(np.uint8))")
    good = kernel_file(d, "k_ok.py",
                       "np.save(sys.argv[2], np.clip(x, -448, 448).astype(ml_dtypes.float8_e4m3fn).view(np.uint8))")
    got = run_kernel(bf16, p)
    r = mf("probe", "check", p, "--got", got)
    print(r.stdout)
    lines = r.stdout.splitlines()
    check(r.returncode == 1, f"bf16 kernel: exit {r.returncode} (want 1)")
    # Rounding through bf16 first turns 1.0625 + 2^-23 into the exact tie 1.0625, which goes to even:
    # the first failing class is near_midpoint.
    check(lines and lines[0].startswith("FAIL [near_midpoint"), f"first line names the class: {lines[:1]}")
    check(any('diagnosis: agrees with "rne via bf16" on 100%' in l for l in lines), "diagnosis: rne via bf16")
    rep = [l.split("reproduce: ", 1)[1] for l in lines if "reproduce: " in l]
    first = [l for l in lines if l.strip().startswith("[near_midpoint]")][0]
    expected_code = first.split(" expected ")[1].split()[0]
    cmd = rep[0].split()
    check(cmd[0] == "minifloat", f"reproduce line: {rep[0]}")
    rr = mf(*cmd[1:])
    check(rr.returncode == 0 and rr.stdout.strip() == expected_code,
          f"reproduce prints the expected code: {rr.stdout.strip()} vs {expected_code}")
    mn = np.load(os.path.join(p, "minimal.npy"))
    check(mn.dtype == np.float32 and mn.view(np.uint32)[0] == 0x3F880001, f"minimal.npy[0] = {mn.view(np.uint32)[:1]}")
    check(os.path.exists(os.path.join(p, "report.json")), "report.json")
    got = run_kernel(good, p, "ok.npy")
    r = mf("probe", "check", p, "--got", got)
    check(r.returncode == 0 and r.stdout.startswith("pass"), f"correct kernel: exit {r.returncode}: {r.stdout[:200]}")


ML_TYPES = {"e4m3fn": "float8_e4m3fn", "e5m2": "float8_e5m2", "e4m3fnuz": "float8_e4m3fnuz",
            "e5m2fnuz": "float8_e5m2fnuz", "e4m3b11fnuz": "float8_e4m3b11fnuz", "e4m3": "float8_e4m3",
            "e3m4": "float8_e3m4", "e3m2fn": "float6_e3m2fn", "e2m3fn": "float6_e2m3fn", "e2m1fn": "float4_e2m1fn",
            "e8m0fnu": "float8_e8m0fnu"}


def ml_dtypes_flow(d):
    for src in ("f32", "f64", "bf16", "f16"):
        for fmt, mlt in ML_TYPES.items():
            p = os.path.join(d, f"{src}_{fmt}")
            r = mf("probe", "gen", "--format", fmt, "--from", src, "--profile", "ml_dtypes", "--count", "20000",
                   "--seed", "3", "--out", p)
            check(r.returncode == 0, f"gen {src} {fmt}: {r.stderr}")
            load = {"bf16": "x = x.view(ml_dtypes.bfloat16)\n"}.get(src, "")
            k = kernel_file(d, f"k_{mlt}.py", load + f"np.save(sys.argv[2], x.astype(ml_dtypes.{mlt}).view(np.uint8))")
            got = run_kernel(k, p)
            r = mf("probe", "check", p, "--got", got)
            check(r.returncode == 0, f"ml_dtypes astype {src} -> {fmt} under ml_dtypes: {r.stdout[:600]}")
    # Against ocp with an f64 source, the diagnosis names ml_dtypes (its f64 arrays round through f32, T11).
    p = os.path.join(d, "f64_ocp")
    mf("probe", "gen", "--format", "e4m3fn", "--from", "f64", "--count", "50000", "--seed", "5", "--out", p)
    k = kernel_file(d, "k_ml.py", "np.save(sys.argv[2], x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8))")
    r = mf("probe", "check", p, "--got", run_kernel(k, p))
    print(r.stdout)
    check(r.returncode == 1, "ml_dtypes f64 kernel fails against ocp")
    check('diagnosis: agrees with "profile ml_dtypes" on 100%' in r.stdout, "diagnosis names ml_dtypes")


def convert_flow(d, n=1 << 20):
    bits = np.random.default_rng(7).integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    xin = os.path.join(d, "x.npy")
    np.save(xin, x.reshape(1 << 10, n >> 10))
    out = os.path.join(d, "c.npy")
    r = mf("convert", "--in", xin, "--format", "e4m3fn", "--out", out)
    check(r.returncode == 0, f"convert: {r.stderr}")
    c = np.load(out)
    check(c.shape == (1 << 10, n >> 10) and c.dtype == np.uint8, f"shape/dtype {c.shape} {c.dtype}")
    text = "\n".join("0x%08x" % v for v in bits.tolist()) + "\n"
    r = mf("encode", "--format", "e4m3fn", "--from", "f32", stdin=text)
    enc = np.array([int(t, 16) for t in r.stdout.split()], dtype=np.uint8)
    check(enc.size == n and np.array_equal(enc, c.reshape(-1)),
          f"convert equals encode on all {n} elements ({int((enc != c.reshape(-1)).sum()) if enc.size == n else 'size'} differ)")
    # --threads: the same bytes for 0 (all cores, the default), 1 and 3; out of range is refused (exit 2)
    for t in ("0", "1", "3"):
        r = mf("convert", "--in", xin, "--format", "e4m3fn", "--threads", t, "--out", out)
        check(r.returncode == 0 and np.array_equal(np.load(out), c), f"convert --threads {t} gives the same bytes")
    # codes -> codes with SR (the array door's codes path): the same bytes for every --threads
    cin = os.path.join(d, "codes.npy")
    np.save(cin, np.tile(np.arange(256, dtype=np.uint8), 64))
    sr_codes = []
    for t in ("0", "1", "3"):
        r = mf("convert", "--in", cin, "--from", "e5m2", "--format", "e2m1fn", "--round", "sr", "--seed", "5",
               "--threads", t, "--out", out)
        check(r.returncode == 0, f"codes convert --threads {t}: {r.stderr}")
        sr_codes.append(np.load(out))
    check(all(np.array_equal(a, sr_codes[0]) for a in sr_codes), "codes -> codes SR: same bytes for every --threads")
    r = mf("convert", "--in", xin, "--format", "e4m3fn", "--threads", "1025", "--out", out)
    check(r.returncode == 2 and "--threads" in r.stderr and "1024" in r.stderr, f"convert --threads 1025: {r.stderr}")
    # An <f8 file is rounded once from the exact double (T11): 1.0625 + 2^-40 -> 0x39, not 0x38.
    np.save(xin, np.array([1.0625 + 2.0**-40, -(1.0625 + 2.0**-40), 464.0], dtype=np.float64))
    mf("convert", "--in", xin, "--format", "e4m3fn", "--out", out)
    check(np.load(out).tolist() == [0x39, 0xB9, 0x7E], f"f64 rounded once: {np.load(out).tolist()}")
    mf("convert", "--in", xin, "--format", "e4m3fn", "--profile", "ml_dtypes", "--out", out)
    check(np.load(out).tolist() == [0x38, 0xB8, 0x7E], f"ml_dtypes profile goes through f32: {np.load(out).tolist()}")
    # --as ml_dtypes: the descr ml_dtypes writes, loadable with .view()
    mf("convert", "--in", xin, "--format", "e4m3fn", "--as", "ml_dtypes", "--out", out)
    v = np.load(out).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    check(v.tolist() == [1.125, -1.125, 448.0], f"--as ml_dtypes: {v.tolist()}")
    # bf16 (<V2) input, SR reproducible from the seed
    np.save(xin, np.array([1.0625] * 64, dtype=np.float32).astype(ml_dtypes.bfloat16))
    r = mf("convert", "--in", xin, "--format", "e4m3fn", "--round", "sr", "--seed", "9", "--out", out)
    a = np.load(out)
    mf("convert", "--in", xin, "--format", "e4m3fn", "--round", "sr", "--seed", "9", "--out", out)
    check(r.returncode == 0 and set(a.tolist()) == {0x38, 0x39} and np.array_equal(a, np.load(out)),
          f"SR convert: {sorted(set(a.tolist()))}")


def decode_flow(d):
    cin, xout = os.path.join(d, "c.npy"), os.path.join(d, "x.npy")
    np.save(cin, np.arange(256, dtype=np.uint8).reshape(16, 16))
    r = mf("decode", "--in", cin, "--format", "e4m3fn", "--to", "f32", "--out", xout)
    check(r.returncode == 0, f"decode --in: {r.stderr}")
    want = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float32).reshape(16, 16)
    got = np.load(xout)
    check(got.shape == (16, 16) and np.array_equal(got.view(np.uint32), want.view(np.uint32)),
          "decode --in equals ml_dtypes' decoding bit for bit")
    for t in ("0", "1", "3"):
        r = mf("decode", "--in", cin, "--format", "e4m3fn", "--to", "f32", "--threads", t, "--out", xout)
        check(r.returncode == 0 and np.array_equal(np.load(xout).view(np.uint32), want.view(np.uint32)),
              f"decode --in --threads {t} gives the same bytes")
    r = mf("decode", "--format", "e4m3fn", "--threads", "2", "0x38")
    check(r.returncode == 2 and "--threads needs --in" in r.stderr, f"decode --threads without --in: {r.stderr}")


def rerun_flow(d):
    p = os.path.join(d, "p")
    mf("probe", "gen", "--format", "e2m1fn", "--from", "f32", "--overflow", "satfinite", "--count", "20000",
       "--seed", "2", "--out", p)
    # ties away instead of even (T12): 0.25 -> 0x1 instead of 0x0
    k = kernel_file(d, "k_rna.py",
                    "a = np.abs(x).astype(np.float64); g = np.array([0, .5, 1, 1.5, 2, 3, 4, 6])\n"
                    "i = np.searchsorted(g, a, side='right') - 1; i = np.clip(i, 0, 7)\n"
                    "up = np.where(i < 7, (a - g[i]) >= (np.append(g, 8)[np.minimum(i + 1, 8)] - g[i]) / 2, False)\n"
                    "c = np.minimum(i + up, 7).astype(np.uint8) | np.where(np.signbit(x), 8, 0).astype(np.uint8)\n"
                    "c[np.isnan(x)] = 7\n"
                    "np.save(sys.argv[2], c)")
    r = mf("probe", "check", p, "--got", run_kernel(k, p), "--rerun", f"{PY} {k} {{in}} {{out}}")
    print(r.stdout)
    check(r.returncode == 1, "rna e2m1fn kernel fails")
    check('diagnosis: agrees with "rna"' in r.stdout, "diagnosed as rna")
    check(r.stdout.splitlines()[0].startswith("FAIL [midpoint"), "first failing class: midpoint")
    check("f32 0x3fa00000 (1.25) => 0x3" in r.stdout, "shrunk to 1.25 (T12; exponent 0 is simplest: 1|1.5 ties to even 0x2)")
    # A signal while the kernel runs: its process group is stopped, DIR/.rerun-PID removed, and minifloat dies of
    # that signal (SIGTERM had left both behind with the kernel running; SIGINT waited for the kernel to end).
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        pidf = os.path.join(d, "kernel.pid")
        if os.path.exists(pidf):
            os.remove(pidf)
        proc = subprocess.Popen([MF, "probe", "check", p, "--got", os.path.join(p, "got.npy"), "--rerun",
                                 f"sh -c 'echo $$ > {pidf}; exec sleep 60' {{in}} {{out}}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(3000):
            if os.path.exists(pidf) and os.path.getsize(pidf) > 0:
                break
            time.sleep(0.01)
        proc.send_signal(sig)
        rc = proc.wait(timeout=30)
        kpid = int(open(pidf).read())
        alive = False  # a zombie (state Z, not yet reaped by init) is dead
        for _ in range(100):
            try:
                with open(f"/proc/{kpid}/stat") as f:
                    alive = f.read().rsplit(")", 1)[1].split()[0] != "Z"
            except FileNotFoundError:
                alive = False
            if not alive:
                break
            time.sleep(0.01)
        if alive:
            os.kill(kpid, signal.SIGKILL)
        left = [f for f in os.listdir(p) if f.startswith(".rerun-")]
        check(rc == -sig and not alive and not left, f"{sig.name} during --rerun: status {rc}, kernel alive {alive}, left {left}")
    # The same kernel storing fp4x2 bytes (element 2j in the low nibble): --rerun reads its packed files.
    # (A bug found here: the packed --rerun output was unpacked twice.)
    q = os.path.join(d, "q")
    mf("probe", "gen", "--format", "e2m1fn", "--from", "f32", "--overflow", "satfinite", "--packing", "fp4x2",
       "--count", "20000", "--seed", "2", "--out", q)
    kp = kernel_file(d, "k_rna_x2.py", open(k).read().split("\n", 2)[2].replace(
        "np.save(sys.argv[2], c)", "c = np.append(c, np.uint8(0))[:len(c) + len(c) % 2]\n"
        "np.save(sys.argv[2], (c[0::2] | c[1::2] << 4).astype(np.uint8))"))
    r = mf("probe", "check", q, "--got", run_kernel(kp, q), "--rerun", f"{PY} {kp} {{in}} {{out}}")
    check(r.returncode == 1 and 'diagnosis: agrees with "rna"' in r.stdout and "f32 0x3fa00000 (1.25) => 0x3" in r.stdout,
          f"packed fp4x2 kernel shrinks through --rerun to 1.25: {r.stdout[:800]}{r.stderr}")


def errors_flow(d):
    p = os.path.join(d, "p")
    mf("probe", "gen", "--format", "e4m3fn", "--count", "1000", "--seed", "1", "--out", p)
    bad = os.path.join(d, "bad.npy")
    np.save(bad, np.zeros(3, dtype=np.uint8))
    r = mf("probe", "check", p, "--got", bad)
    check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "elements" in r.stderr,
          f"length mismatch: {r.returncode} {r.stderr}")
    np.save(bad, np.zeros(3, dtype=np.float32))
    r = mf("probe", "check", p, "--got", bad)
    check(r.returncode == 2 and "dtype" in r.stderr, f"float got: {r.stderr}")
    r = mf("probe", "check", p, "--got", os.path.join(p, "expected.npy"), "--rerun", "true")
    check(r.returncode == 2 and "{in}" in r.stderr, f"rerun without placeholders: {r.stderr}")
    # An empty --rerun is refused (it was taken as no --rerun), and so is a {word} that is no placeholder (a
    # typo such as {rbit} reached the kernel's command line literally).
    r = mf("probe", "check", p, "--got", os.path.join(p, "expected.npy"), "--rerun", "")
    check(r.returncode == 2 and "--rerun is empty" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          f"empty rerun: {r.returncode} {r.stderr}")
    r = mf("probe", "check", p, "--got", os.path.join(p, "expected.npy"), "--rerun", "k {in} {out} {rbit}")
    check(r.returncode == 2 and "unknown placeholder {rbit}" in r.stderr and "{rbits}" in r.stderr,
          f"unknown rerun placeholder: {r.returncode} {r.stderr}")
    r = mf("probe", "gen", "--format", "f32", "--count", "10", "--seed", "1", "--out", p)
    check(r.returncode == 2 and "at most 16 bits" in r.stderr, f"32-bit target: {r.stderr}")
    r = mf("convert", "--in", bad, "--format", "e4m3fn", "--round", "sr", "--out", os.path.join(d, "o.npy"))
    check(r.returncode == 2 and "--seed" in r.stderr and not os.path.exists(os.path.join(d, "o.npy")),
          f"sr without seed: {r.stderr}")
    np.save(bad, np.zeros(3, dtype=np.uint8))
    r = mf("convert", "--in", bad, "--format", "e4m3fn", "--out", os.path.join(d, "o.npy"))
    check(r.returncode == 2 and "--from" in r.stderr, f"codes without --from: {r.stderr}")
    # probe gen --out: a new folder inside an existing one is made; a missing nested folder is refused
    # with one line and nothing is created (docs/cli.md "Output files": a missing folder is refused).
    nested = os.path.join(d, "missing", "deeper", "p")
    r = mf("probe", "gen", "--format", "e4m3fn", "--count", "10", "--seed", "1", "--out", nested)
    check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "does not exist" in r.stderr
          and not os.path.exists(os.path.join(d, "missing")), f"nested missing --out: {r.returncode} {r.stderr}")
    r = mf("probe", "gen", "--format", "e4m3fn", "--count", "10", "--seed", "1", "--out", bad)
    check(r.returncode == 2 and "not a folder" in r.stderr, f"--out is a file: {r.stderr}")
    r = mf("probe", "gen", "--format", "e4m3fn", "--count", "10", "--seed", "1", "--out", os.path.join(d, "new") + "/")
    check(r.returncode == 0 and os.path.exists(os.path.join(d, "new", "manifest.json")), f"new --out: {r.stderr}")


DOT_KERNEL = """import sys, numpy as np, ml_dtypes
# the CUDA-core loop in float32: acc = acc + a_i*b_i (a product of two e4m3 codes is exact in float32,
# so each step is one rounding, as fmaf) -- not the tensor core's truncated fused group
a = np.load(sys.argv[1]).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
b = np.load(sys.argv[2]).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
acc = np.load(sys.argv[3]).astype(np.float32)
with np.errstate(all="ignore"):
    for l in range(a.shape[1]):
        acc = (acc + a[:, l] * b[:, l]).astype(np.float32)
np.save(sys.argv[4], acc)
"""


def dot_flow(d):
    """probe gen --model / probe check with a Python dot kernel. Oracle: numpy float32 arithmetic and
    ml_dtypes' e4m3fn decode (neither shares code with the library)."""
    k = os.path.join(d, "dot_kernel.py")
    with open(k, "w") as f:
        f.write(DOT_KERNEL)
    # Checked against the fp32 model (the f32 chain) the kernel passes...
    p = os.path.join(d, "pf")
    r = mf("probe", "gen", "--model", "fp32", "--format", "e4m3fn", "--k", "16", "--count", "800", "--seed", "1", "--out", p)
    check(r.returncode == 0, f"probe gen --model fp32: {r.stderr}")
    for n in ("a.npy", "b.npy", "c.npy", "classes.npy", "expected.npy", "manifest.json"):
        check(os.path.exists(os.path.join(p, n)), f"probe gen --model wrote {n}")
    a = np.load(os.path.join(p, "a.npy"))
    check(a.shape == (800, 16) and a.dtype == np.uint8, f"a.npy shape/dtype {a.shape} {a.dtype}")
    args = [os.path.join(p, x) for x in ("a.npy", "b.npy", "c.npy", "got.npy")]
    subprocess.run([PY, k, *args], check=True)
    r = mf("probe", "check", p, "--got", args[3], "--nan", "any")
    check(r.returncode == 0 and r.stdout.startswith("pass check dot k=16"), f"fp32 kernel under fp32: {r.stdout}{r.stderr}")
    # ...and against hopper-fp8 it fails, shrinks (by rerunning it) to at most two nonzero terms, and
    # the diagnosis names the f32 chain.
    p = os.path.join(d, "ph")
    r = mf("probe", "gen", "--model", "hopper-fp8", "--format", "e4m3fn", "--k", "16", "--count", "800", "--seed", "1", "--out", p)
    check(r.returncode == 0, f"probe gen --model hopper-fp8: {r.stderr}")
    args = [os.path.join(p, x) for x in ("a.npy", "b.npy", "c.npy", "got.npy")]
    subprocess.run([PY, k, *args], check=True)
    r = mf("probe", "check", p, "--got", args[3], "--nan", "any", "--rounds", "8",
           "--rerun", f"{PY} {k} {{a}} {{b}} {{c}} {{out}}")
    check(r.returncode == 1 and r.stdout.startswith("FAIL [") and "alignment" in r.stdout.splitlines()[0],
          f"fp32 kernel under hopper-fp8: {r.returncode} {r.stdout[:300]} {r.stderr}")
    check('diagnosis: agrees with "fp32" on 100%' in r.stdout, f"dot diagnosis: {r.stdout}")
    # The first class's reproduce line prints the expected code of its [class] line.
    lines = r.stdout.splitlines()
    want = lines[1].split(" expected ")[1].split()[0]
    rep = next(x for x in lines if x.strip().startswith("reproduce:")).split("reproduce:", 1)[1].strip()
    rep = rep.replace("python3 -c", f"{PY} -c", 1).replace("&& minifloat dot", f"&& {MF} dot", 1)
    out = subprocess.run(rep, shell=True, capture_output=True, text=True, cwd=d)
    check(out.returncode == 0 and out.stdout.split()[0] == want, f"dot reproduce: {rep} -> {out.stdout} {out.stderr} (want {want})")
    ma, mb, mc = (np.load(os.path.join(p, f"minimal_{x}.npy")) for x in "abc")
    terms = [int(np.count_nonzero((ma[i] != 0) | (mb[i] != 0))) + int(mc[i] != 0) for i in range(len(mc))]
    check(len(terms) > 0 and max(terms) <= 2, f"shrunk dot cases have at most 2 terms: {terms}")
    # bad input: one line, exit 2
    bad = os.path.join(d, "badgot.npy")
    np.save(bad, np.zeros(3, dtype=np.float32))
    r = mf("probe", "check", p, "--got", bad)
    check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "elements" in r.stderr, f"dot got length: {r.stderr}")
    np.save(bad, np.zeros(800, dtype=np.uint8))
    r = mf("probe", "check", p, "--got", bad)
    check(r.returncode == 2 and "<f4" in r.stderr, f"dot got dtype: {r.stderr}")
    r = mf("probe", "gen", "--format", "e4m3fn", "--k", "4", "--seed", "1", "--out", os.path.join(d, "x"))
    check(r.returncode == 2 and "--model" in r.stderr, f"--k without --model: {r.stderr}")
    r = mf("probe", "gen", "--model", "ampere-f16", "--format", "e4m3fn", "--seed", "1", "--out", os.path.join(d, "x"))
    check(r.returncode == 2 and "multiplies only f16" in r.stderr, f"operand format of a preset: {r.stderr}")
    r = mf("probe", "gen", "--model", "fp32", "--format", "e4m3fn", "--round", "rtz", "--seed", "1", "--out", os.path.join(d, "x"))
    check(r.returncode == 2 and "do not apply with --model" in r.stderr, f"--round with --model: {r.stderr}")
    import json, shutil
    q = os.path.join(d, "pq")
    shutil.copytree(p, q)
    man = json.load(open(os.path.join(q, "manifest.json")))
    for bad_target, word in ((dict(man["target"], k=0), '"k"'), (dict(man["target"], model="hopper-fp9"), '"model"'),
                             ("dot", '"target"')):
        with open(os.path.join(q, "manifest.json"), "w") as f:
            json.dump(dict(man, target=bad_target), f)
        r = mf("probe", "check", q, "--got", args[3])
        check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "manifest.json" in r.stderr
              and word in r.stderr, f"bad dot manifest {bad_target}: {r.stderr}")
    r = mf("probe", "check", p, "--got", args[3], "--rerun", "true {a} {out}")
    check(r.returncode == 2 and "{c}" in r.stderr, f"dot rerun placeholders: {r.stderr}")


FP6_PACK = """
def pack(c, msb_first=False):  # 6-bit codes -> 4 codes in 3 bytes (pack.hpp Fp6Packing::dense: LSB-first stream)
    c = np.concatenate([c, np.zeros((-len(c)) % 4, np.uint8)]).reshape(-1, 4).astype(np.uint32)
    if msb_first:
        w = c[:, 3] | c[:, 2] << 6 | c[:, 1] << 12 | c[:, 0] << 18
        b = [w >> 16, w >> 8, w]
    else:
        w = c[:, 0] | c[:, 1] << 6 | c[:, 2] << 12 | c[:, 3] << 18
        b = [w, w >> 8, w >> 16]
    return np.stack(b, axis=1).astype(np.uint8).reshape(-1)
"""


def fp6_flow(d):
    """probe gen/check --packing fp6_dense with ml_dtypes' float6_e2m3fn astype (oracle: ml_dtypes, packed
    by the numpy code above, which shares nothing with pack.hpp; {1,2,3,4} -> {0x81,0x30,0x10} is
    pack.hpp's documented example, checked here on the numpy side)."""
    exec(FP6_PACK, globals())
    check(list(pack(np.array([1, 2, 3, 4], np.uint8))) == [0x81, 0x30, 0x10], "numpy dense packing matches the documented example")
    p = os.path.join(d, "p6")
    r = mf("probe", "gen", "--format", "e2m3fn", "--profile", "ml_dtypes", "--packing", "fp6_dense", "--count", "4001",
           "--seed", "3", "--out", p)
    check(r.returncode == 0, f"gen fp6_dense: {r.stderr}")
    n = len(np.load(os.path.join(p, "inputs.npy")))
    e = np.load(os.path.join(p, "expected.npy"))
    check(e.dtype == np.uint8 and e.shape == ((n + 3) // 4 * 3,), f"packed expected.npy: {e.shape} for {n} cases")
    body = FP6_PACK + "np.save(sys.argv[2], pack(x.astype(ml_dtypes.float6_e2m3fn).view(np.uint8){}))"
    ok = kernel_file(d, "k6.py", body.format(""))
    r = mf("probe", "check", p, "--got", run_kernel(ok, p))
    check(r.returncode == 0, f"packed ml_dtypes e2m3fn kernel passes under ml_dtypes: {r.stdout[:600]}{r.stderr}")
    msb = kernel_file(d, "k6m.py", body.format(", msb_first=True"))
    r = mf("probe", "check", p, "--got", run_kernel(msb, p))
    check(r.returncode == 1 and 'agrees with "fp6 msb-first" on 100%' in r.stdout and "wrong FP6 bit order" in r.stdout,
          f"MSB-first packing diagnosed: {r.stdout[:900]}")
    # double rounding through bf16, packed, shrunk by --rerun through the packed files
    dbl = kernel_file(d, "k6d.py", FP6_PACK + "np.save(sys.argv[2], pack(x.astype(ml_dtypes.bfloat16).astype(ml_dtypes.float6_e2m3fn).view(np.uint8)))")
    r = mf("probe", "check", p, "--got", run_kernel(dbl, p), "--rerun", f"{PY} {dbl} {{in}} {{out}}")
    print(r.stdout)
    check(r.returncode == 1 and 'diagnosis: agrees with "rne via bf16" on 100%' in r.stdout, f"bf16 double rounding, packed: {r.stdout[:900]}{r.stderr}")
    # hand-derived: 1.0625 + 2^-23 rounds in bf16 to 1.0625, the e2m3fn tie 1|1.125, even -> 0x08; once: 0x09
    check("[near_midpoint] f32 0x3f880001 (1.06250012) => 0x08 (1) expected 0x09" in r.stdout, f"packed rerun shrinks near_midpoint to 1.0625+2^-23: {r.stdout[:600]}")
    import json
    rep = json.load(open(os.path.join(p, "report.json")))
    check(rep["kernel_calls"] > 0 and len(rep["minimal"]) > 0, "packed --rerun shrank (kernel calls)")
    # bad input: one line, exit 2
    r = mf("probe", "check", p, "--got", os.path.join(p, "inputs.npy"))
    check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "fp6_dense" in r.stderr, f"unpacked got: {r.stderr}")
    np.save(os.path.join(d, "short.npy"), e[:-1])
    r = mf("probe", "check", p, "--got", os.path.join(d, "short.npy"))
    check(r.returncode == 2 and "bytes" in r.stderr and "fp6_dense" in r.stderr, f"short packed got: {r.stderr}")
    for fmt, word in (("e4m3fn", "6-bit"), ("e2m1fn", "6-bit")):
        r = mf("probe", "gen", "--format", fmt, "--packing", "fp6_dense", "--seed", "1", "--out", os.path.join(d, "x"))
        check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and word in r.stderr, f"fp6_dense with {fmt}: {r.stderr}")
    r = mf("probe", "gen", "--format", "e3m2fn", "--packing", "fp4x2", "--seed", "1", "--out", os.path.join(d, "x"))
    check(r.returncode == 2 and "4-bit" in r.stderr, f"fp4x2 with e3m2fn: {r.stderr}")


GEMM_KERNEL = """import sys, numpy as np, ml_dtypes
# D = A.B + C in float32, one K step at a time over the whole tile: D += outer(A[:, l], B[l, :]) (each
# e4m3 product is exact in float32, so each step is one rounding per element, as fmaf)
a = np.load(sys.argv[1]).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
b = np.load(sys.argv[2]).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
d = np.load(sys.argv[3]).astype(np.float32)
with np.errstate(all="ignore"):
    for l in range(a.shape[1]):
        d = (d + np.outer(a[:, l], b[l, :])).astype(np.float32)
np.save(sys.argv[4], d)
"""


def gemm_flow(d):
    """probe gen --model --shape MxNxK / probe check with a NumPy float32 GEMM kernel (oracle: numpy
    float32 arithmetic and ml_dtypes' e4m3fn decode, as the dot flow)."""
    k = os.path.join(d, "gemm_kernel.py")
    with open(k, "w") as f:
        f.write(GEMM_KERNEL)
    p = os.path.join(d, "gf")
    r = mf("probe", "gen", "--model", "fp32", "--format", "e4m3fn", "--shape", "40x24x16", "--seed", "1", "--out", p)
    check(r.returncode == 0, f"probe gen --shape: {r.stderr}")
    a, b, c = (np.load(os.path.join(p, f"{x}.npy")) for x in "abc")
    check(a.shape == (40, 16) and b.shape == (16, 24) and c.shape == (40, 24) and a.dtype == np.uint8 and c.dtype == np.float32,
          f"GEMM operand shapes {a.shape} {b.shape} {c.shape}")
    check(np.load(os.path.join(p, "expected.npy")).shape == (40, 24), "expected.npy is M x N")
    args = [os.path.join(p, x) for x in ("a.npy", "b.npy", "c.npy", "got.npy")]
    subprocess.run([PY, k, *args], check=True)
    r = mf("probe", "check", p, "--got", args[3], "--nan", "any")
    check(r.returncode == 0 and r.stdout.startswith("pass check dot k=16") and "960 cases" in r.stdout,
          f"float32 GEMM under fp32: every one of the 40x24 outputs passes: {r.stdout[:300]}{r.stderr}")
    # D written transposed (24x40, the same 960 elements) or flat is refused by shape, not scored as 40x24.
    for bad_d in (np.load(args[3]).T.copy(), np.load(args[3]).reshape(-1)):
        np.save(os.path.join(d, "gemm_bad.npy"), bad_d)
        r = mf("probe", "check", p, "--got", os.path.join(d, "gemm_bad.npy"), "--nan", "any")
        check(r.returncode == 2 and "must have shape (40, 24) = (M, N)" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
              f"GEMM --got of shape {bad_d.shape}: {r.returncode} {r.stderr}")
    # Against hopper-fp8 the same kernel fails, shrinks through --rerun (as one GEMM per round) and is
    # diagnosed as the f32 chain.
    p = os.path.join(d, "gh")
    mf("probe", "gen", "--model", "hopper-fp8", "--format", "e4m3fn", "--shape", "40x24x16", "--seed", "1", "--out", p)
    args = [os.path.join(p, x) for x in ("a.npy", "b.npy", "c.npy", "got.npy")]
    subprocess.run([PY, k, *args], check=True)
    r = mf("probe", "check", p, "--got", args[3], "--nan", "any", "--rounds", "8", "--rerun", f"{PY} {k} {{a}} {{b}} {{c}} {{out}}")
    print(r.stdout)
    check(r.returncode == 1 and r.stdout.startswith("FAIL ["), f"float32 GEMM under hopper-fp8 fails: {r.stdout[:300]}{r.stderr}")
    check('diagnosis: agrees with "fp32" on 100%' in r.stdout, f"GEMM diagnosis: {r.stdout}")
    # Hand-derived: -256*256 + -1*1 = -65537 = -(2^16 + 1) is exact in f32 (0xc7800080); hopper-fp8 keeps
    # 13 fraction bits below the largest term's 2^16 and truncates the 1 away: -65536 (0xc7800000).
    check("[alignment] 2 of 16 lanes nonzero:" in r.stdout and "=> 0xc7800080 (-65537) expected 0xc7800000 (-65536)" in r.stdout,
          f"GEMM alignment case shrunk to -256*256 + -1*1: {r.stdout[:900]}")
    ma, mb, mc = (np.load(os.path.join(p, f"minimal_{x}.npy")) for x in "abc")
    m = ma.shape[0]
    check(m > 0 and mb.shape == (16, m) and mc.shape == (m, m), f"minimal GEMM shapes {ma.shape} {mb.shape} {mc.shape}")
    terms = [int(np.count_nonzero((ma[i] != 0) | (mb[:, i] != 0))) + int(mc[i, i] != 0) for i in range(m)]
    check(max(terms) <= 2, f"shrunk GEMM cases have at most 2 terms: {terms}")
    # The kernel on minimal_*.npy reproduces the report's got values on the diagonal.
    out = os.path.join(d, "mgot.npy")
    subprocess.run([PY, k, *(os.path.join(p, f"minimal_{x}.npy") for x in "abc"), out], check=True)
    import json
    rep = json.load(open(os.path.join(p, "report.json")))
    dg = np.diagonal(np.load(out)).view(np.uint32)
    check([int(x) for x in dg] == [int(x["got"], 16) if isinstance(x["got"], str) else int(x["got"]) for x in rep["minimal"]],
          f"minimal GEMM reproduces the got values: {list(map(hex, dg))} vs {[x['got'] for x in rep['minimal']]}")
    # bad input: one line, exit 2
    for shape in ("40x24", "0x4x4", "4x4x4097", "4x4xk", "2000x4x4"):
        r = mf("probe", "gen", "--model", "fp32", "--format", "e4m3fn", "--shape", shape, "--seed", "1", "--out", os.path.join(d, "x"))
        check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--shape" in r.stderr, f"--shape {shape}: {r.stderr}")
    r = mf("probe", "gen", "--model", "fp32", "--format", "e4m3fn", "--shape", "4x4x4", "--k", "4", "--seed", "1", "--out", os.path.join(d, "x"))
    check(r.returncode == 2 and "--k" in r.stderr, f"--shape with --k: {r.stderr}")
    r = mf("probe", "gen", "--format", "e4m3fn", "--shape", "4x4x4", "--seed", "1", "--out", os.path.join(d, "x"))
    check(r.returncode == 2 and "--model" in r.stderr, f"--shape without --model: {r.stderr}")
    bad = os.path.join(d, "badgot.npy")
    np.save(bad, np.zeros((24, 40), dtype=np.float32)[:10])
    r = mf("probe", "check", p, "--got", bad)
    check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--got" in r.stderr, f"GEMM got size: {r.stderr}")
    r = mf("probe", "check", p, "--got", args[3], "--rerun", "true {a} {b} {out}")
    check(r.returncode == 2 and "{c}" in r.stderr, f"GEMM rerun placeholders: {r.stderr}")


with tempfile.TemporaryDirectory() as d:
    {"must_show": must_show, "ml_dtypes": ml_dtypes_flow, "convert": convert_flow,
     "convert_2p24": lambda d: convert_flow(d, 1 << 24), "decode": decode_flow,
     "rerun": rerun_flow, "errors": errors_flow, "dot": dot_flow, "fp6": fp6_flow, "gemm": gemm_flow}[CASE](d)
print(f"{CASE}: {len(failures)} failures")
sys.exit(1 if failures else 0)
