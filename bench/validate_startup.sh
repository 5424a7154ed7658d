#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Whole-process time of `repo2rocm validate` on the default pipeline (every plugin on the path
# loaded, pre-flighted, ABI-checked, schemas compiled, configs validated). Prints the median,
# minimum and maximum of N runs in milliseconds.
# Usage: bench/validate_startup.sh [RUNS] [REPO2ROCM] [PIPELINE]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-51}
exe=${2:-build/default/bin/repo2rocm}
pipeline=${3:-configs/pipelines/default.json}
"$exe" validate "$pipeline" >/dev/null  # warm the page cache
times=()
for ((i = 0; i < runs; i++)); do
  start=$(date +%s%N)
  "$exe" validate "$pipeline" >/dev/null
  end=$(date +%s%N)
  times+=($(((end - start) / 1000)))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
median=${sorted[$((runs / 2))]}
printf 'repo2rocm validate %s: runs=%d median=%d.%03d ms min=%d.%03d ms max=%d.%03d ms\n' "$pipeline" "$runs" \
  $((median / 1000)) $((median % 1000)) $((sorted[0] / 1000)) $((sorted[0] % 1000)) \
  $((sorted[runs - 1] / 1000)) $((sorted[runs - 1] % 1000))
"$exe" validate "$pipeline"
