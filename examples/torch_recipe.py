# SPDX-License-Identifier: Apache-2.0
"""A low-precision training recipe on your own PyTorch model, with minifloat as the reference (issue 27).

Trains a small MLP (64-64-10, ReLU) on the scikit-learn digits (Debian's python3-sklearn, installed by
scripts/setup: the same file `minifloat train --model mlp-digits` reads) with three recipes of `minifloat train`
(fp32; mxfp8-te and nvfp4-te, Transformer Engine's MXFP8BlockScaling and NVFP4BlockScaling), 3 seeds each, every
nn.Linear swapped by minifloat.torch.quantize_model: each of its three GEMMs (fprop, dgrad, wgrad) quantizes its
operands bit-exactly as the reference does. Writes OUT/loss.svg (the
project's plot writer: train loss with the min-max band over seeds, held-out loss, gap to FP32), OUT/loss.png
when rsvg-convert is installed, and prints the loss table.

    PYTHONPATH=build/python .venv/bin/python examples/torch_recipe.py --out runs-torch
"""
import argparse
import gzip
import os
import shutil
import subprocess

import numpy as np
import torch

import minifloat.torch as mft

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"  # src/train/data.hpp kDigitsPath
RECIPES = ["fp32", "mxfp8-te", "nvfp4-te"]


def load_digits():
    with gzip.open(DIGITS, "rt") as f:
        rows = np.loadtxt(f, delimiter=",", dtype=np.float32)
    x, y = rows[:, :64] / 16.0, rows[:, 64].astype(np.int64)  # pixels 0..16 -> 0..1
    return torch.from_numpy(x), torch.from_numpy(y)


def run(recipe, seed, x, y, steps, batch=64, held_out=360, val_every=20):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    mft.quantize_model(model, recipe, seed=seed)  # every nn.Linear -> QuantLinear (the recipe's three GEMMs)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    xt, yt, xv, yv = x[:-held_out], y[:-held_out], x[-held_out:], y[-held_out:]
    g = torch.Generator().manual_seed(seed)
    loss_curve, val_steps, val_curve = [], [], []
    for step in range(steps):
        idx = torch.randint(0, len(xt), (batch,), generator=g)
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(xt[idx]), yt[idx])
        loss.backward()
        opt.step()
        loss_curve.append(loss.item())
        if step % val_every == 0 or step == steps - 1:
            model.eval()
            with torch.no_grad():
                val_curve.append(torch.nn.functional.cross_entropy(model(xv), yv).item())
            model.train()
            val_steps.append(step)
    return dict(recipe=recipe, seed=seed, loss_curve=loss_curve, val_steps=val_steps, val_curve=val_curve)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="runs-torch")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    x, y = load_digits()
    runs = [run(r, s, x, y, a.steps) for r in RECIPES for s in range(a.seeds)]
    os.makedirs(a.out, exist_ok=True)
    svg = os.path.join(a.out, "loss.svg")
    with open(svg, "w") as f:
        f.write(mft.loss_figure_svg(runs, recipes=RECIPES, seeds=a.seeds))
    if shutil.which("rsvg-convert"):
        subprocess.run(["rsvg-convert", svg, "-o", os.path.join(a.out, "loss.png")], check=True)
    print("| recipe | seeds | final train loss (last 10 %, mean) | held-out loss mean | std | gap vs fp32 |")
    print("|---|---|---|---|---|---|")
    base = None
    for r in RECIPES:
        rs = [q for q in runs if q["recipe"] == r]
        tail = max(1, a.steps // 10)
        train = np.mean([np.mean(q["loss_curve"][-tail:]) for q in rs])
        val = np.array([q["val_curve"][-1] for q in rs])
        base = val.mean() if r == "fp32" else base
        gap = f"{100 * (val.mean() / base - 1):+.2f} %" if base is not None and r != "fp32" else ""
        print(f"| {r} | {len(rs)} | {train:.4f} | {val.mean():.4f} | {val.std(ddof=1):.4f} | {gap} |")
    print(f"figure: {svg}")


if __name__ == "__main__":
    main()
