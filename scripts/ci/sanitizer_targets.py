#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints, one per line, the targets the sanitizer build needs to run the tests of some labels.

That is every target of BUILD except the test executables (targets named *_test) that no test of
the labels runs. Which executable each test runs is read from REFERENCE, a build of the same tree
whose tests are already discovered (gtest_discover_tests lists a test only once its executable is
built). Building only these keeps a sanitizer build of a few labels from compiling every test.

Usage: sanitizer_targets.py --reference build/default --build build/asan --labels 'loader|cli'
Exit status 2, with the reason on stderr, when the reference lists no test for the labels or a test
executable of the labels is not a target of BUILD (the two builds are then of different trees)."""
import argparse
import json
import os
import subprocess
import sys

RESERVED = {"all", "clean", "help", "test", "install", "edit_cache", "rebuild_cache",
            "list_install_components"}


def fail(message):
    print(f"sanitizer_targets: {message}", file=sys.stderr)
    sys.exit(2)


def label_executables(reference, labels):
    out = subprocess.run(["ctest", "--test-dir", reference, "-L", labels, "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    tests = json.loads(out).get("tests", [])
    if not tests:
        fail(f"no test in {reference} carries a label matching '{labels}'; build the reference "
             f"first (scripts/build.sh default) or check the labels")
    return {os.path.basename(t["command"][0]) for t in tests if t.get("command")}


def build_targets(build):
    out = subprocess.run(["cmake", "--build", build, "--target", "help"], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        name, sep, kind = line.partition(":")
        if sep and kind.strip() == "phony" and "/" not in name and not name.startswith("lib") \
                and name not in RESERVED:
            names.add(name)
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--labels", required=True)
    args = parser.parse_args()
    wanted = label_executables(args.reference, args.labels)
    targets = build_targets(args.build)
    missing = sorted(e for e in wanted if e.endswith("_test") and e not in targets)
    if missing:
        fail(f"test executables {missing} run by the labels are not targets of {args.build}; "
             f"configure both builds from the same tree")
    for name in sorted(targets):
        if not name.endswith("_test") or name in wanted:
            print(name)


if __name__ == "__main__":
    main()
