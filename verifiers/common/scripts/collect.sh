# SPDX-License-Identifier: MIT
# repo2rocm Mode 1 evidence collection, run by the verifier through the sandbox service as one
# `sh -c` command. Inputs come as environment variables (never spliced into the script text):
#   R2R_VENDOR         amd | nvidia
#   R2R_WORKLOAD_CMD   the plan's workload command, run with `sh -c` in the exec's working directory
#   R2R_NONCE          per-run random token that delimits the output sections
#   R2R_TIMEOUT_S      workload wall-clock limit (seconds)
#   R2R_INTERVAL_S     GPU process sampling period (seconds)
#   R2R_TRACER         auto | rocprofv3 | rocprof | none   (amd only)
#   R2R_PROBE_PROFILE  1: the in-process probe records device kernels with torch.profiler
#   R2R_MAX_ROWS       kernel-trace rows copied back
#   R2R_MAX_LOG_BYTES  workload log bytes copied back (the tail)
#   R2R_PROBE_SOURCE   the probe (sitecustomize.py) text
# Output: sections "@@R2R-<nonce> <name> [<file>]" on stdout; the workload log is always last, so
# nothing the workload prints can open an earlier section. No device: only the device sections.
set +e
N="$R2R_NONCE"
sec() { printf '\n@@R2R-%s %s\n' "$N" "$*"; }
EV=$(mktemp -d /tmp/r2r-verify.XXXXXX 2>/dev/null || echo "/tmp/r2r-verify.$$")
mkdir -p "$EV/py" "$EV/probe" "$EV/trace"
trap 'rm -rf "$EV"' EXIT
DEV=0

# --- device -----------------------------------------------------------------------------------
sec tools
for t in rocminfo rocprofv3 rocprof rocm-smi amd-smi nvidia-smi timeout python3 python; do
  p=$(command -v "$t" 2>/dev/null || { [ -x "/opt/rocm/bin/$t" ] && echo "/opt/rocm/bin/$t"; })
  [ -n "$p" ] && echo "$t $p"
done
tool() { command -v "$1" 2>/dev/null || { [ -x "/opt/rocm/bin/$1" ] && echo "/opt/rocm/bin/$1"; }; }
if [ "$R2R_VENDOR" = amd ]; then
  sec device_nodes
  ls -l /dev/kfd /dev/dri 2>&1 | head -n 40
  RI=$(tool rocminfo)
  sec rocminfo
  if [ -n "$RI" ] && [ -e /dev/kfd ]; then
    "$RI" > "$EV/rocminfo.txt" 2>&1
    head -c 400000 "$EV/rocminfo.txt"
    grep -Eq 'Device Type:[[:space:]]+GPU' "$EV/rocminfo.txt" && DEV=1
  fi
else
  sec device_nodes
  ls -l /dev/nvidia* 2>&1 | head -n 40
  NS=$(tool nvidia-smi)
  sec query_gpu
  if [ -n "$NS" ]; then
    "$NS" --query-gpu=index,name,uuid,driver_version,memory.used --format=csv > "$EV/gpus.csv" 2>&1
    head -c 100000 "$EV/gpus.csv"
    grep -q '^index' "$EV/gpus.csv" && [ "$(grep -c . "$EV/gpus.csv")" -ge 2 ] && DEV=1
  fi
fi
sec device_end
[ "$DEV" = 1 ] || exit 0  # no device: the workload is not run (the verifier answers no_device)

# --- workload ---------------------------------------------------------------------------------
printf '%s' "$R2R_PROBE_SOURCE" > "$EV/py/sitecustomize.py"
TRACER=none
if [ "$R2R_VENDOR" = amd ]; then
  case "${R2R_TRACER:-auto}" in
    auto) if [ -n "$(tool rocprofv3)" ]; then TRACER=rocprofv3; elif [ -n "$(tool rocprof)" ]; then TRACER=rocprof; fi ;;
    rocprofv3|rocprof) [ -n "$(tool "$R2R_TRACER")" ] && TRACER=$R2R_TRACER ;;
  esac
fi
TO=$(tool timeout)
run_workload() {
  unset R2R_PROBE_SOURCE R2R_NONCE
  export R2R_PROBE_DIR="$EV/probe" PYTHONPATH="$EV/py${PYTHONPATH:+:$PYTHONPATH}"
  case "$TRACER" in
    rocprofv3) set -- "$(tool rocprofv3)" --kernel-trace --stats --output-format csv -d "$EV/trace" -o run -- sh -c "$R2R_WORKLOAD_CMD" ;;
    rocprof) set -- "$(tool rocprof)" --stats --hip-trace -o "$EV/trace/results.csv" sh -c "$R2R_WORKLOAD_CMD" ;;
    *) set -- sh -c "$R2R_WORKLOAD_CMD" ;;
  esac
  if [ -n "$TO" ]; then exec "$TO" -k 10 "${R2R_TIMEOUT_S:-3600}" "$@"; else exec "$@"; fi
}
# The process tree under $1, from /proc (no ps in minimal images).
tree() {
  root=$1
  for s in /proc/[0-9]*/stat; do
    l=$(cat "$s" 2>/dev/null) || continue
    p=${s#/proc/}; p=${p%/stat}; r=${l##*) }
    set -- $r
    echo "$p $2"
  done 2>/dev/null | awk -v root="$root" '{ par[$1] = $2 }
    END { keep[root] = 1; more = 1
          while (more) { more = 0; for (p in par) if (!(p in keep) && (par[p] in keep)) { keep[p] = 1; more = 1 } }
          for (p in keep) printf "%s ", p }'
}
sample() {
  if [ "$R2R_VENDOR" = amd ]; then
    if [ -n "$(tool rocm-smi)" ]; then echo "### tool rocm-smi"; "$(tool rocm-smi)" --showpids 2>&1 | head -c 65536
    elif [ -n "$(tool amd-smi)" ]; then echo "### tool amd-smi"; "$(tool amd-smi)" process --csv 2>&1 | head -c 65536; fi
  elif [ -n "$(tool nvidia-smi)" ]; then
    echo "### tool nvidia-smi"
    "$(tool nvidia-smi)" --query-compute-apps=pid,process_name,used_memory --format=csv 2>&1 | head -c 65536
  fi
}
START=$(date +%s)
run_workload > "$EV/workload.log" 2>&1 &
WPID=$!
: > "$EV/samples.txt"
n=0
while kill -0 "$WPID" 2>/dev/null && [ "$n" -lt 100000 ]; do
  { echo "### sample $n $(date +%s)"; echo "### tree $(tree "$WPID")"; sample; } >> "$EV/samples.txt" 2>&1
  n=$((n + 1))
  sleep "${R2R_INTERVAL_S:-1}"
done
wait "$WPID"
RC=$?
END=$(date +%s)

sec exit
echo "$RC $((END - START)) $WPID"
sec tracer
echo "$TRACER"
for f in "$EV"/probe/*.json; do [ -f "$f" ] && { sec probe "${f##*/}"; head -c 2000000 "$f"; }; done
for f in $(find "$EV/trace" -type f -name '*.csv' 2>/dev/null | sort); do
  case "$f" in
    *kernel_trace.csv|*/results.csv) sec trace "${f##*/}"; head -n "${R2R_MAX_ROWS:-5000}" "$f" ;;
    *kernel_stats.csv|*results.stats.csv|*agent_info.csv) sec trace "${f##*/}"; head -c 2000000 "$f" ;;
  esac
done
sec samples
tail -c 1000000 "$EV/samples.txt"
sec log
tail -c "${R2R_MAX_LOG_BYTES:-65536}" "$EV/workload.log"
