#!/bin/bash
# One shard of an enumeration per task of a SLURM job array (docs/enumerate.md, "On a SLURM
# cluster"). Usage:
#
#   sbatch --array=0-7 experiments/slurm/enum_array.sh DIR -n 7 -k 4 -m 12 --property none
#
# Task i of N runs `mptsearch enumerate ARGS --shard i/N --store DIR/shard_i.sqlite`.
# Exit 3 (pieces left: --time-limit) and 143 (SIGTERM: the --signal below, sent before the
# job's time limit, or `scancel --signal=TERM --batch`) mean "resume": the task requeues
# itself and its next start continues from the store. A line per start and end goes to
# DIR/events.log (epoch seconds), which is how docs/enumerate.md measures the requeue wait.
#
# Environment: MPTSEARCH (the command, default `mptsearch`), ENUM_TIME_LIMIT (seconds, passed
# as --time-limit to each run), ENUM_FIRST_ARGS (extra options for a task's first start only,
# e.g. `--max-pieces 3` to exercise the exit-3 requeue), SLURM_CPUS_PER_TASK (worker
# processes, default 1).
#SBATCH --job-name=mptsearch-enum
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --signal=B:TERM@60
set -u
dir=$1
shift
task=${SLURM_ARRAY_TASK_ID:?run me as a task of a job array (sbatch --array=...)}
count=${SLURM_ARRAY_TASK_COUNT:?}
mkdir -p "$dir"
store=$dir/shard_${task}.sqlite
log() { echo "$(date +%s.%N) task $task job ${SLURM_JOB_ID:-?} restart ${SLURM_RESTART_COUNT:-0} $*" >> "$dir/events.log"; }
log start
# the job's shell gets the signal (--signal=B:...); forward it to mptsearch, which stores
# every finished piece and exits 143
first=()
if [ "${SLURM_RESTART_COUNT:-0}" -eq 0 ] && [ -n "${ENUM_FIRST_ARGS:-}" ]; then
    read -r -a first <<< "$ENUM_FIRST_ARGS"
fi
${MPTSEARCH:-mptsearch} enumerate "$@" "${first[@]}" -q -j "${SLURM_CPUS_PER_TASK:-1}" \
    --shard "$task/$count" --store "$store" ${ENUM_TIME_LIMIT:+--time-limit "$ENUM_TIME_LIMIT"} &
pid=$!
trap 'kill -TERM $pid 2>/dev/null' TERM
wait $pid
rc=$?
while kill -0 $pid 2>/dev/null; do  # wait was cut short by the trap: wait for the real code
    wait $pid
    rc=$?
done
log "end rc=$rc"
if [ $rc -eq 3 ] || [ $rc -eq 143 ]; then
    log requeue
    scontrol requeue "${SLURM_ARRAY_JOB_ID}_${task}"
fi
exit $rc
