#!/bin/sh
# SPDX-License-Identifier: MIT
# Every shipped pipeline (configs/pipelines/*.json) validates against the pipeline schema and the
# plugins' own schemas, with `extends` resolved; the run pipelines (run.json and the files that
# extend it) must also be able to drive `repo2rocm run`.
# usage: validate_pipelines.sh REPO2ROCM PLUGIN_DIR PIPELINE_DIR
set -u
exe=$1 plugins=$2 dir=$3
status=0
count=0
for file in "$dir"/*.json; do
  count=$((count + 1))
  out=$("$exe" --plugin-path "$plugins" validate --json "$file" 2>&1)
  if ! printf '%s' "$out" | grep -q '"ok": true'; then
    echo "FAIL: $file does not validate:"
    printf '%s\n' "$out"
    status=1
    continue
  fi
  if [ "$(basename "$file")" = run.json ] || grep -q '"extends": "run.json"' "$file"; then
    if ! printf '%s' "$out" | grep -q '"runnable": true'; then
      echo "FAIL: $file is a run pipeline but cannot drive a run:"
      printf '%s\n' "$out"
      status=1
      continue
    fi
  fi
  echo "ok: $file"
done
if [ "$count" -eq 0 ]; then
  echo "FAIL: no pipeline files under $dir"
  exit 1
fi
exit $status
