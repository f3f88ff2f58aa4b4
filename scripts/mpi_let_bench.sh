#!/usr/bin/env bash
# The session of docs/performance/mpi.md "Part 2": bench/mpi_let_bench rows
# for K ranks with the cores split evenly (threads per rank = cores / K, so
# the cores in use stay the same; K above the cores: one thread a rank,
# oversubscribed, whose times then say nothing while its sizes still hold),
# a 1 s rest between rows, and a canary row (1 rank, N = 131072 Plummer) at
# the start and the end whose drift it prints (over 10 %: repeat the session).
#   scripts/mpi_let_bench.sh BIN OUT.csv "N..." "K..." [model...]
# An N is a total (strong scaling) or P/rank, P particles per rank: N = P K
# (weak scaling), either followed by :K,K,... for its own rank counts in
# place of "K..."; a (K, N, model) row already run is not run again.
# ORRERY_LET_STEPS and ORRERY_LET_WARMUP: the timed and the warm-up steps of
# each row (default 3 and 2: the steps after the first two are the steady
# state, mpi_let_bench's header says why); ORRERY_LET_BUDGET_S: the seconds the rows may
# take in all (default: no limit), a row is cut off (timeout) where it would
# run past them and the rest are skipped, leaving the end canary 30 s. A row
# that fails is reported and skipped. ORRERY_LET_ARGS: more options for every
# row, the canaries too (e.g. "--backend cuda": each rank walks on its GPU,
# local rank mod the GPUs, so K ranks share a one-GPU machine's GPU);
# ORRERY_LET_THREADS: the threads per rank in place of cores / K (e.g. 1).
set -euo pipefail
bin=$1 out=$2 sizes=$3 ranks=$4
shift 4
models=${*:-plummer hernquist}
cores=$(nproc)
steps=(--steps "${ORRERY_LET_STEPS:-3}" --warmup "${ORRERY_LET_WARMUP:-2}")
read -ra extra <<<"${ORRERY_LET_ARGS:-}"
steps+=("${extra[@]}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=close
limit=()  # a timeout prefix for the row in flight
row() {  # K N model [options]
  local k=$1 t=${ORRERY_LET_THREADS:-$(( cores / $1 ))}; (( t >= 1 )) || t=1
  local map=(--map-by slot:PE=$t --bind-to core); (( $1 * t > cores )) && map=(--oversubscribe --bind-to none)
  OMP_NUM_THREADS=$t "${limit[@]}" mpiexec "${map[@]}" -np "$k" "$bin" --n "$2" --model "$3" "${@:4}"
}
column_of() {  # name, from a header line and a row on stdin
  python3 -c 'import sys; h, r = [l.strip().split(",") for l in sys.stdin.readlines()[:2]]; print(r[h.index(sys.argv[1])])' "$1"
}
session=$(date +%s) budget=${ORRERY_LET_BUDGET_S:-0}
canary=$(row 1 131072 plummer --header "${steps[@]}")
head -1 <<<"$canary" > "$out"
c0=$(column_of step_max_s <<<"$canary")
declare -A done_rows
for model in $models; do for size in $sizes; do
  n=${size%%:*} these=$ranks
  [[ $size == *:* ]] && these=${size#*:} && these=${these//,/ }
  for k in $these; do
  total=$n
  [[ $n == */rank ]] && total=$(( ${n%/rank} * k ))
  [[ -n ${done_rows[$k,$total,$model]:-} ]] && continue
  done_rows[$k,$total,$model]=1
  start=$(date +%s)
  if (( budget > 0 )); then
    left=$(( budget - 30 - (start - session) ))
    if (( left < 5 )); then echo "row K = $k, N = $total, $model: skipped, the budget of $budget s is spent"; continue; fi
    limit=(timeout "$left")
  fi
  row "$k" "$total" "$model" "${steps[@]}" >> "$out" || echo "row K = $k, N = $total, $model failed or was cut off"
  limit=()
  echo "row K = $k, N = $total, $model: $(( $(date +%s) - start )) s"
  sleep 1
done; done; done
c1=$(row 1 131072 plummer --header "${steps[@]}" | column_of step_max_s)
echo "canary step_max_s $c0 -> $c1, drift $(python3 -c "print(f'{($c1-$c0)/$c0*100:+.1f} %')")"
