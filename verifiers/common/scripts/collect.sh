# SPDX-License-Identifier: MIT
# repo2rocm Mode 1 evidence collection, run by the verifier through the sandbox service as one
# `sh -c` command. Inputs come as environment variables (never spliced into the script text); none
# of them is secret, because the workload inherits a copy of this environment:
#   R2R_VENDOR         amd | nvidia
#   R2R_WORKLOAD_CMD   the plan's workload command, run with `sh -c` in the exec's working directory
#   R2R_WORKLOAD_UID   the unprivileged uid the workload runs as (default 65534)
#   R2R_TIMEOUT_S      workload wall-clock limit (seconds)
#   R2R_INTERVAL_S     GPU process sampling period (seconds)
#   R2R_TRACER         auto | rocprofv3 | rocprof | none   (amd only)
#   R2R_PROBE_PROFILE  1 | 0 | auto: the in-process probe records device kernels with torch.profiler;
#                      auto: only when R2R_NEED_KERNEL_NAMES=1 and no kernel tracer runs
#   R2R_NEED_KERNEL_NAMES 1: the plan names accelerator-critical kernels (builds, flash attention)
#   R2R_MAX_ROWS       kernel-trace rows copied back
#   R2R_MAX_LOG_BYTES  workload log bytes copied back (the tail)
#   R2R_PROBE_SOURCE   the probe (sitecustomize.py) text
#
# TRUST BOUNDARY. The collector runs as root; the workload runs as R2R_WORKLOAD_UID with no new
# privileges, stdin from /dev/null, stdout/stderr into a file and no other descriptor. Everything
# the collector writes goes to a root-owned 0700 directory the workload cannot read, and nothing is
# printed until every process of the workload's uid has been killed. Only then is the fence drawn
# from /dev/urandom: the first stdout line is "@@R2R-FENCE <fence>" and every section header is
# "@@R2R-<fence> <name> [<args>]". No process of the workload existed after the fence was drawn,
# so nothing it wrote can carry it. Without root or a privilege-drop tool the workload still runs,
# and the "privdrop" section says why the evidence cannot pass.
# Probe and tracer files are written by the workload (in-process evidence): they are copied with
# their size (a truncated copy is visible) and never as symbolic links.
set +e
umask 077
EV=$(mktemp -d /tmp/r2r-verify.XXXXXX 2>/dev/null) || { EV="/tmp/r2r-verify.$$.$(date +%s)"; mkdir -m 700 "$EV" || exit 70; }
chmod 700 "$EV"
WUID=${R2R_WORKLOAD_UID:-65534}
WD=""
cleanup() { rm -rf "$EV" ${WD:+"$WD"}; }
trap cleanup EXIT
# Section k: its header words in $EV/h.k, its body in $EV/b.k; assembled only at the end.
K=0
sec() { K=$((K + 1)); printf '%s\n' "$*" > "$EV/h.$K"; : > "$EV/b.$K"; }
emit() { cat >> "$EV/b.$K"; }
tool() { command -v "$1" 2>/dev/null || { [ -x "/opt/rocm/bin/$1" ] && echo "/opt/rocm/bin/$1"; }; }
DEV=0

# --- device -----------------------------------------------------------------------------------
sec collector 2 "$(id -u 2>/dev/null)"
sec tools
for t in rocminfo rocprofv3 rocprof rocm-smi amd-smi nvidia-smi timeout python3 python setpriv; do
  p=$(tool "$t")
  [ -n "$p" ] && echo "$t $p"
done | emit
if [ "$R2R_VENDOR" = amd ]; then
  sec device_nodes
  ls -l /dev/kfd /dev/dri 2>&1 | head -n 40 | emit
  RI=$(tool rocminfo)
  sec rocminfo
  if [ -n "$RI" ] && [ -e /dev/kfd ]; then
    "$RI" > "$EV/rocminfo.txt" 2>&1
    head -c 400000 "$EV/rocminfo.txt" | emit
    grep -Eq 'Device Type:[[:space:]]+GPU' "$EV/rocminfo.txt" && DEV=1
  fi
else
  sec device_nodes
  ls -l /dev/nvidia* 2>&1 | head -n 40 | emit
  NS=$(tool nvidia-smi)
  sec query_gpu
  if [ -n "$NS" ]; then
    "$NS" --query-gpu=index,name,uuid,driver_version,memory.used --format=csv > "$EV/gpus.csv" 2>&1
    head -c 100000 "$EV/gpus.csv" | emit
    grep -q '^index' "$EV/gpus.csv" && [ "$(grep -c . "$EV/gpus.csv")" -ge 2 ] && DEV=1
  fi
fi
sec device_end
fence_and_print() {
  F=$(od -An -N16 -tx1 /dev/urandom 2>/dev/null | tr -d ' \n')
  [ -n "$F" ] || F="$(date +%s%N)$$"
  printf '@@R2R-FENCE %s\n' "$F"
  k=1
  while [ "$k" -le "$K" ]; do
    printf '\n@@R2R-%s %s\n' "$F" "$(cat "$EV/h.$k")"
    cat "$EV/b.$k"
    k=$((k + 1))
  done
}
if [ "$DEV" != 1 ]; then fence_and_print; exit 0; fi  # no device: the workload is not run

# --- privilege drop -----------------------------------------------------------------------------
# The device nodes' groups are the only supplementary groups the workload gets.
GROUPS_=""
for d in /dev/kfd /dev/dri/renderD* /dev/nvidia*; do
  [ -e "$d" ] || continue
  g=$(stat -c %g "$d" 2>/dev/null) || continue
  case ",$GROUPS_," in *",$g,"*) ;; *) GROUPS_="${GROUPS_:+$GROUPS_,}$g" ;; esac
done
[ -n "$GROUPS_" ] || GROUPS_=$WUID
DROP=""
WHY=""
if [ "$(id -u 2>/dev/null)" != 0 ]; then
  WHY="the collector runs as uid $(id -u 2>/dev/null), not root: it cannot run the workload as another user"
elif [ "$WUID" = 0 ] || ! [ "$WUID" -gt 0 ] 2>/dev/null; then
  WHY="R2R_WORKLOAD_UID must be a non-zero uid, found '$WUID'"
elif [ -n "$(tool setpriv)" ] && "$(tool setpriv)" --reuid="$WUID" --regid="$WUID" --groups="$GROUPS_" --no-new-privs --inh-caps=-all true 2>/dev/null; then
  DROP="setpriv $(tool setpriv)"
else
  PY=$(tool python3)
  if [ -n "$PY" ] && "$PY" -c 'import ctypes,os,sys; g=[int(x) for x in sys.argv[2].split(",")]; u=int(sys.argv[1]); os.setgroups(g); os.setresgid(u,u,u); os.setresuid(u,u,u); assert ctypes.CDLL(None,use_errno=True).prctl(38,1,0,0,0)==0; os.execvp("true",["true"])' "$WUID" "$GROUPS_" 2>/dev/null; then
    DROP="python3 $PY"
  else
    WHY="no privilege-drop tool works in this image (setpriv from util-linux, or python3 with os.setresuid): install util-linux"
  fi
fi
sec privdrop
if [ -n "$DROP" ]; then echo "ok $WUID $GROUPS_ $DROP"; else echo "none $WHY"; fi | emit
as_workload() {
  case "$DROP" in
    setpriv*) exec "$(tool setpriv)" --reuid="$WUID" --regid="$WUID" --groups="$GROUPS_" --no-new-privs --inh-caps=-all "$@" ;;
    python3*) exec "$PY" -c 'import ctypes,os,sys; g=[int(x) for x in sys.argv[2].split(",")]; u=int(sys.argv[1]); os.setgroups(g); os.setresgid(u,u,u); os.setresuid(u,u,u); assert ctypes.CDLL(None,use_errno=True).prctl(38,1,0,0,0)==0; os.execvp(sys.argv[3],sys.argv[3:])' "$WUID" "$GROUPS_" "$@" ;;
    *) exec "$@" ;;
  esac
}

# --- workload -----------------------------------------------------------------------------------
# WD holds what the workload itself writes (probe, tracer output, HOME): workload-owned, in-process.
WD=$(mktemp -d /tmp/r2r-workload.XXXXXX 2>/dev/null) || WD="/tmp/r2r-workload.$$"
mkdir -p "$WD/py" "$WD/probe" "$WD/trace" "$WD/home"
printf '%s' "$R2R_PROBE_SOURCE" > "$WD/py/sitecustomize.py"
chmod 755 "$WD" "$WD/py"; chmod 644 "$WD/py/sitecustomize.py"
if [ -n "$DROP" ]; then
  chown "$WUID:$WUID" "$WD/probe" "$WD/trace" "$WD/home"
  case "$PWD" in  # the workload writes in its working directory; never a system directory
    /|/bin*|/boot*|/dev*|/etc*|/lib*|/proc*|/root|/sbin*|/sys*|/usr*|/var) ;;
    *) chown -R "$WUID:$WUID" "$PWD" 2>/dev/null ;;
  esac
  sleep 1  # files chowned here get a ctime before START; a file the workload writes gets one after
fi
TRACER=none
if [ "$R2R_VENDOR" = amd ]; then
  case "${R2R_TRACER:-auto}" in
    auto) if [ -n "$(tool rocprofv3)" ]; then TRACER=rocprofv3; elif [ -n "$(tool rocprof)" ]; then TRACER=rocprof; fi ;;
    rocprofv3|rocprof) [ -n "$(tool "$R2R_TRACER")" ] && TRACER=$R2R_TRACER ;;
  esac
fi
# The profiler costs time at the workload's exit: it runs only where kernel names are needed and
# no tracer gives them.
case "${R2R_PROBE_PROFILE:-auto}" in
  1) PROFILE=1; PWHY="on: configured" ;;
  0) PROFILE=0; PWHY="off: configured" ;;
  *) if [ "$R2R_NEED_KERNEL_NAMES" != 1 ]; then PROFILE=0; PWHY="off: auto, the plan names no accelerator-critical kernels"
     elif [ "$TRACER" != none ]; then PROFILE=0; PWHY="off: auto, the $TRACER tracer records kernel names"
     else PROFILE=1; PWHY="on: auto, the plan names accelerator-critical kernels and no tracer runs"; fi ;;
esac
sec profiler
echo "$PWHY" | emit
TO=$(tool timeout)
run_workload() {
  unset R2R_PROBE_SOURCE R2R_NEED_KERNEL_NAMES
  export R2R_PROBE_PROFILE="$PROFILE"
  export R2R_PROBE_DIR="$WD/probe" PYTHONPATH="$WD/py${PYTHONPATH:+:$PYTHONPATH}" HOME="$WD/home"
  case "$TRACER" in
    rocprofv3) set -- "$(tool rocprofv3)" --kernel-trace --stats --output-format csv -d "$WD/trace" -o run -- sh -c "$R2R_WORKLOAD_CMD" ;;
    rocprof) set -- "$(tool rocprof)" --stats --hip-trace -o "$WD/trace/results.csv" sh -c "$R2R_WORKLOAD_CMD" ;;
    *) set -- sh -c "$R2R_WORKLOAD_CMD" ;;
  esac
  if [ -n "$TO" ]; then as_workload "$TO" -k 10 "${R2R_TIMEOUT_S:-3600}" "$@"; else as_workload "$@"; fi
}
# "pid ppid uid" of every process, from /proc (no ps in minimal images).
procs() {
  { stat -c 'U %n %u' /proc/[0-9]* 2>/dev/null; cat /proc/[0-9]*/stat 2>/dev/null; } | awk '
    $1 == "U" { sub("/proc/", "", $2); uid[$2] = $3; next }
    { p = $1; s = $0; sub(/.*\) /, "", s); split(s, f, " "); par[p] = f[2] }
    END { for (p in par) print p, par[p], ((p in uid) ? uid[p] : -1) }'
}
# The process tree under $1 as "pid:uid" words.
tree() {
  procs | awk -v root="$1" '{ par[$1] = $2; uid[$1] = $3 }
    END { keep[root] = 1; more = 1
          while (more) { more = 0; for (p in par) if (!(p in keep) && (par[p] in keep)) { keep[p] = 1; more = 1 } }
          for (p in keep) if (p in uid) printf "%s:%s ", p, uid[p] }'
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
sec pidns
readlink /proc/self/ns/pid 2>&1 | emit
START=$(date +%s)
run_workload < /dev/null > "$EV/workload.log" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
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
# Every process of the workload's uid is killed before anything is printed.
KILLED=0
if [ -n "$DROP" ]; then
  r=0
  while [ "$r" -lt 50 ]; do
    left=$(procs | awk -v u="$WUID" '$3 == u { printf "%s ", $1 }')
    [ -z "$left" ] && break
    kill -9 $left 2>/dev/null
    KILLED=$((KILLED + $(echo $left | wc -w)))
    r=$((r + 1))
    sleep 0.1
  done
  left=$(procs | awk -v u="$WUID" '$3 == u { printf "%s ", $1 }')
fi

sec exit
echo "$RC $((END - START)) $WPID $START $END" | emit
sec sweep
echo "$KILLED ${left:+left $left}" | emit
sec tracer
echo "$TRACER" | emit
copy() {  # copy <section> <file> <max-bytes>: "<section> <name> <size>" then the head of the file
  sz=$(wc -c < "$2" | tr -d ' ')
  sec "$1" "${2##*/}" "$sz"
  head -c "$3" "$2" | emit
}
for f in "$WD"/probe/*.json; do [ -f "$f" ] && [ ! -L "$f" ] && copy probe "$f" 2000000; done
for f in $(find "$WD/trace" -type f -name '*.csv' 2>/dev/null | sort); do
  [ -L "$f" ] && continue
  case "$f" in
    *kernel_trace.csv|*/results.csv) sz=$(wc -c < "$f" | tr -d ' '); rows=$(wc -l < "$f" | tr -d ' ')
      sec trace "${f##*/}" "$sz" "$rows"; head -n "${R2R_MAX_ROWS:-5000}" "$f" | emit ;;
    *kernel_stats.csv|*results.stats.csv|*agent_info.csv) copy trace "$f" 2000000 ;;
  esac
done
sec samples
tail -c 1000000 "$EV/samples.txt" | emit
LB=$(wc -c < "$EV/workload.log" | tr -d ' ')
MAXL=${R2R_MAX_LOG_BYTES:-65536}
SHOWN=$LB; [ "$SHOWN" -gt "$MAXL" ] && SHOWN=$MAXL
sec log "$SHOWN" "$LB"
tail -c "$MAXL" "$EV/workload.log" | emit
fence_and_print
