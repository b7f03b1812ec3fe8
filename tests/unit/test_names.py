#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""unit.test_names_are_stable: every ctest name of a build is stable and navigable (issue 9, item 8).

Usage: test_names.py CTEST BUILD_DIR SOURCE_DIR

Lists the build's tests with `ctest --show-only=json-v1` (what `ctest -N` shows, with where each
test was defined) and fails, naming every offending test, when a name
  - does not start with the prefix of the folder that defines it: `<folder>.` for tests/<folder>/,
    `fuzz.` for fuzz/, `examples.` for examples/ (the folder comes from the add_test backtrace, or,
    for gtest_discover_tests, from the test's working directory or executable in the build tree);
  - holds a byte dump or an address: gtest prints a parameter without a printer as
    "24-byte object <9A-61 DD-73 ...>", whose bytes include pointers and change from build to build;
  - ends in a bare parameter index ("Suite.Test/3"): a parameterised suite without a name generator;
  - holds a character outside [A-Za-z0-9_./-] (spaces, '#', '<', '=': what CMake appends as
    "# GetParam() = ..." when gtest_discover_tests lacks NO_PRETTY_VALUES), or is listed twice.
CMake's "<target>_NOT_BUILT" placeholders (an executable not built in a partial build, e.g.
scripts/sanitize) are not names of ours; they are counted and skipped. Exits 0 when every name
passes, 1 otherwise (and when no test is listed at all).
"""
import json
import os
import re
import subprocess
import sys

BYTE_DUMP = [
    (re.compile(r"\d+-byte object"), "gtest byte dump ('N-byte object')"),
    (re.compile(r"<[0-9A-Fa-f]{2}-[0-9A-Fa-f]{2}"), "gtest byte dump ('<xx-xx')"),
    (re.compile(r"[0-9A-Fa-f]{2}-[0-9A-Fa-f]{2} [0-9A-Fa-f]{2}-[0-9A-Fa-f]{2}"), "gtest byte dump ('xx-xx xx-xx')"),
    (re.compile(r"0x[0-9A-Fa-f]{8,}"), "pointer-like hex ('0x' and 8 or more hex digits)"),
    (re.compile(r"(?<![0-9A-Za-z])[0-9A-Fa-f]{12,}(?![0-9A-Za-z])"), "a run of 12 or more hex digits"),
]
BARE_INDEX = re.compile(r"/[0-9]+(/|$)")
ALLOWED = re.compile(r"^[A-Za-z0-9_./-]+$")


def folder_of(path, build_dir, source_dir):
    """The test folder ('unit', 'blocks', ..., 'fuzz', 'examples') holding `path`, or None."""
    path = os.path.realpath(path)
    for root in (build_dir, source_dir):  # the build tree first: build/ may lie inside the source tree
        if path.startswith(root + os.sep):
            parts = os.path.relpath(path, root).split(os.sep)
            if len(parts) >= 3 and parts[0] == "tests":
                return parts[1]
            if len(parts) >= 2 and parts[0] in ("fuzz", "examples"):
                return parts[0]
            return None
    return None


def where_defined(test, graph, build_dir, source_dir):
    """(folder, evidence): from the add_test backtrace, else WORKING_DIRECTORY, else the executable."""
    bt = test.get("backtrace")
    while bt is not None:  # innermost frame first; the first file inside a test folder wins
        node = graph["nodes"][bt]
        f = folder_of(graph["files"][node["file"]], build_dir, source_dir)
        if f:
            return f, graph["files"][node["file"]]
        bt = node.get("parent")
    props = {p["name"]: p["value"] for p in test.get("properties", [])}
    wd = props.get("WORKING_DIRECTORY")
    if wd:
        f = folder_of(os.path.join(wd, "x"), build_dir, source_dir)
        if f:
            return f, "WORKING_DIRECTORY " + wd
    cmd = test.get("command") or []
    if cmd:
        f = folder_of(cmd[0], build_dir, source_dir)
        if f:
            return f, "executable " + cmd[0]
    return None, "no backtrace, working directory or executable inside tests/, fuzz/ or examples/"


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    ctest, build_dir, source_dir = argv[1], os.path.realpath(argv[2]), os.path.realpath(argv[3])
    out = subprocess.run([ctest, "--show-only=json-v1"], cwd=build_dir, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    data = json.loads(out)
    graph = data["backtraceGraph"]
    problems, seen, not_built, checked = [], set(), 0, 0
    for t in data["tests"]:
        name = t["name"]
        if name.endswith("_NOT_BUILT"):
            not_built += 1
            continue
        checked += 1
        why = []
        if not ALLOWED.match(name):
            bad = sorted(set(c for c in name if not re.match(r"[A-Za-z0-9_./-]", c)))
            why.append("characters outside [A-Za-z0-9_./-]: " + " ".join(repr(c) for c in bad))
        for rx, what in BYTE_DUMP:
            if rx.search(name):
                why.append(what)
        if BARE_INDEX.search(name):
            why.append("a bare parameter index: give INSTANTIATE_TEST_SUITE_P a name generator")
        folder, evidence = where_defined(t, graph, build_dir, source_dir)
        if folder is None:
            why.append(evidence)
        elif not name.startswith(folder + "."):
            why.append(f"lacks its folder prefix '{folder}.' (defined by {evidence})")
        if name in seen:
            why.append("listed twice")
        seen.add(name)
        if why:
            problems.append(f"  {name!r}: " + "; ".join(why))
    if checked == 0:
        print(f"test_names: no tests listed in {build_dir}", file=sys.stderr)
        return 1
    skipped = f", {not_built} <target>_NOT_BUILT placeholders skipped" if not_built else ""
    if problems:
        print(f"test_names: {len(problems)} of {checked} test names are unstable or misplaced{skipped}:")
        print("\n".join(problems))
        return 1
    print(f"test_names: all {checked} test names carry their folder prefix and no byte dump{skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
