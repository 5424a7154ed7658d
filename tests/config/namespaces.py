#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One namespace scheme (docs/CONTRIBUTING.md "Rules").

Fails when a C/C++ file declares a namespace outside its area's root:
  plugins/, guards/, verifiers/   r2r::plugins::<kind>[::...]   (kind: the plugin id's kind word)
  core/, support/                 r2r::<area>[::...], never r2r::plugins::...
Each declaration is judged by its full name (the namespaces around it included), so the old nested
form `namespace r2r { namespace verify {` is caught as r2r::verify, and `namespace r2r {` alone is
caught too: write the C++17 form `namespace r2r::plugins::<kind> {`. Anonymous namespaces (internal
linkage) and aliases (`namespace fs = ...`) declare no scheme and are left alone.
sdk/ and plugin_api/ are not checked: the SDK (r2r::sdk) and the C ABI (no namespace) are what
out-of-tree plugins compile against, so their names are part of the published interface.
tests/ is not checked: test helpers may live in r2r::test.

usage: namespaces.py SOURCE_DIR [MIN]   (exit 0 clean, 1 with one FAIL line per declaration, or when
       fewer than MIN declarations were seen: the scan no longer finds them)
"""
import os
import re
import sys

RULES = [  # (directory, required prefix, forbidden prefix, what to write)
    ("plugins", "r2r::plugins::", None, "r2r::plugins::<kind>"),
    ("guards", "r2r::plugins::guard", None, "r2r::plugins::guard"),
    ("verifiers", "r2r::plugins::verifier", None, "r2r::plugins::verifier"),
    ("core", "r2r::", "r2r::plugins", "r2r::<area>"),
    ("support", "r2r::", "r2r::plugins", "r2r::<area>"),
]
EXTENSIONS = (".cpp", ".hpp", ".h", ".cc", ".c", ".inc")
DECL = re.compile(r"(?:^|[\s;}])(?:inline\s+)?namespace(?!\w)\s*((?:[A-Za-z_]\w*)?(?:\s*::\s*(?:inline\s+)?[A-Za-z_]\w*)*)\s*$")


def declarations(text):
    """Yields (line, full name) for each named namespace declaration outside anonymous ones."""
    stack = []  # per open brace: a namespace name ("" anonymous) or None for any other brace
    stmt = []  # code since the last { } ; with literals and comments left out
    i, line, n = 0, 1, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            at_line_start = True
            stmt.append(" ")
            i += 1
            continue
        if at_line_start and c == "#":  # preprocessor line, with its continuations
            while i < n and not (text[i] == "\n" and text[i - 1] != "\\"):
                if text[i] == "\n":
                    line += 1
                i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 24])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
            line += text.count("\n", i, end)
            stmt.append(" 0 ")
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            stmt.append(" 0 ")
            i = j + 1
            continue
        if c == "{":
            m = DECL.search("".join(stmt))
            if m:
                name = re.sub(r"\s+|inline\s+", "", m.group(1))
                outer = [s for s in stack if s is not None]
                if name and "" not in outer:
                    yield line, "::".join(outer + [name])
                stack.append(name)
            else:
                stack.append(None)
            stmt = []
        elif c == "}":
            if stack:
                stack.pop()
            stmt = []
        elif c == ";":
            stmt = []
        else:
            stmt.append(c)
        i += 1


def check(root):
    fails, seen = [], 0
    for directory, required, forbidden, write in RULES:
        base = os.path.join(root, directory)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for f in sorted(filenames):
                if not f.endswith(EXTENSIONS):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for line, name in declarations(text):
                    seen += 1
                    ok = (name + "::").startswith(required if required.endswith("::") else required + "::")
                    if ok and forbidden and (name + "::").startswith(forbidden + "::"):
                        ok = False
                    if not ok:
                        rel = os.path.relpath(path, root)
                        fails.append(f"FAIL: {rel}:{line} declares namespace {name}; files under {directory}/ "
                                     f"use {write} (docs/CONTRIBUTING.md), in the form `namespace {write} {{`")
    return fails, seen


def main():
    if len(sys.argv) not in (2, 3) or not os.path.isdir(sys.argv[1]):
        print("usage: namespaces.py SOURCE_DIR [MIN] (the repository root; MIN declarations at least)",
              file=sys.stderr)
        return 2
    fails, seen = check(sys.argv[1])
    minimum = int(sys.argv[2]) if len(sys.argv) == 3 else 0
    if seen < minimum:
        fails.append(f"FAIL: found only {seen} namespace declarations (expected {minimum} or more); "
                     "the scan no longer sees them")
    for f in fails:
        print(f)
    if fails:
        return 1
    print(f"ok: {seen} namespace declarations; plugins/, guards/, verifiers/ use r2r::plugins::<kind>, "
          "core/ and support/ r2r::<area>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
