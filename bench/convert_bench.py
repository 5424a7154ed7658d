#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Conversion throughput on a generated CUDA corpus (bench/README.md records the results).

Usage: bench/convert_bench.py [--megabytes 50] [--build build/default] [--repeat 3] [--keep DIR]

1. writes a synthetic CUDA project (bench/gen_cuda_corpus.py) into a temporary directory;
2. runs r2r-bench-convert on it: the engine in one thread, files already in memory, per phase
   (hipify, diff, hazard scan), best of --repeat runs;
3. runs `repo2rocm port` on it with tests/convert/port_test_pipeline.json (hipify + hazards, no
   build check) and reports its wall time and peak resident memory: the whole command, with the
   tree copy, plugin calls through the C ABI, JSON transport and schema checks, and the outputs;
4. runs hipify-perl on the same files when it is installed (it is not packaged for Debian 12),
   for a comparison; otherwise says so.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, **kw):
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return p, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=50.0)
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "default"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", help="write the corpus and outputs here and keep them")
    args = parser.parse_args()
    bench_exe = os.path.join(args.build, "bin", "r2r-bench-convert")
    repo2rocm = os.path.join(args.build, "bin", "repo2rocm")
    for exe in (bench_exe, repo2rocm):
        if not os.access(exe, os.X_OK):
            sys.exit(f"{exe} is missing: build first (cmake --build --preset default)")

    work = args.keep or tempfile.mkdtemp(prefix="r2r-convert-bench-")
    try:
        corpus = os.path.join(work, "corpus")
        if os.path.exists(corpus):
            shutil.rmtree(corpus)
        p, _ = run([sys.executable, os.path.join(HERE, "gen_cuda_corpus.py"), corpus, "--megabytes",
                    str(args.megabytes)])
        print(p.stdout.strip())
        if p.returncode != 0:
            sys.exit(p.stderr)

        print(f"\n== engine, one thread, in memory (best of {args.repeat})")
        best = None
        for _ in range(args.repeat):
            p, _ = run([bench_exe, corpus])
            if p.returncode != 0:
                sys.exit(p.stderr)
            total = [line for line in p.stdout.splitlines() if line.startswith("total")][0]
            seconds = float(total.split()[1])
            if best is None or seconds < best[0]:
                best = (seconds, p.stdout)
        print(best[1].rstrip())

        print("\n== repo2rocm port (hipify + hazards, no build check), whole command")
        out = os.path.join(work, "port")
        if os.path.exists(out):
            shutil.rmtree(out)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        p, seconds = run([repo2rocm, "port", corpus, "--out", out, "--pipeline",
                          os.path.join(ROOT, "tests", "convert", "port_test_pipeline.json")])
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        if p.returncode != 0:
            sys.exit(p.stdout + p.stderr)
        print(p.stdout.rstrip())
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(corpus) for f in fs)
        files = sum(len(fs) for _, _, fs in os.walk(corpus))
        print(f"port: {seconds:.2f} s wall, {size / 1e6 / seconds:.1f} MB/s, {files / seconds:.0f} files/s, "
              f"peak RSS {max(peak, before) / 1024:.1f} MiB")

        tool = shutil.which("hipify-perl") or shutil.which("hipify-perl", path="/opt/rocm/bin")
        print("\n== hipify-perl")
        if not tool:
            print("hipify-perl is not installed here (ROCm images ship it in /opt/rocm/bin; Debian 12 does not "
                  "package it): no comparison was run")
        else:
            start = time.monotonic()
            n = 0
            for d, _, fs in os.walk(corpus):
                for f in fs:
                    subprocess.run([tool, os.path.join(d, f)], capture_output=True)
                    n += 1
            seconds = time.monotonic() - start
            print(f"hipify-perl ({tool}): {n} files in {seconds:.2f} s, {size / 1e6 / seconds:.1f} MB/s, "
                  f"{n / seconds:.1f} files/s")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
