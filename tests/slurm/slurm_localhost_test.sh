#!/usr/bin/env bash
# A real Slurm job array on this machine (CTest label slurm): starts munged,
# slurmctld and slurmd on localhost with a minimal configuration in a
# temporary directory, writes the job-array script of a 12-point sweep with
# `sapsim sweep --slurm-script` (4 shards), submits it as docs/studies.md
# says ("Running on a cluster"), waits for the merge (bounded), checks the
# merged sweep.csv equals the unsharded run's (timing columns aside) and
# stops the daemons it started. Exit 77 (skipped, with the reason) only when
# Slurm is not installed or its daemons cannot start here.
#
#   tests/slurm/slurm_localhost_test.sh SAPSIM SOURCE_DIR
set -euo pipefail
sapsim=$(realpath "$1")
source_dir=$(realpath "$2")
skip() {
  echo "SKIPPED: $*"
  exit 77
}
for program in munged munge slurmctld slurmd sbatch squeue sinfo; do
  command -v "$program" >/dev/null ||
    skip "$program is not installed (scripts/setup installs slurm-wlm and munge)"
done
[[ $(id -u) -eq 0 ]] ||
  skip "slurmd starts jobs as their user: the daemons need root"

tmp=$(mktemp -d /tmp/sapcontact_slurm.XXXXXX)
chmod 700 "$tmp"
stop() {
  for pid_file in slurmd.pid slurmctld.pid munged.pid; do
    if [[ -s $tmp/$pid_file ]]; then
      kill "$(cat "$tmp/$pid_file")" 2>/dev/null || true
    fi
  done
  sleep 1
  for pid_file in slurmd.pid slurmctld.pid munged.pid; do
    if [[ -s $tmp/$pid_file ]]; then
      kill -9 "$(cat "$tmp/$pid_file")" 2>/dev/null || true
    fi
  done
  rm -rf "$tmp"
}
trap stop EXIT
logs() {
  for log in "$tmp"/*.log "$tmp"/out/slurm/*.out; do
    [[ -f $log ]] && { echo "--- $log"; tail -n 20 "$log"; }
  done
  return 0
}

# munge: its own key and socket.
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge.key"
munged --socket="$tmp/munge.socket" --key-file="$tmp/munge.key" \
  --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" \
  --seed-file="$tmp/munge.seed" --force ||
  skip "munged does not start: $(tail -n 3 "$tmp/munged.log" 2>/dev/null)"
for _ in $(seq 50); do [[ -S $tmp/munge.socket ]] && break; sleep 0.1; done
munge --socket="$tmp/munge.socket" -n | unmunge --socket="$tmp/munge.socket" \
  >/dev/null || skip "munge credentials do not round-trip"

# Slurm: one node (this machine), one partition, ports of its own.
host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
mkdir -p "$tmp/state" "$tmp/spool"
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=sapcontact
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=600
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -i || { logs; skip "slurmctld does not start"; }
slurmd -N "$host" || { logs; skip "slurmd does not start"; }
for _ in $(seq 300); do
  state=$(sinfo -h -o %T 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.1
done
[[ $state == idle ]] || { logs; skip "the node is not idle after 30 s: '$state'"; }
echo "slurm: slurmctld and slurmd up on $host (ports $port, $((port + 1)))"

# The sweep, unsharded, for reference.
scene=$source_dir/config/scenes/box_slide.yaml
args=(sweep "$scene" --vary "materials.default.friction=0.1,0.3,0.5"
  --vary "time_step=1e-3,2e-3,3e-3,4e-3" --set duration=0.5)
"$sapsim" "${args[@]}" --out "$tmp/whole" --jobs 2 --no-plots -q

# The recipe of docs/studies.md: write the script, submit it.
"$sapsim" "${args[@]}" --out "$tmp/out" --slurm-script "$tmp/sweep.sbatch" \
  --slurm-tasks 4
submitted=$(cd "$tmp" && bash sweep.sbatch --partition=test)
echo "$submitted"
start=$SECONDS
while [[ -n $(squeue -h -o %i 2>/dev/null) || ! -f $tmp/out/sweep.csv ]]; do
  if ((SECONDS - start > 300)); then
    squeue || true
    logs
    echo "FAILED: the jobs did not finish within 300 s"
    exit 1
  fi
  sleep 0.5
done
echo "slurm: array and merge done in $((SECONDS - start)) s"
echo "--- OUT/slurm/task-0.out"
cat "$tmp/out/slurm/task-0.out"
echo "--- OUT/slurm/merge.out"
grep -v "plot:" "$tmp/out/slurm/merge.out"
for i in 0 1 2 3; do
  [[ -f $tmp/out/shard-$i/sweep.csv ]] || { logs; echo "FAILED: shard $i"; exit 1; }
done

python3 - "$tmp/whole/sweep.csv" "$tmp/out/sweep.csv" <<'PY'
import csv, sys
timings = {"wall_time_s", "solver_time_s", "collision_time_s", "us_per_step"}
def untimed(path):
    rows = list(csv.reader(open(path, newline="")))
    keep = [i for i, c in enumerate(rows[0]) if c not in timings]
    return [[r[i] for i in keep] for r in rows]
whole, merged = untimed(sys.argv[1]), untimed(sys.argv[2])
assert len(whole) == 13, len(whole)
if whole != merged:
    sys.exit(f"FAILED: the merged table differs from the unsharded run")
print(f"slurm: merged table of {len(merged) - 1} runs equals the unsharded run")
PY
