#!/usr/bin/env bash
# Runs a ddlsim sweep as a Slurm array job and joins its shards with a dependent job:
#
#   scripts/slurm_sweep.sh SCENARIO.ini OUTPUT.csv [--tasks N] [--jobs J] [--ddlsim PATH] [--wait]
#                          [-- SBATCH_OPTION...]
# (installed by `cmake --install` as PREFIX/bin/ddlsim-slurm-sweep)
#
# Array task I of N runs `ddlsim sweep SCENARIO.ini --shard auto` (shard I of N) into
# OUTPUT.shard-I.csv with J configurations at once (--cpus-per-task=J); a task that is requeued or
# resubmitted finishes its shard (--resume) instead of starting over. The merge job runs after every
# task has ended (afterany), checks that each shard is there, finished and this sweep's, and writes
# OUTPUT.csv: the file one `ddlsim sweep SCENARIO.ini --output OUTPUT.csv` writes, byte for byte. A
# shard that failed is named by its index in the merge job's log (OUTPUT.merge.log); resubmit it
# alone with `sbatch --array=I ...` as printed below, then the merge.
# Options after `--` go to both sbatch calls (--partition, --account, --time, ...). --wait blocks
# until the merge has ended and exits with its status.
set -euo pipefail

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
scenario=$(realpath "$1"); output=$(realpath -m "$2"); shift 2
tasks=8; jobs=1; wait=""; extra=()
# ddlsim: --ddlsim, else beside this script (installed: PREFIX/bin), else the build tree's, else PATH's.
here=$(dirname "$(realpath "$0")")
ddlsim=$here/ddlsim
[ -x "$ddlsim" ] || ddlsim=$(realpath -m "$here/../build/ddlsim")
[ -x "$ddlsim" ] || ddlsim=$(command -v ddlsim || echo "$ddlsim")
while [ $# -gt 0 ]; do
  case "$1" in
    --tasks) tasks=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --ddlsim) ddlsim=$(realpath -m "$2"); shift 2 ;;
    --wait) wait="--wait"; shift ;;
    --) shift; extra=("$@"); break ;;
    *) usage ;;
  esac
done
[[ "$tasks" =~ ^[1-9][0-9]*$ ]] || { echo "slurm_sweep.sh: --tasks $tasks: expected a whole number >= 1" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "slurm_sweep.sh: --jobs $jobs: expected a whole number >= 1" >&2; exit 2; }
[ -x "$ddlsim" ] || { echo "slurm_sweep.sh: $ddlsim is not an executable (build it, or give --ddlsim PATH)" >&2; exit 2; }
[ -f "$scenario" ] || { echo "slurm_sweep.sh: $scenario: no such file" >&2; exit 2; }

q() { printf '%q' "$1"; }
part="$output.shard-"
# Each task: resume its shard if an earlier run of it left one unfinished, else start it.
task="f=$(q "$part")\$SLURM_ARRAY_TASK_ID.csv; r=; [ -e \"\$f.sweep-state\" ] && r=--resume; \
exec $(q "$ddlsim") sweep $(q "$scenario") --shard auto --jobs $jobs --output \"\$f\" \$r"
shards=""
for ((i = 0; i < tasks; i++)); do shards+=" $(q "$part$i.csv")"; done
merge="exec $(q "$ddlsim") sweep $(q "$scenario") --merge$shards --output $(q "$output")"

array=$(sbatch --parsable --job-name=ddlsim-sweep --array=0-$((tasks - 1)) --cpus-per-task="$jobs" \
        --output="$output.shard-%a.log" "${extra[@]}" --wrap "$task")
array=${array%%;*}
echo "slurm_sweep.sh: array job $array: $tasks shard(s) of $(basename "$scenario") -> $part<I>.csv"
echo "slurm_sweep.sh: to rerun shard I alone: sbatch --array=I ... (the same options), then the merge below"
merge_job=$(sbatch --parsable $wait --job-name=ddlsim-merge --dependency=afterany:"$array" \
            --output="$output.merge.log" "${extra[@]}" --wrap "$merge") && status=0 || status=$?
echo "slurm_sweep.sh: merge job ${merge_job%%;*} -> $output (log: $output.merge.log)"
exit $status
