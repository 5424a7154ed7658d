#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Median round-trip of N trivial execs through r2r.sandbox.docker versus `docker exec` from the
# CLI, plus one checkpoint and one rollback, against a private dockerd under a temp directory
# (stopped by PID at exit). Usage: bench/sandbox_bench.sh [N] (default 100), after a build.
set -euo pipefail
n=${1:-100}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${R2R_BUILD_DIR:-$root/build/default}
T=$(mktemp -d /tmp/r2r-bench-XXXXXX)
cleanup() {
  [[ -f $T/dockerd.pid ]] && kill "$(cat "$T/dockerd.pid")" 2>/dev/null && sleep 2
  rm -rf "$T"
}
trap cleanup EXIT
dockerd --data-root "$T/data" --exec-root "$T/exec" --pidfile "$T/dockerd.pid" -H "unix://$T/docker.sock" \
  --storage-driver=overlay2 --iptables=false --bridge=none >"$T/dockerd.log" 2>&1 &
export DOCKER_HOST=unix://$T/docker.sock
for _ in $(seq 100); do docker version >/dev/null 2>&1 && break; sleep 0.1; done
mkdir -p "$T/r/bin" "$T/r/tmp" "$T/r/etc" "$T/r/workspace"
cp /bin/busybox "$T/r/bin/"
for c in sh echo cat ls sleep true mkdir rm; do ln -s busybox "$T/r/bin/$c"; done
tar -C "$T/r" -c . | docker import -c 'ENV PATH=/bin' - local/busybox >/dev/null

echo "plugin:"
"$build/bin/r2r-sandbox-bench" "$build/lib/r2r/plugins/libr2r-sandbox-docker.so" "$T/docker.sock" local/busybox "$n"

docker run -d --name r2r-bench-cli --network none local/busybox sh -c 'while :; do sleep 3600; done' >/dev/null
times=()
for _ in $(seq "$n"); do
  s=$(date +%s%N); docker exec r2r-bench-cli true; e=$(date +%s%N)
  times+=($(((e - s) / 1000)))
done
docker rm -f r2r-bench-cli >/dev/null
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
echo "docker exec CLI: median $((sorted[n / 2] / 1000)).$(printf '%03d' $((sorted[n / 2] % 1000))) ms," \
     "min $((sorted[0] / 1000)) ms, max $((sorted[n - 1] / 1000)) ms over $n"
