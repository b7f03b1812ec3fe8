#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# stdin_test.sh: pipe 10^6 values through `minifloat encode` (no VALUE: one per line from stdin)
# and compare every output line. Expected codes are spec-digest facts for e4m3fn, rne, nonsat:
# §1.1 (1.0 = 0x38, ±0, min normal 0x08 = 2^-6, max subnormal 0x07 = 0.013671875, max 0x7e),
# §11 T1 (464 -> 0x7e), T2 (464 + 2^-15 -> 0x7f), T6 (2^-10 -> 0x00, 3*2^-10 -> 0x02,
# -2^-10 -> 0x80), and the ocp NaN rule of issue 2 (nan -> 0x7f, -nan -> 0xff).
# usage: stdin_test.sh BIN [N]
set -eu
bin=$1 n=${2:-1000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pairs='464 0x7e
464.000030517578125 0x7f
1 0x38
-0 0x80
0.0009765625 0x00
0.0029296875 0x02
-0.0009765625 0x80
0.015625 0x08
0.013671875 0x07
-448 0xfe
nan 0x7f
-nan 0xff
1e6 0x7f
0x1.cp8 0x7e
-.5 0xb0
-1e-7 0x80'
awk -v n="$n" -v pairs="$pairs" 'BEGIN {
  k = split(pairs, lines, "\n")
  for (i = 0; i < n; i++) { split(lines[i % k + 1], f, " "); print f[1] > "/dev/stdout"; print f[2] > "/dev/stderr" }
}' >"$dir/in" 2>"$dir/want"
start=$(date +%s.%N)
"$bin" encode --format e4m3fn <"$dir/in" >"$dir/got"
end=$(date +%s.%N)
lines=$(wc -l <"$dir/got")
[ "$lines" -eq "$n" ] || { echo "FAIL: $lines output lines for $n input lines"; exit 1; }
if ! cmp -s "$dir/want" "$dir/got"; then
  echo "FAIL: output differs from the expected codes (first differences: line expected got)"
  paste -d' ' "$dir/in" "$dir/want" "$dir/got" | awk '$2 != $3 { print NR": "$0; if (++c == 10) exit }'
  exit 1
fi
echo "ok: $n lines in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') s"

# Blank lines are skipped; CRLF line ends and a last line without newline are accepted.
got=$(printf '1\r\n\n  -2  \n0x1p-9' | "$bin" encode --format e4m3fn)
[ "$got" = $'0x38\n0xc0\n0x01' ] || { echo "FAIL: blank/CRLF handling gave: $got"; exit 1; }
# A bad line names its line number, exits 2, one line on stderr.
set +e
err=$(printf '1\n2\nbogus\n' | "$bin" encode --format e4m3fn 2>&1 >/dev/null)
rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "FAIL: bad stdin line exited $rc"; exit 1; }
[[ "$err" == "minifloat: error: stdin line 3: "*bogus* ]] || { echo "FAIL: message: $err"; exit 1; }
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "FAIL: more than one stderr line"; exit 1; }
# decode reads stdin too: e4m3fn 0x7e = 448, 0x01 = 2^-9 (spec-digest §1.1).
got=$(printf '0x7e\n0x01\n' | "$bin" decode --format e4m3fn)
[ "$got" = $'448\n0.001953125' ] || { echo "FAIL: decode stdin gave: $got"; exit 1; }
echo "ok: stdin edge cases"
