# SPDX-License-Identifier: Apache-2.0
"""check.peers.torch: PyTorch 2.15.0 `Tensor.to` casts (CPU) against the engine under the `torch` profile,
through the checker's file flow; and against `ocp`, listing where torch differs and which side the exact
value supports. Opt-in label `peers` (setup_peers.sh makes the venv; not CI).

usage: torch_test.py MINIFLOAT_BINARY
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import ml_dtypes
import torch

MF = sys.argv[1]
TYPES = {"e4m3fn": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2, "e4m3fnuz": torch.float8_e4m3fnuz,
         "e5m2fnuz": torch.float8_e5m2fnuz, "e8m0fnu": torch.float8_e8m0fnu}
failures = []
cases = mism = 0


def mf(*a):
    return subprocess.run([MF, *a], capture_output=True, text=True)


def torch_kernel(p, src, dt):
    x = np.load(os.path.join(p, "inputs.npy"))
    if src == "bf16":
        t = torch.from_numpy(x.view(np.int16).copy()).view(torch.bfloat16)
    else:
        t = torch.from_numpy(x.copy())
    y = t.to(dt).view(torch.uint8).numpy()
    gp = os.path.join(p, "got.npy")
    np.save(gp, y)
    return gp


print(f"torch {torch.__version__}")
with tempfile.TemporaryDirectory() as d:
    for src in ("f32", "f64", "f16", "bf16"):
        for fmt, dt in TYPES.items():
            for prof in ("torch", "ocp"):
                p = os.path.join(d, f"{src}_{fmt}_{prof}")
                r = mf("probe", "gen", "--format", fmt, "--from", src, "--profile", prof, "--count", "200000",
                       "--seed", "13", "--out", p)
                assert r.returncode == 0, r.stderr
                r = mf("probe", "check", p, "--got", torch_kernel(p, src, dt))
                first = r.stdout.splitlines()[0]
                n = int(first.split(" of ")[1].split()[0]) if first.startswith("FAIL") else int(first.split(": ")[1].split()[0])
                bad = int(first.split("): ")[1].split()[0]) if first.startswith("FAIL") else 0
                if prof == "torch":
                    cases += n
                    mism += bad
                print(f"  {src}->{fmt} vs {prof:5s}: {n} cases, {bad} mismatches")
                if prof == "torch" and r.returncode != 0:
                    failures.append(f"{src}->{fmt}")
                    print(r.stdout)
                if prof == "ocp" and r.returncode == 1:  # where torch and OCP differ: the first line per class
                    for l in r.stdout.splitlines()[1:]:
                        if l.strip().startswith("[") or "diagnosis" in l:
                            print("      " + l.strip())
print(f"torch: {cases} cases compared under the torch profile, {mism} mismatches; failing: {failures}")
sys.exit(1 if failures else 0)
