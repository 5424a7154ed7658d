#!/bin/sh
# Verification overhead on the H200 (bench/README.md): the same fixed GPU work (bench.py N) bare,
# under the collector + host sampler with the in-process profiler off (--profile 0, what the
# collector and sampler themselves cost), or with PROFILE=1 the in-process profiler forced on (the
# path a plan with accelerator-critical kernels takes on NVIDIA).
# usage: [PROFILE=0|1] sh run_bench.sh /path/to/r2r-mode1-capture OUTDIR
set -u
BIN=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
N=${BENCH_N:-40000}
P=${PROFILE:-0}
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
    "$BIN" collect --vendor nvidia --command "python3 bench.py $N" --timeout 600 --profile "$P" --out "$OUT/bench-profile$P-$round.capture.json"
    t1=$(now)
    echo "verified_profile${P}_wall_seconds $(python3 -c "print(round($t1 - $t0, 3))")"
  done
} > "$OUT/bench-profile$P.txt" 2>&1
