#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# setup_peers.sh VENV: the pinned venv of the opt-in `peers` label (not CI): torch 2.15.0 and torchao
# 0.18.0 from PyPI with --no-deps (torch's wheel depends on several GB of CUDA wheels; on a CPU machine it
# imports with its small pure-Python dependencies plus the four nvidia-* libraries it loads at import).
# Idempotent: does nothing when the venv already has the pins.
set -euo pipefail
venv="$1"
pins=(numpy==2.2.6 ml_dtypes==0.6.0 torch==2.15.0 torchao==0.18.0 filelock==4.3.1 typing-extensions==4.16.0
      sympy==1.14.0 mpmath==1.3.0 networkx==3.6.1 Jinja2==3.1.6 MarkupSafe==3.0.4 fsspec==2026.9.0
      nvidia-nccl-cu13==2.30.7 nvidia-cusparselt-cu13==0.8.1 nvidia-nvshmem-cu13==3.7.2 nvidia-cufile==1.17.1.22)
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c '
import importlib.metadata as m, sys
pins = sys.argv[1:]
sys.exit(0 if all(m.version(p.split("==")[0]) == p.split("==")[1] for p in pins) else 1)' "${pins[@]}" 2>/dev/null; then
  exit 0
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --no-deps --disable-pip-version-check "${pins[@]}"
