#!/bin/sh
# Verification overhead on the H200 (bench/README.md): the same fixed GPU work (bench.py N) bare,
# under the collector + host sampler with the in-process profiler off (--profile 0, what the
# collector and sampler themselves cost), and with it on (the verifier's default).
# usage: sh run_bench.sh /path/to/r2r-mode1-capture OUTDIR
set -u
BIN=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
N=${BENCH_N:-40000}
d=$(mktemp -d /tmp/wl.XXXXXX)
cp "$HERE"/bench.py "$d"/
chmod 755 "$d"
cd "$d"
now() { python3 -c 'import time; print(time.time())'; }
{
  for round in 1 2; do
    t0=$(now); python3 bench.py "$N"; t1=$(now)
    echo "bare_wall_seconds $(python3 -c "print(round($t1 - $t0, 3))")"
    t0=$(now)
    "$BIN" collect --vendor nvidia --command "python3 bench.py $N" --timeout 600 --profile 0 --out "$OUT/bench-noprofile-$round.capture.json"
    t1=$(now)
    echo "collector_sampler_wall_seconds $(python3 -c "print(round($t1 - $t0, 3))")"
  done
} > "$OUT/bench.txt" 2>&1
