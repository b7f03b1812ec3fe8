# SPDX-License-Identifier: Apache-2.0
"""check.peers.torchao: torchao 0.18 `to_mx` (prototype/mx_formats, CPU eager) against the block checker.
For each element type x scale mode, `probe gen --scheme ELEM/1x32/e8m0fnu:RULE` blocks go through torchao;
its codes and scales are checked bit for bit (1) under `--mx-quirks torchao_0_18 --profile torch` (must pass)
and (2) under the OCP definitions, where the differing blocks are counted per class with the report's
diagnosis. Opt-in label `peers` (setup_peers.sh makes the venv; not CI).

usage: torchao_test.py MINIFLOAT_BINARY
"""
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
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
