#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue "stochastic rounding" must-show: `encode --round sr --seed 1 --count 10000 1.0625` prints
# 10000 lines, each 0x38 or 0x39 (1.0625 is the midpoint of 1.0 and 1.125 in e4m3fn, so
# P(up) = 1/2): the count of 0x39 lies within 5 binomial standard deviations (5·50 = 250) of 5000;
# a rerun is byte-identical; --seed 2 gives a different sequence.
set -euo pipefail
mf="$1"
run() { "$mf" encode --format e4m3fn --round sr --seed "$1" --count 10000 1.0625; }
a="$(run 1)"
b="$(run 1)"
c="$(run 2)"
lines=$(printf '%s\n' "$a" | wc -l)
other=$(printf '%s\n' "$a" | grep -cv '^0x3[89]$' || true)
up=$(printf '%s\n' "$a" | grep -c '^0x39$' || true)
[ "$lines" -eq 10000 ] || { echo "FAIL: $lines lines, expected 10000"; exit 1; }
[ "$other" -eq 0 ] || { echo "FAIL: $other lines are neither 0x38 nor 0x39"; exit 1; }
[ "$up" -ge 4750 ] && [ "$up" -le 5250 ] || { echo "FAIL: $up round-ups, expected 5000 ± 250"; exit 1; }
[ "$a" = "$b" ] || { echo "FAIL: the same seed gave different output"; exit 1; }
[ "$a" != "$c" ] || { echo "FAIL: --seed 2 gave the same output as --seed 1"; exit 1; }
# Values piped one per line are consecutive elements of the stream (found by a user test: they all
# used element 0 before): 1000 copies of 1.0625 round up about half the time, not all or none.
piped=$(yes 1.0625 | head -1000 | "$mf" encode --format e4m3fn --round sr --seed 1 | grep -c '^0x39$' || true)
[ "$piped" -ge 380 ] && [ "$piped" -le 620 ] || { echo "FAIL: $piped of 1000 piped values rounded up, expected 500 ± 120"; exit 1; }
# and equal the --count stream: element i is the same whichever way it is asked for
[ "$(yes 1.0625 | head -10 | "$mf" encode --format e4m3fn --round sr --seed 1)" = "$(printf '%s\n' "$a" | head -10)" ] ||
  { echo "FAIL: piped values and --count disagree on the stream"; exit 1; }
echo "ok: 10000 lines, $up x 0x39, reproducible, seed-dependent; piped $piped/1000 up"
