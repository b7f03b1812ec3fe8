#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# cli_python_checks.py: checks of `minifloat decode` exactness and of `minifloat table` styles
# against Python's exact arithmetic (fractions/decimal; no minifloat code involved).
# usage: cli_python_checks.py BIN
import json
import subprocess
import sys
from fractions import Fraction

BIN = sys.argv[1]
errors = []


def run(*args):
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    if p.returncode != 0:
        errors.append(f"{args}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def f64_value(bits):  # IEEE 754 binary64 decoded from its fields
    s, e, m = bits >> 63, (bits >> 52) & 0x7FF, bits & ((1 << 52) - 1)
    v = Fraction(m, 1 << 52) * Fraction(2) ** -1022 if e == 0 else (1 + Fraction(m, 1 << 52)) * Fraction(2) ** (e - 1023)
    return -v if s else v


# decode prints every f64 exactly (2^-1074 has 1074 fraction digits), and the hex float agrees.
codes = [0x0000000000000001, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FB999999999999A,
         0xC07AFFFFFFFFFFFF, 0x8000000000000001]
out = run("decode", "--format", "f64", *[f"0x{c:016x}" for c in codes]).splitlines()
exp = run("decode", "--format", "f64", "--explain", *[f"0x{c:016x}" for c in codes]).splitlines()
for c, line, ex in zip(codes, out, exp):
    want = f64_value(c)
    if Fraction(line) != want:
        errors.append(f"decode f64 0x{c:016x}: {line[:60]}... != {want}")
    hexpart = ex.split(" hex=")[1].split(" ")[0]
    if Fraction(float.fromhex(hexpart)) != want:
        errors.append(f"decode --explain f64 0x{c:016x}: hex {hexpart}")
if len(out[0]) != 2 + 1074:
    errors.append(f"2^-1074 printed with {len(out[0]) - 2} fraction digits, expected 1074")

# e8m0fnu 0x00 = 2^-127 exactly (spec-digest §2.1), 0xfe = 2^127.
out = run("decode", "--format", "e8m0fnu", "0x00", "0xfe").splitlines()
if [Fraction(x) for x in out] != [Fraction(1, 2**127), Fraction(2**127)]:
    errors.append(f"decode e8m0fnu: {out}")

# table --as json is valid JSON with the three parts; e4m3fn max 0x7e = 448 (spec-digest §1.1).
doc = json.loads(run("table", "e4m3fn", "--as", "json"))
if set(doc) != {"parameters", "codes", "midpoints", "overflow"}:
    errors.append(f"json keys {sorted(doc)}")
elif doc["codes"][0x7E]["value"] != "448" or doc["parameters"]["max_finite"] != "448":
    errors.append("json: e4m3fn 0x7e is not 448")
elif len(doc["codes"]) != 256 or len(doc["midpoints"]) != 126 or len(doc["overflow"]) != 36:
    errors.append(f"json row counts {len(doc['codes'])} {len(doc['midpoints'])} {len(doc['overflow'])}")
part = json.loads(run("table", "e2m1fn", "--as", "json", "--part", "midpoints"))
# E2M1 midpoints (spec-digest §2.1 value set, §11 T12 ties): 0.25 1.25 2.5 5 go to the even codes.
mids = {r["midpoint"]: r["rne"] for r in part}
if [mids.get(k) for k in ("0.25", "1.25", "2.5", "5")] != ["0x0", "0x2", "0x4", "0x6"]:
    errors.append(f"e2m1fn midpoints: {mids}")

# table --as md: a Markdown document with the three sections.
md = run("table", "e5m2", "--as", "md")
for title in ("# e5m2", "## Codes", "## Rounding midpoints", "## Overflow thresholds", "| 0x7b | 0 | 11110 | 11 | 57344 |"):
    if title not in md:
        errors.append(f"markdown lacks {title!r}")

# formats --as csv gives exact limits; f64 max finite = (2 - 2^-52)·2^1023 exactly. --family all lists every
# format; the default the named ones only (issue 28: the 504 P3109 formats come with --family p3109).
rows = [l.split(",") for l in run("formats", "--as", "csv", "--family", "all").splitlines()]
head = rows[0]
f64 = dict(zip(head, next(r for r in rows if r[0] == "f64")))
if Fraction(f64["max_finite"]) != (2 - Fraction(1, 2**52)) * Fraction(2) ** 1023:
    errors.append("formats csv: f64 max_finite")
if Fraction(f64["min_subnormal"]) != Fraction(1, 2**1074):
    errors.append("formats csv: f64 min_subnormal")
names = [r[0] for r in rows[1:]]
if len(names) != 18 + sum(4 * k - 2 for k in range(3, 17)):  # 18 named (tf32, ue5m3 included) + P3109
    errors.append(f"formats --family all lists {len(names)} formats")
named = [l.split(",")[0] for l in run("formats", "--as", "csv").splitlines()[1:]]
if len(named) != 18 or any(n.startswith("Binary") for n in named):
    errors.append(f"formats lists {len(named)} formats by default; expected the 18 named ones")

for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
