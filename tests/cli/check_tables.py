#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# check_tables.py: independent oracle for the committed tables/ folder (Python standard library
# only; shares no code with minifloat). Format parameters are the spec's (spec-digest §1.1, §2.1,
# §3.1, §5.1, §5.2; P3109 formulas for the K = 8 family); every code is decoded here from its bit
# fields, midpoints and overflow thresholds are derived from those values, and the CSV, Markdown
# and JSON renderings must all agree with the result.
# usage: check_tables.py TABLES_DIR
import csv
import json
import sys
from fractions import Fraction
from pathlib import Path

# name: (bits, E, M, bias, signed, specials, has_zero); specials as in spec-digest:
#   ieee  exponent all ones = Inf (M = 0) / NaN;  fn  all-ones magnitude = NaN;
#   fnuz  0x80 = NaN, no -0;  none  no Inf/NaN;  p3109e  P3109 extended (Inf + single NaN).
NAMED = {
    "e4m3fn": (8, 4, 3, 7, True, "fn", True),
    "e5m2": (8, 5, 2, 15, True, "ieee", True),
    "e4m3fnuz": (8, 4, 3, 8, True, "fnuz", True),
    "e5m2fnuz": (8, 5, 2, 16, True, "fnuz", True),
    "e4m3b11fnuz": (8, 4, 3, 11, True, "fnuz", True),
    "e4m3": (8, 4, 3, 7, True, "ieee", True),
    "e3m4": (8, 3, 4, 3, True, "ieee", True),
    "e3m2fn": (6, 3, 2, 3, True, "none", True),
    "e2m3fn": (6, 2, 3, 1, True, "none", True),
    "e2m1fn": (4, 2, 1, 1, True, "none", True),
    "e8m0fnu": (8, 8, 0, 127, False, "fn", False),
    "ue4m3": (7, 4, 3, 7, False, "fn", True),
    "ue5m3": (8, 5, 3, 15, False, "fn", True),
}
# Literal max finite values from the specs (spec-digest §1.1, §2.1, §3.1, §5.1, §5.2, §4.3).
SPEC_MAX = {
    "e4m3fn": 448, "e5m2": 57344, "e4m3fnuz": 240, "e5m2fnuz": 57344, "e4m3b11fnuz": 30,
    "e4m3": 240, "e3m4": Fraction(31, 2), "e3m2fn": 28, "e2m3fn": Fraction(15, 2), "e2m1fn": 6,
    "e8m0fnu": 2**127, "ue4m3": 448, "Binary8p3se": 49152, "Binary8p4se": 224,
    "Binary8p3sf": 57344, "Binary8p4sf": 240, "ue5m3": 114688,
}


def p3109(k, p, signed, extended):
    e = k - p if signed else k - p + 1
    bias = 2 ** (k - p - 1) if signed else 2 ** (k - p)
    return (k, e, p - 1, bias, signed, "p3109e" if extended else ("fnuz" if signed else "fn"), True)


def all_formats():
    fs = dict(NAMED)
    for signed in (True, False):
        for p in range(1, (8 if signed else 9)):
            for ext in (True, False):
                fs[f"Binary8p{p}{'s' if signed else 'u'}{'e' if ext else 'f'}"] = p3109(8, p, signed, ext)
    return fs


def decode(fmt, code):
    """(class, sign, value) of a code; value is a Fraction, or 'inf'/'nan'."""
    bits, E, M, bias, signed, sp, has_zero = fmt
    neg = signed and (code >> (bits - 1)) & 1 == 1
    mag = code & ((1 << (bits - 1)) - 1) if signed else code
    magmask = (1 << (bits - 1 if signed else bits)) - 1
    e, m = mag >> M, mag & ((1 << M) - 1)
    if sp == "ieee" and e == (1 << E) - 1:
        return ("nan", neg, "nan") if m else ("inf", neg, "inf")
    if sp == "fn" and mag == magmask:
        return ("nan", neg, "nan")
    if sp == "fnuz" and neg and mag == 0:
        return ("nan", neg, "nan")
    if sp == "p3109e":
        if signed and neg and mag == 0:
            return ("nan", neg, "nan")
        if signed and mag == magmask:
            return ("inf", neg, "inf")
        if not signed and code == (1 << bits) - 1:
            return ("nan", neg, "nan")
        if not signed and code == (1 << bits) - 2:
            return ("inf", neg, "inf")
    if not has_zero:
        v, cls = Fraction(2) ** (e - bias) * (1 + Fraction(m, 2**M)), "normal"
    elif e == 0:
        v, cls = Fraction(2) ** (1 - bias) * Fraction(m, 2**M), ("zero" if m == 0 else "subnormal")
    else:
        v, cls = Fraction(2) ** (e - bias) * (1 + Fraction(m, 2**M)), "normal"
    return (cls, neg, -v if neg else v)


def parse_hex(s):
    if s in ("nan", "-nan", "inf", "-inf"):
        return s
    return Fraction(float.fromhex(s))  # every tabled value fits a double exactly


def text_value(s):
    if s in ("nan", "-nan", "inf", "-inf"):
        return s
    return Fraction(s)  # Fraction parses a decimal string exactly


def hexcode(c, bits):
    return "0x" + format(c, "0" + str((bits + 3) // 4) + "x")


def nan_code(fmt, neg):  # ocp profile: sign kept; IEEE-style formats give the quiet NaN
    bits, E, M, bias, signed, sp, _ = fmt
    s = (1 << (bits - 1)) if (neg and signed) else 0
    mag = (1 << (bits - 1 if signed else bits)) - 1
    if sp == "ieee":
        return s | (((1 << E) - 1) << M) | (1 << (M - 1))
    if sp == "fn":
        return s | mag
    if sp == "fnuz":
        return 1 << (bits - 1)
    if sp == "p3109e":
        return (1 << (bits - 1)) if signed else (1 << bits) - 1
    return None


def inf_code(fmt, neg):
    bits, E, M, bias, signed, sp, _ = fmt
    if sp == "ieee":
        return ((1 << (bits - 1)) if neg else 0) | (((1 << E) - 1) << M)
    if sp == "p3109e":
        return ((1 << bits) - 1 if neg else (1 << (bits - 1)) - 1) if signed else (1 << bits) - 2
    return None


errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)
        if len(errors) > 40:
            report()


def report():
    for e in errors[:40]:
        print("FAIL:", e)
    print(f"{len(errors)} problem(s)")
    sys.exit(1)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def md_rows(text, title):
    section = text.split("## " + title + "\n", 1)[1].split("\n## ", 1)[0]
    lines = [l for l in section.splitlines() if l.startswith("|")]
    return [[c.strip() for c in l.strip().strip("|").split("|")] for l in lines if not l.startswith("|---")]


def main(root):
    root = Path(root)
    fmts = all_formats()
    names = [r[0] for r in read_csv(root / "formats.csv")[1:]]
    check(sorted(names) == sorted(fmts), f"formats.csv lists {sorted(set(names) ^ set(fmts))} unexpectedly")
    for name, fmt in fmts.items():
        bits, E, M, bias, signed, sp, has_zero = fmt
        smask = (1 << (bits - 1)) if signed else 0
        # ---- codes
        codes = read_csv(root / "csv" / f"{name}.codes.csv")
        check(codes[0] == ["code", "sign", "exponent", "mantissa", "value", "hex_value", "class"], f"{name}: header")
        check(len(codes) == 1 + 2**bits, f"{name}: {len(codes) - 1} code rows")
        finite = {}
        for c, row in enumerate(codes[1:]):
            cls, neg, v = decode(fmt, c)
            mag = c & ~smask
            want = [hexcode(c, bits), ("1" if neg else "0") if signed else "",
                    format(mag >> M, "0" + str(E) + "b"), format(mag & ((1 << M) - 1), "0" + str(M) + "b") if M else ""]
            check(row[:4] == want, f"{name} {hexcode(c, bits)}: fields {row[:4]} != {want}")
            check(row[6] == cls, f"{name} {hexcode(c, bits)}: class {row[6]} != {cls}")
            if cls in ("nan", "inf"):
                exp = ("-" if neg else "") + cls  # NaN shows its sign bit as Inf does (issue 28 item 15)
                check(row[4] == exp and row[5] == exp, f"{name} {hexcode(c, bits)}: {row[4]} {row[5]} != {exp}")
            else:
                neg_zero = cls == "zero" and neg and sp not in ("fnuz", "p3109e")
                check(text_value(row[4]) == v and parse_hex(row[5]) == v,
                      f"{name} {hexcode(c, bits)}: value {row[4]} / {row[5]} != {v}")
                check(row[4].startswith("-") == (neg_zero or v < 0), f"{name} {hexcode(c, bits)}: sign of {row[4]}")
                if not neg:
                    finite[c] = v
        # ---- limits
        mx_code = max(finite, key=lambda c: finite[c])
        mx = finite[mx_code]
        if name in SPEC_MAX:
            check(mx == SPEC_MAX[name], f"{name}: max finite {mx} != spec {SPEC_MAX[name]}")
        # ---- midpoints
        asc = sorted(finite, key=lambda c: finite[c])
        check(asc == list(range(len(asc))), f"{name}: positive finite codes are not 0..max in value order")
        mids = read_csv(root / "csv" / f"{name}.midpoints.csv")
        check(len(mids) == len(asc), f"{name}: {len(mids) - 1} midpoints for {len(asc)} values")
        for (lo, hi), row in zip(zip(asc, asc[1:]), mids[1:]):
            a, b = finite[lo], finite[hi]
            mid = (a + b) / 2
            if M > 0:
                tie = lo if (lo & 1) == 0 else hi  # even trailing significand
            else:
                tie = lo if a == 0 else hi         # no mantissa: ties go up (ocp), zero wins its tie
            want = [hexcode(lo, bits), hexcode(hi, bits)]
            check(row[:2] == want and text_value(row[2]) == a and text_value(row[3]) == b,
                  f"{name}: midpoint row {row[:4]} != {want} {a} {b}")
            check(text_value(row[4]) == mid and parse_hex(row[5]) == mid, f"{name}: midpoint {row[4]} != {mid}")
            check(row[6] == hexcode(tie, bits), f"{name}: rne tie {row[:2]} -> {row[6]}, expected {hexcode(tie, bits)}")
        # ---- overflow thresholds (definitions in tables/README.md; IEEE 754 §7.4 for directed modes)
        emax_field = (mx_code & ~smask) >> M
        ulp = Fraction(2) ** ((emax_field if (emax_field or not has_zero) else 1) - bias - M)  # quantum of max's binade
        odd = (mx_code & 1) == 1 if M > 0 else True  # M = 0: ties go up (ocp), as if odd
        ovf = read_csv(root / "csv" / f"{name}.overflow.csv")
        want_rows = []
        for mode in ("rne", "rna", "rtz", "rtp", "rtn", "rto"):
            for pol in ("nonsat", "satfinite", "satpropagate"):
                for neg in ((False, True) if signed else (False,)):
                    up_side = (mode == "rtp" and not neg) or (mode == "rtn" and neg)
                    if mode == "rne":
                        t, inc = mx + ulp / 2, odd
                    elif mode == "rna":
                        t, inc = mx + ulp / 2, True
                    elif mode == "rto":
                        t, inc = (mx + ulp, True) if odd else (mx, False)
                    elif mode in ("rtp", "rtn") and up_side:
                        t, inc = mx, False
                    else:
                        t, inc = mx + ulp, True
                    toward_max = mode in ("rtz", "rto") or (mode == "rtp" and neg) or (mode == "rtn" and not neg)
                    maxc = mx_code | (smask if neg else 0)

                    def beyond(sat):
                        if sat:
                            return maxc
                        if inf_code(fmt, neg) is not None:
                            return inf_code(fmt, neg)
                        if nan_code(fmt, neg) is not None:
                            return nan_code(fmt, neg)
                        return maxc
                    want_rows.append([mode, pol, "-" if neg else "+", -t if neg else t, "yes" if inc else "no",
                                      hexcode(maxc, bits), hexcode(beyond(pol != "nonsat" or toward_max), bits),
                                      hexcode(beyond(pol == "satfinite"), bits)])
        check(len(ovf) == 1 + len(want_rows), f"{name}: {len(ovf) - 1} overflow rows")
        for row, w in zip(ovf[1:], want_rows):
            got = row[:3] + [text_value(row[3]), row[5], row[6], row[7], row[8]]
            check(got == w and parse_hex(row[4]) == w[3], f"{name}: overflow row {row} != {w}")
        # ---- JSON and Markdown carry the same rows as the CSV files
        doc = json.loads((root / "json" / f"{name}.json").read_text())
        for part, rows in (("codes", codes), ("midpoints", mids), ("overflow", ovf)):
            header = rows[0]
            as_json = [[("yes" if r[h] else "no") if isinstance(r[h], bool) else r[h] for h in header] for r in doc[part]]
            check(as_json == rows[1:], f"{name}: json {part} differs from csv")
        check(doc["parameters"]["bits"] == bits and doc["parameters"]["bias"] == bias, f"{name}: json parameters")
        md = (root / "md" / f"{name}.md").read_text()
        for title, rows in (("Codes", codes), ("Rounding midpoints", mids), ("Overflow thresholds", ovf)):
            check(md_rows(md, title) == rows, f"{name}: markdown '{title}' differs from csv")
    # spec-digest facts on thresholds: §1.2 / T1 (464 stays 448), T3 (61440 overflows), T8 (248 overflows),
    # T22 (Binary8p3se: rne nonsat overflow -> 0x7f = +Inf, rtz -> 0x7e)
    def row_of(name, mode, pol, sign):
        for r in read_csv(root / "csv" / f"{name}.overflow.csv")[1:]:
            if r[:3] == [mode, pol, sign]:
                return r
    check(row_of("e4m3fn", "rne", "nonsat", "+")[3:8:2] == ["464", "no", "0x7f"], "e4m3fn: 464 must not overflow")
    check(row_of("e5m2", "rne", "nonsat", "+")[3:8:2] == ["61440", "yes", "0x7c"], "e5m2: 61440 must overflow")
    check(row_of("e4m3fnuz", "rne", "nonsat", "+")[3:8:2] == ["248", "yes", "0x80"], "e4m3fnuz: 248 -> NaN")
    check(row_of("Binary8p3se", "rne", "nonsat", "+")[7] == "0x7f", "Binary8p3se: rne overflow -> +Inf 0x7f")
    check(row_of("Binary8p3se", "rtz", "nonsat", "+")[7] == "0x7e", "Binary8p3se: rtz overflow -> 0x7e")
    if errors:
        report()
    print(f"ok: {len(fmts)} formats checked")


if __name__ == "__main__":
    main(sys.argv[1])
