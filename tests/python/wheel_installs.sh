#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# python.wheel_installs: `pip wheel .` makes a cp311 wheel of this source tree that installs into a
# fresh venv and imports (issue 13 item 3). Usage: wheel_installs.sh PYTHON SOURCE_DIR WORK_DIR.
# Needs pip to reach PyPI or its cache for the build requirements and numpy.
set -euo pipefail
py="$1"; src="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"
"$py" -m pip wheel -q --no-deps --disable-pip-version-check -w "$work/dist" "$src"
wheel=$(ls "$work"/dist/minifloat-*.whl)
case "$wheel" in *-cp311-cp311-linux_x86_64.whl) ;; *) echo "unexpected wheel tag: $wheel"; exit 1 ;; esac
"$py" -m venv "$work/fresh"
"$work/fresh/bin/pip" install -q --disable-pip-version-check "$wheel"
out=$(cd "$work" && fresh/bin/python -c "import numpy as np, minifloat as mf; print(mf.convert(np.float32([464, 500, -1e-7]), 'e4m3fn', overflow='satfinite'))")
echo "$(basename "$wheel"): $out"
[ "$out" = "[126 126 128]" ]
