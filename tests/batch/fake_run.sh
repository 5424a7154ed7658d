#!/bin/sh
# SPDX-License-Identifier: MIT
# A stand-in for `repo2rocm run` in the scheduler tests and benchmarks (R2R_BATCH_RUNNER): takes the
# same arguments, writes the run directory's events.jsonl (run_started ... verdict) and an
# execute/trajectory.jsonl with LLM usage, and exits with run's exit codes. Behaviour by SOURCE:
#   *notverified*  exit 3, verdict not_verified with a failed check
#   *oom-once*     first attempt killed by SIGKILL (an OOM kill), then verified
#   *usd=X*        the run spent X USD and 1000 tokens per turn (3 turns)
#   *slow*         runs 1 s longer
#   otherwise      verified (mode 0: baseline_ran)
# R2R_FAKE_RUN_SLEEP seconds are spent "running"; every invocation appends to RUN_DIR/invocations.
while [ "$#" -gt 0 ]; do
  case "$1" in
    --run-dir) dir=$2; shift 2 ;;
    --gpu) gpu=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --plugin-path|--log-level|--commit|--arch|--pipeline) shift 2 ;;
    run|--json) shift ;;
    *) src=$1; shift ;;
  esac
done
mkdir -p "$dir/execute"
echo "gpu=$gpu pid=$$ start=$(date +%s.%N)" >> "$dir/invocations"
t() { date +%s.%N | cut -c1-14; }
printf '{"event":"run_started","t":%s,"source":"%s","mode":%s,"gpu":"gfx942","gpu_index":"%s"}\n' "$(t)" "$src" "${mode:-1}" "$gpu" >> "$dir/events.jsonl"
printf '{"source":"%s","commit":"","mode":%s}\n' "$src" "${mode:-1}" > "$dir/run.json"
sleep "${R2R_FAKE_RUN_SLEEP:-0}"
case "$src" in *slow*) sleep 1 ;; esac
case "$src" in
  *oom-once*)
    if [ ! -e "$dir/oom-done" ]; then : > "$dir/oom-done"; kill -9 $$; fi ;;
esac
usd=0
case "$src" in *usd=*) usd=${src##*usd=}; usd=${usd%.git}; usd=${usd%%[!0-9.]*} ;; esac
if [ "$usd" != 0 ]; then
  for i in 1 2 3; do
    printf '{"turn":%s,"usage":{"input_tokens":800,"output_tokens":200,"cost_usd":%s}}\n' "$i" "$(awk "BEGIN{print $usd/3}")" >> "$dir/execute/trajectory.jsonl"
  done
fi
case "$src" in
  *notverified*)
    printf '{"event":"verdict","t":%s,"outcome":"not_verified","exit_code":3,"message":"not verified","details":{"failed_checks":["r2r.verifier.mode1-rocm.device: no kernel ran on the GPU"]}}\n' "$(t)" >> "$dir/events.jsonl"
    exit 3 ;;
esac
if [ "${mode:-1}" = 0 ]; then outcome=baseline_ran; else outcome=verified; fi
printf '{"event":"verdict","t":%s,"outcome":"%s","exit_code":0,"message":"ok","details":{"failed_checks":[]}}\n' "$(t)" "$outcome" >> "$dir/events.jsonl"
exit 0
