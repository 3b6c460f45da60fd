#!/usr/bin/env bash
# Starts a single-machine Slurm for the tune tests: munged, slurmctld and two slurmd, each slurmd
# a fake node ("tn1", "tn2") with 8 GPUs as gres backed by character devices made in the folder.
# Uses Debian's slurm-wlm and munge (scripts/setup.sh installs them); installs nothing itself.
# Usage: start.sh DIR   (prints the SLURM_CONF to export; stop.sh DIR stops every daemon by pid)
set -euo pipefail
dir=$(realpath -m "${1:?usage: start.sh DIR}")
for p in munged slurmctld slurmd sbatch; do
  command -v "$p" >/dev/null || { echo "start.sh: $p not found (bash scripts/setup.sh installs slurm-wlm and munge)" >&2; exit 1; }
done
mkdir -p "$dir"/{state,spool,log,dev,munge}
chmod 700 "$dir/munge"
host=$(hostname -s)
# Free ports for the controller and each slurmd: random ones nothing answers on.
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
}
ctl_port=$(free_port); n1_port=$(free_port); n2_port=$(free_port)
for i in 0 1 2 3 4 5 6 7; do
  [[ -e "$dir/dev/gpu$i" ]] || mknod "$dir/dev/gpu$i" c 1 3  # same device numbers as /dev/null
done
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"
cat >"$dir/slurm.conf" <<CONF
ClusterName=ladletest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
LaunchParameters=enable_nss_slurm
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
MinJobAge=3600
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
NodeName=tn1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$n1_port CPUs=1 RealMemory=1000 Gres=gpu:8 State=UNKNOWN
NodeName=tn2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$n2_port CPUs=1 RealMemory=1000 Gres=gpu:8 State=UNKNOWN
PartitionName=test Nodes=tn1,tn2 Default=YES MaxTime=INFINITE State=UP
CONF
cat >"$dir/gres.conf" <<CONF
NodeName=tn[1-2] Name=gpu File=$dir/dev/gpu[0-7]
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" -i
slurmd -f "$SLURM_CONF" -N tn1
slurmd -f "$SLURM_CONF" -N tn2
for _ in $(seq 1 60); do
  if scontrol ping 2>/dev/null | grep -q UP && [[ $(sinfo -h -o '%t' -N | grep -c idle) -eq 2 ]]; then
    echo "$SLURM_CONF"
    exit 0
  fi
  sleep 0.5
done
echo "start.sh: the test Slurm did not come up; logs in $dir/log" >&2
exit 1
