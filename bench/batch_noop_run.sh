#!/bin/sh
# SPDX-License-Identifier: MIT
# A no-op `repo2rocm run` for bench/batch_bench.sh: writes the run directory's verdict event and
# exits 0, with no other process started, so a batch's time is the engine's and the scheduler's.
while [ "$#" -gt 0 ]; do
  case "$1" in --run-dir) dir=$2; shift 2 ;; *) shift ;; esac
done
mkdir -p "$dir"
printf '{"event":"run_started","t":1,"mode":1}\n{"event":"verdict","t":1,"outcome":"verified","exit_code":0,"message":"no-op"}\n' >"$dir/events.jsonl"
