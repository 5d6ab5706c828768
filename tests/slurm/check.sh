#!/usr/bin/env bash
# The long check of scripts/slurm_sweep.sh on a real Slurm: a one-node controller and daemon
# (Debian's slurmctld, slurmd and munge, started here with a private configuration and torn down
# afterwards), the array job of a SimGrid sweep split into 8 shards, its merge, and the merged file
# compared byte for byte with a local run of the same sweep.
#   tests/slurm/check.sh BUILD_DIR
# Skips (exit 0, saying why) where it cannot run: not root, or the Slurm and munge daemons missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath "${1:-build}")

skip() { echo "slurm check: skipped: $*"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "needs root to start munged, slurmctld and slurmd"
for d in munged slurmctld slurmd sbatch; do command -v "$d" > /dev/null || skip "$d is not installed"; done
[ -x "$build/ddlsim" ] || { echo "slurm check: $build/ddlsim missing" >&2; exit 1; }

work=$(mktemp -d /tmp/ddlsim-slurm-XXXXXX)
host=$(hostname -s)
pids=()
teardown() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  sleep 1
  for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null || true; done
  [ -n "${KEEP_SLURM_WORK:-}" ] || rm -rf "$work"
}
trap teardown EXIT

# munge: a fresh key and its own socket.
mkdir -p "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1 count=1024 status=none
chmod 0700 "$work/munge"; chmod 0400 "$work/munge/munge.key"
munged --force --foreground --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
       --pid-file="$work/munge/pid" --log-file="$work/munge/log" --seed-file="$work/munge/seed" 2> /dev/null &
pids+=($!)

cpus=$(nproc)
mkdir -p "$work/state" "$work/spool"
cat > "$work/slurm.conf" <<CONF
ClusterName=ddlsim-check
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldPort=${SLURM_CHECK_PORT:-16817}
SlurmdPort=$(( ${SLURM_CHECK_PORT:-16817} + 1 ))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -i > "$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" > "$work/slurmd.out" 2>&1 &
pids+=($!)
for i in $(seq 60); do
  sinfo -h -o '%T' 2> /dev/null | grep -Eq '^(idle|mixed)' && break
  [ "$i" -eq 60 ] && { echo "slurm check: the node did not come up"; cat "$work"/*.log "$work"/*.out; exit 1; }
  sleep 1
done

# A SimGrid sweep: 2 models x 4 node counts x 3 bucket sizes x 3 bandwidths = 72 configurations.
cat > "$work/sweep.ini" <<INI
[model]
name = resnet50
input_size = 64
classes = 200
[cluster]
platform = poti
[simulation]
backend = simgrid
[sweep]
model.name = resnet50, efficientnet_b0
cluster.nodes = 1, 2, 3, 4
comm.bucket_mb = 1, 8, 25
cluster.inter_bw_GBps = 0.1, 1, 10
INI
"$build/ddlsim" sweep "$work/sweep.ini" --jobs "$cpus" --output "$work/local.csv"
# Bounded: jobs that never start (a node that did not register its CPUs) fail the check, not hang it.
if ! timeout 600 scripts/slurm_sweep.sh "$work/sweep.ini" "$work/slurm.csv" --tasks 8 --ddlsim "$build/ddlsim" --wait; then
  echo "slurm check: the array job or its merge failed or did not end within 600 s"
  squeue 2> /dev/null || true
  cat "$work"/slurm.csv.*.log "$work"/slurmctld.log 2> /dev/null | tail -40
  exit 1
fi
if ! cmp "$work/local.csv" "$work/slurm.csv"; then
  echo "slurm check: the merged file differs from the local run"; cat "$work/slurm.csv.merge.log"; exit 1
fi
rows=$(($(wc -l < "$work/local.csv") - 1))
echo "slurm check: 8 array tasks and their merge on Slurm $(sinfo -V | cut -d' ' -f2): $rows rows, byte-identical to the local run"
