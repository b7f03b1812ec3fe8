#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/pairs.py: a before/after speed comparison as alternating pairs in one run.

Runs each Google Benchmark binary of two builds (BASE, then NEW, then BASE, ...) for N pairs and
prints, per benchmark row, the median real time of each side and the median of the per-pair
ratios NEW/BASE; a row whose median ratio is above 1 + --tolerance (default 0.05) is marked SLOWER.
Pairs alternate so that drift of the machine (load, frequency, page cache) falls on both sides.
The memcpy rows of each binary are the in-run baseline: if they move as much as the rows under
test, the difference is the machine, not the code.

With --python, also runs each side's bench/bench_python.py against that side's build-tree Python
package (PYTHONPATH=BUILD/python) and compares its printed milliseconds the same way.

  bench/pairs.py --base BASE_BUILD --new NEW_BUILD [--pairs 3] [--tolerance 0.05]
                 [--filter REGEX] [--python BASE_SRC NEW_SRC] [bench_convert bench_sr ...]

BASE_BUILD and NEW_BUILD are CMake build folders holding bench/<binary>. Exit status 0 (the
verdict is printed; a slower row is for a person to fix or explain, not a test failure).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def run_gbench(binary, flt, out_json):
    cmd = [binary, f"--benchmark_out={out_json}", "--benchmark_out_format=json"]
    if flt:
        cmd.append(f"--benchmark_filter={flt}")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out_json) as f:
        data = json.load(f)
    rows = {}  # a binary that repeats itself (bench_sr) reports aggregates only: take its median
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                rows[b.get("run_name", b["name"])] = float(b["real_time"])
        else:
            rows.setdefault(b["name"], float(b["real_time"]))
    return rows


PY_ROW = re.compile(r"^(.*?)\s*:\s*([0-9.]+) ms")


def run_python(src, build):
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"), PYTHONDONTWRITEBYTECODE="1")
    py = os.path.join(src, ".venv", "bin", "python")
    out = subprocess.run([py, os.path.join(src, "bench", "bench_python.py")], check=True, env=env,
                         capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        m = PY_ROW.match(line)
        if m:
            rows["python: " + m.group(1).strip()] = float(m.group(2))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="BASE CMake build folder")
    ap.add_argument("--new", required=True, help="NEW CMake build folder")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--filter", default="")
    ap.add_argument("--python", nargs=2, metavar=("BASE_SRC", "NEW_SRC"))
    ap.add_argument("benches", nargs="*", default=["bench_convert", "bench_simd", "bench_quant", "bench_sr"])
    a = ap.parse_args()
    if a.pairs < 1:
        sys.exit("pairs.py: --pairs must be at least 1")
    sides = {"base": a.base, "new": a.new}
    times = {}  # (bench, row) -> {"base": [..], "new": [..]}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.pairs):
            for side, build in sides.items():
                for bench in a.benches:
                    binary = os.path.join(build, "bench", bench)
                    if not os.access(binary, os.X_OK):
                        sys.exit(f"pairs.py: no benchmark binary {binary}")
                    rows = run_gbench(binary, a.filter, os.path.join(tmp, f"{side}-{bench}.json"))
                    for row, t in rows.items():
                        times.setdefault((bench, row), {"base": [], "new": []})[side].append(t)
                if a.python:
                    src = a.python[0] if side == "base" else a.python[1]
                    for row, t in run_python(src, build).items():
                        times.setdefault(("python", row), {"base": [], "new": []})[side].append(t)
            print(f"pairs.py: pair {i + 1} of {a.pairs} done (load {os.getloadavg()[0]:.2f})", file=sys.stderr)
    slower = 0
    print(f"{'bench':<14} {'row':<58} {'base':>11} {'new':>11} {'new/base':>9}  (medians of {a.pairs} pairs)")
    for (bench, row), t in sorted(times.items()):
        if len(t["base"]) != len(t["new"]) or not t["base"]:
            print(f"{bench:<14} {row:<58} missing on one side")
            continue
        ratio = statistics.median(n / b for b, n in zip(t["base"], t["new"]))
        flag = "  SLOWER" if ratio > 1 + a.tolerance else ""
        slower += bool(flag)
        print(f"{bench:<14} {row[:58]:<58} {statistics.median(t['base']):11.3f} {statistics.median(t['new']):11.3f}"
              f" {ratio:9.3f}{flag}")
    print(f"pairs.py: {len(times)} rows, {slower} more than {a.tolerance:.0%} slower (median of per-pair ratios)")


if __name__ == "__main__":
    main()
