#!/bin/bash
# SPDX-License-Identifier: MIT
# repo2rocm batch on r2r.scheduler.local with no-op runs (bench/batch_noop_run.sh):
#   bench/batch_bench.sh [JOBS] [GPUS]          (default 1000 jobs over 3 GPUs)
# Prints the batch's wall time, the no-op runner's own cost per run (measured alone), and the
# engine + scheduler overhead per job: (wall - runner cost x jobs / GPUs) / jobs x GPUs.
set -euo pipefail
jobs=${1:-1000}; gpus=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/default/bin/repo2rocm
noop=$root/bench/batch_noop_run.sh
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
{ echo repo; for i in $(seq 1 "$jobs"); do echo "https://example.org/bench/r$i.git"; done; } >"$T/m.csv"
list=$(seq -s, 0 $((gpus - 1)))
start=$(date +%s.%N)
for i in $(seq 1 100); do "$noop" --run-dir "$T/solo/$i" ; done
runner=$(echo "($(date +%s.%N) - $start) / 100" | bc -l)
start=$(date +%s.%N)
R2R_BATCH_RUNNER=$noop "$bin" batch "$T/m.csv" --gpus "$list" --out "$T/b" >/dev/null
wall=$(echo "$(date +%s.%N) - $start" | bc -l)
done_jobs=$(grep -c '"event":"job_finished"' "$T/b/events.jsonl")
overhead=$(echo "($wall - $runner * $jobs / $gpus) / $jobs * $gpus * 1000" | bc -l)
printf 'jobs %d (finished %d) over %d GPUs: wall %.2f s; no-op runner %.2f ms per run; engine+scheduler %.2f ms per job\n' \
  "$jobs" "$done_jobs" "$gpus" "$wall" "$(echo "$runner * 1000" | bc -l)" "$overhead"
