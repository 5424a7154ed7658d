#!/bin/bash
# SPDX-License-Identifier: MIT
# A private Slurm cluster on this machine for the batch tests (shared/docs/ENVIRONMENT.md recipe):
# munged, slurmctld and one slurmd per node, every file under DIR, fake GPU gres (/dev/null,
# /dev/zero). Processes are stopped by their PIDs only.
#   slurm_cluster.sh start DIR NODES GPUS_PER_NODE   -> prints the slurm.conf path; exit 0 when sinfo answers
#   slurm_cluster.sh restart-controller DIR          -> stops slurmctld (SIGTERM) and starts it again
#   slurm_cluster.sh stop DIR
set -euo pipefail
cmd=${1:?usage}; T=${2:?usage}
conf=$T/slurm.conf
start_ctld() {  # $1: -c on the first start only (a restart keeps the saved state, as a real one does)
  SLURM_CONF=$conf slurmctld -D ${1:-} -f "$conf" >>"$T/slurmctld.log" 2>&1 &
  echo $! >"$T/pids/slurmctld"
}
wait_sinfo() {
  for _ in $(seq 1 100); do
    if SLURM_CONF=$conf sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then return 0; fi
    sleep 0.2
  done
  return 1
}
case "$cmd" in
start)
  nodes=${3:-1}; gpus=${4:-2}
  mkdir -p "$T/munge" "$T/slurm/state" "$T/slurm/spool" "$T/pids"
  chmod 0755 "$T" "$T/munge"
  base=$((20000 + (RANDOM % 20000)))
  dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$T/munge/munge.key"
  munged --key-file="$T/munge/munge.key" --socket="$T/munge/munge.socket.2" --log-file="$T/munge/munged.log" \
         --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/munged.seed" --force
  cp "$T/munge/munged.pid" "$T/pids/munged"
  {
    echo "ClusterName=r2rtest"
    echo "SlurmctldHost=localhost(127.0.0.1)"
    echo "SlurmctldPort=$base"
    echo "SlurmdPort=$((base + 1))"
    echo "SlurmUser=root"; echo "SlurmdUser=root"
    echo "AuthType=auth/munge"; echo "AuthInfo=socket=$T/munge/munge.socket.2"; echo "CredType=cred/munge"
    echo "StateSaveLocation=$T/slurm/state"; echo "SlurmdSpoolDir=$T/slurm/spool/%n"
    echo "SlurmctldPidFile=$T/slurm/slurmctld.pid"; echo "SlurmdPidFile=$T/slurm/slurmd-%n.pid"
    echo "ProctrackType=proctrack/linuxproc"; echo "TaskPlugin=task/none"; echo "MpiDefault=none"
    echo "MailProg=/bin/true"; echo "SchedulerType=sched/backfill"; echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"; echo "GresTypes=gpu"; echo "ReturnToService=2"
    echo "JobCompType=jobcomp/filetxt"; echo "JobCompLoc=$T/slurm/jobcomp.txt"
    echo "AccountingStorageType=accounting_storage/none"; echo "MinJobAge=600"
    echo "SlurmctldTimeout=30"; echo "SlurmdTimeout=60"
    if [ "$nodes" = 1 ]; then
      echo "NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 Gres=gpu:$gpus State=UNKNOWN"
      echo "PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP"
    else
      echo "NodeName=n[1-$nodes] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((base + 2))-$((base + 1 + nodes))] CPUs=2 RealMemory=2000 Gres=gpu:$gpus State=UNKNOWN"
      echo "PartitionName=debug Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP"
    fi
  } >"$conf"
  {
    echo "AutoDetect=off"
    names=localhost; [ "$nodes" = 1 ] || names="n[1-$nodes]"
    for g in $(seq 1 "$gpus"); do
      f=/dev/null; [ $((g % 2)) = 0 ] && f=/dev/zero
      echo "NodeName=$names Name=gpu File=$f"
    done
  } >"$T/gres.conf"
  start_ctld -c
  if [ "$nodes" = 1 ]; then
    mkdir -p "$T/slurm/spool/localhost"
    SLURM_CONF=$conf slurmd -D -N localhost -f "$conf" >>"$T/slurmd-localhost.log" 2>&1 &
    echo $! >"$T/pids/slurmd-localhost"
  else
    for n in $(seq 1 "$nodes"); do
      mkdir -p "$T/slurm/spool/n$n"
      SLURM_CONF=$conf slurmd -D -N "n$n" -f "$conf" >>"$T/slurmd-n$n.log" 2>&1 &
      echo $! >"$T/pids/slurmd-n$n"
    done
  fi
  wait_sinfo || { echo "slurm did not come up; logs in $T" >&2; exit 1; }
  echo "$conf"
  ;;
restart-controller)
  # As `systemctl restart slurmctld` does: SIGTERM (the controller saves its state), then start.
  pid=$(cat "$T/pids/slurmctld")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  sleep 1
  start_ctld
  wait_sinfo
  ;;
stop)
  for f in "$T"/pids/*; do
    [ -e "$f" ] || continue
    pid=$(cat "$f"); kill "$pid" 2>/dev/null || true
  done
  sleep 0.5
  for f in "$T"/pids/*; do
    [ -e "$f" ] || continue
    pid=$(cat "$f"); kill -9 "$pid" 2>/dev/null || true
  done
  ;;
esac
