# SPDX-License-Identifier: Apache-2.0
"""pytest configuration of the minifloat Python tests (tests/python, ctest `python.*`).

The package under test is whatever `import minifloat` finds: ctest puts the build tree's staged
package (<build>/python) first on PYTHONPATH; scripts/test runs these files against the package
pip installed into .venv. MINIFLOAT_CLI names the C++ CLI (the oracle of test_cli_equal.py);
tests that need it skip with the reason when it is not set.
"""
import os
import shutil

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("MINIFLOAT_CLI") or shutil.which("minifloat")
    if not path or not os.path.exists(path):
        pytest.skip("MINIFLOAT_CLI is not set and no `minifloat` on PATH (build the minifloat_cli target)")
    return path
