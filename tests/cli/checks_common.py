# SPDX-License-Identifier: Apache-2.0
# checks_common.py: what every tests/cli/*_checks.py script shares — the CLI under test (argv[1]), one way to run
# it, one collector of failed expectations and one verdict (exit 1 with every failure listed, else the pass line).
import subprocess
import sys

BIN = sys.argv[1]
errors = []


def run(*args):
    """(returncode, stdout, stderr) of `BIN args...` (each argument str()-ed)."""
    p = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def expect(cond, what, out=""):
    """Records `what` (with the first 600 characters of `out`) as a failure unless cond holds."""
    if not cond:
        errors.append(f"FAIL {what}\n    got: {str(out).strip()[:600]}")


def finish(name):
    """Exits 1 listing every failure, else prints '<name>: ok'."""
    if errors:
        print(f"{name}: {len(errors)} checks failed")
        print("\n".join(errors))
        sys.exit(1)
    print(f"{name}: ok")
