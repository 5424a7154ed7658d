#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a PEP 503 "simple" package index of two tiny wheels into DIR, for the sandbox network
tests: r2r-app 1.0 depends on r2r-base 1.0, so `pip install r2r-app` must fetch both from the index.
The wheels are written with zipfile (PEP 427 layout, RECORD with sha256), so no network and no
build backend are needed. Usage: make_package_index.py DIR"""
import base64
import hashlib
import os
import sys
import zipfile


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(out_dir: str, name: str, module_source: str, requires: list) -> str:
    dist = name.replace("-", "_")
    filename = f"{dist}-1.0-py3-none-any.whl"
    info = f"{dist}-1.0.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    files = {
        f"{dist}/__init__.py": module_source,
        f"{info}/METADATA": metadata,
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: r2r-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/top_level.txt": f"{dist}\n",
    }
    record = ""
    path = os.path.join(out_dir, filename)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, text in files.items():
            data = text.encode()
            z.writestr(arcname, data)
            record += f"{arcname},{record_hash(data)},{len(data)}\n"
        record += f"{info}/RECORD,,\n"
        z.writestr(f"{info}/RECORD", record)
    return filename


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: make_package_index.py DIR", file=sys.stderr)
        return 2
    root = sys.argv[1]
    packages = os.path.join(root, "packages")
    os.makedirs(packages, exist_ok=True)
    wheels = {
        "r2r-base": write_wheel(packages, "r2r-base", "VALUE = 'base-ok'\n", []),
        "r2r-app": write_wheel(
            packages, "r2r-app", "from r2r_base import VALUE as BASE\nVALUE = 'app-ok+' + BASE\n", ["r2r-base==1.0"]
        ),
    }
    simple = os.path.join(root, "simple")
    os.makedirs(simple, exist_ok=True)
    links = ""
    for project, filename in wheels.items():
        with open(os.path.join(packages, filename), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        os.makedirs(os.path.join(simple, project), exist_ok=True)
        with open(os.path.join(simple, project, "index.html"), "w") as f:
            f.write(
                "<!DOCTYPE html>\n<html><body>\n"
                f'<a href="../../packages/{filename}#sha256={digest}">{filename}</a>\n'
                "</body></html>\n"
            )
        links += f'<a href="{project}/">{project}</a>\n'
    with open(os.path.join(simple, "index.html"), "w") as f:
        f.write("<!DOCTYPE html>\n<html><body>\n" + links + "</body></html>\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
