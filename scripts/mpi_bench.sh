#!/usr/bin/env bash
# The MPI benchmark session of docs/performance/mpi.md: bench/mpi_bench rows
# (CPU ranks K with the cores split evenly, OMP_NUM_THREADS = cores / K, each
# rank bound to its own cores; then K ranks sharing GPU 0), a 1 s rest between
# rows, and a canary row (1 rank, all cores, N = 262144) at the start and the
# end whose drift is printed: a session that drifted by more than 10 % is to
# be repeated, not quoted.
#
# usage: scripts/mpi_bench.sh MPI_BENCH OUT.csv [quick|full]
#   full   CPU K = 1, 2, 4, 8 at N = 1M and 4M; GPU K = 1, 2, 4 at N = 1M and 4M
#   quick  what a 2-core machine can hold: CPU K = 1, 2 at N = 131072 and 524288
set -euo pipefail
bin=$1
csv=$2
mode=${3:-full}
cores=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=close
if [ "$mode" = quick ]; then
  sizes=(131072 524288); cpu_ranks=(1 2); gpu_ranks=(); steps=3
else
  sizes=(1048576 4194304); cpu_ranks=(1 2 4 8); gpu_ranks=(1 2 4); steps=3
fi

# row K BACKEND N: one CSV row (no header) on stdout.
row() {
  local k=$1 backend=$2 n=$3 threads=$((cores / $1))
  ((threads >= 1)) || threads=1
  OMP_NUM_THREADS=$threads mpirun -np "$k" --map-by "slot:PE=$threads" --bind-to core \
    "$bin" --n "$n" --steps "$steps" --warmup 1 --backend "$backend"
  sleep 1
}

"$bin" --header --n 1024 --steps 1 --warmup 0 | head -1 >"$csv"
canary_start=$(row 1 cpu 262144 | tee -a "$csv")
for n in "${sizes[@]}"; do
  for k in "${cpu_ranks[@]}"; do
    ((k <= cores)) && row "$k" cpu "$n" | tee -a "$csv"
  done
  for k in "${gpu_ranks[@]}"; do
    ((k <= cores)) && row "$k" cuda "$n" | tee -a "$csv"
  done
done
canary_end=$(row 1 cpu 262144 | tee -a "$csv")
python3 - "$canary_start" "$canary_end" <<'PY'
import sys
a, b = (float(r.split(",")[14]) for r in sys.argv[1:3])
print(f"canary (1 rank, N = 262144, step_s): start {a:.4f} s, end {b:.4f} s, drift {100 * (b - a) / a:+.1f} %"
      + ("  -- over 10 %: repeat the session" if abs(b - a) > 0.1 * a else ""))
PY
