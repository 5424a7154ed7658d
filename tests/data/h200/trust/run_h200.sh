#!/bin/sh
# How tests/data/h200/trust/*.capture.json were made (see README.md): each workload run by
# r2r-mode1-capture collect, i.e. `sh -c collect.sh` with the environment r2r.verifier.mode1-cuda
# gives the sandbox exec, the host sampler around it, as root on the H200 lease machine.
# usage: sh run_h200.sh /path/to/r2r-mode1-capture OUTDIR
set -u
BIN=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
run() {
  name=$1
  shift
  d=$(mktemp -d /tmp/wl.XXXXXX)
  cp "$HERE"/*.py "$d"/
  chmod 755 "$d"
  (cd "$d" && "$BIN" collect --vendor nvidia --command "$*" --timeout 600 --out "$OUT/$name.capture.json")
}
{ nvidia-smi pmon -c 1 -s u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; uname -r; } > "$OUT/env.txt" 2>&1
run honest "python3 honest.py 20"
run forged-probe "python3 forged_probe.py"
run nonce-inject "python3 nonce_inject.py"
run tiny-op "python3 tiny_op.py"
run cpu-cheat "python3 cpu_cheat_train.py --steps 100"
# Overhead: the same fixed GPU work bare and under the collector + host sampler.
N=${BENCH_N:-40000}
d=$(mktemp -d /tmp/wl.XXXXXX); cp "$HERE"/bench.py "$d"/; chmod 755 "$d"
{
  cd "$d"
  t0=$(date +%s.%N); python3 bench.py "$N"; t1=$(date +%s.%N)
  echo "bare_wall_seconds $(python3 -c "print(round($t1 - $t0, 3))")"
  t0=$(date +%s.%N)
  "$BIN" collect --vendor nvidia --command "python3 bench.py $N" --timeout 600 --out "$OUT/bench.capture.json"
  t1=$(date +%s.%N)
  echo "verified_wall_seconds $(python3 -c "print(round($t1 - $t0, 3))")"
} > "$OUT/bench.txt" 2>&1
