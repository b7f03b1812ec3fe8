#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# docs_diff.sh: regenerate the generated reference pages (docs/formats.md, docs/names.md) into a
# scratch folder and fail on any byte difference against the committed ones. The other pages of
# docs/ are hand-written and not compared.
# usage: docs_diff.sh BIN REF_DIR OUT_DIR
set -u
bin=$1 ref=$2 out=$3
rm -rf "$out"
"$bin" docs --out "$out" >/dev/null || { echo "FAIL: minifloat docs --out $out failed"; exit 1; }
status=0
for f in formats.md names.md; do
  if ! diff -u "$ref/$f" "$out/$f" >"$out/$f.diff"; then
    echo "FAIL: docs/$f differs from a fresh 'minifloat docs --out docs':"
    head -n 40 "$out/$f.diff"
    status=1
  fi
done
if [ "$status" -ne 0 ]; then
  echo "(regenerate with: build/minifloat docs --out docs   -- then commit docs/formats.md and docs/names.md)"
  exit 1
fi
echo "ok: docs/formats.md and docs/names.md are identical to a fresh run"
