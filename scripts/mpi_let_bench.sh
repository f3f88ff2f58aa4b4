#!/usr/bin/env bash
# The session of docs/performance/mpi.md "Part 2": bench/mpi_let_bench rows
# for K ranks with the cores split evenly (K above the cores: one thread a
# rank, oversubscribed; its times then say nothing, its sizes still hold), a
# 1 s rest between rows, and a canary row (1 rank, N = 131072) at the start
# and the end whose drift it prints (over 10 %: repeat the session).
#   scripts/mpi_let_bench.sh BIN OUT.csv "N..." "K..." [model...]
set -euo pipefail
bin=$1 out=$2 sizes=$3 ranks=$4
shift 4
models=${*:-plummer hernquist}
cores=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=close
row() {  # K N model [--header]
  local k=$1 t=$(( cores / $1 )); (( t >= 1 )) || t=1
  local map=(--map-by slot:PE=$t --bind-to core); (( $1 > cores )) && map=(--oversubscribe --bind-to none)
  OMP_NUM_THREADS=$t mpiexec "${map[@]}" -np "$k" "$bin" --n "$2" --model "$3" "${@:4}"
}
canary() { row 1 131072 plummer | cut -d, -f12; }
c0=$(canary)
row 1 131072 plummer --header | head -1 > "$out"
for model in $models; do for n in $sizes; do for k in $ranks; do
  row "$k" "$n" "$model" >> "$out"; sleep 1
done; done; done
c1=$(canary)
echo "canary step_s $c0 -> $c1, drift $(python3 -c "print(f'{($c1-$c0)/$c0*100:+.1f} %')")"
