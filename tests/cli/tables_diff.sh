#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tables_diff.sh: regenerate the encoding tables into a scratch folder and fail on any byte
# difference against the committed tables/ (README.md is hand-written and not generated).
# usage: tables_diff.sh BIN REF_DIR OUT_DIR
set -u
bin=$1 ref=$2 out=$3
rm -rf "$out"
"$bin" tables --out "$out" >/dev/null || { echo "FAIL: minifloat tables --out $out failed"; exit 1; }
if ! diff -rq -x README.md "$ref" "$out" >"$out.diff"; then
  echo "FAIL: tables/ differs from a fresh 'minifloat tables --out tables':"
  cat "$out.diff"
  echo "(regenerate with: minifloat tables --out tables)"
  exit 1
fi
echo "ok: $(find "$out" -type f | wc -l) files identical"
