#!/bin/bash
# A one-node SLURM on this machine, for trying the job-array workflow of docs/enumerate.md
# and for the opt-in test (pytest -m cluster tests/test_enumerate_hpc.py).
#
#   experiments/slurm/one_node.sh start DIR    # munged, slurmctld and slurmd, state under DIR
#   experiments/slurm/one_node.sh stop DIR     # stop the three daemons started for DIR
#   experiments/slurm/one_node.sh env DIR      # prints: export SLURM_CONF=DIR/slurm.conf
#
# Needs Debian's slurmctld, slurmd and munge packages (apt-get install slurmctld slurmd munge)
# and root (slurmd starts jobs as their submitter). Everything it writes stays under DIR: its
# own munge key and socket (the system's munged is not used), slurm.conf, state, spool, logs
# and pid files. Daemons listen on 127.0.0.1 only; the ports are SLURM_PORT and SLURM_PORT+1
# (default 16817 and 16818). REQUEUE_DELAY (default 120, Slurm's own default) is AuthInfo's
# cred_expire: how long a requeued job waits before it may start again.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
    echo "usage: $0 start|stop|env DIR" >&2
    exit 2
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf
port=${SLURM_PORT:-16817}
delay=${REQUEUE_DELAY:-120}

stop_pid() {  # stop the daemon whose pid file is $1, then wait for it to go
    local f=$1 pid
    [ -s "$f" ] || return 0
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    fi
    rm -f "$f"
}

case $cmd in
env)
    echo "export SLURM_CONF=$conf"
    ;;
stop)
    stop_pid "$dir/slurmd.pid"
    stop_pid "$dir/slurmctld.pid"
    stop_pid "$dir/munged.pid"
    ;;
start)
    for prog in munged slurmctld slurmd sbatch; do
        command -v "$prog" >/dev/null || { echo "$0: $prog not found (apt-get install slurmctld slurmd munge)" >&2; exit 2; }
    done
    [ "$(id -u)" -eq 0 ] || { echo "$0: slurmd must run as root" >&2; exit 2; }
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
    chmod 700 "$dir/munge"
    if [ ! -s "$dir/munge/munge.key" ]; then
        dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
        chmod 600 "$dir/munge/munge.key"
    fi
    sock=$dir/munge/munge.socket
    cat > "$conf" <<CONF
# one-node SLURM written by experiments/slurm/one_node.sh
ClusterName=onenode
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock,cred_expire=$delay
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=600
MaxArraySize=1001
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    if ! { [ -s "$dir/munged.pid" ] && kill -0 "$(cat "$dir/munged.pid")" 2>/dev/null; }; then
        munged --force --key-file="$dir/munge/munge.key" --socket="$sock" \
            --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed"
    fi
    export SLURM_CONF=$conf
    if ! { [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; }; then
        slurmctld -f "$conf"
    fi
    if ! { [ -s "$dir/slurmd.pid" ] && kill -0 "$(cat "$dir/slurmd.pid")" 2>/dev/null; }; then
        slurmd -f "$conf"
    fi
    for _ in $(seq 300); do
        if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
            echo "one-node SLURM up: node $host, $cpus CPUs; export SLURM_CONF=$conf"
            exit 0
        fi
        sleep 0.2
    done
    echo "$0: the node did not come up within 60 s; logs in $dir" >&2
    sinfo >&2 || true
    exit 1
    ;;
*)
    echo "usage: $0 start|stop|env DIR" >&2
    exit 2
    ;;
esac
