#!/usr/bin/env bash
# One GPU session: configure + build the `cuda` preset, then run what is asked,
# writing CSVs and logs to $OUT (default ./gpu-out). Made for the lent H200
# (Ubuntu 24.04, CMake 4, nvcc 13, no toml++ package: its headers travel in
# the git-ignored .deps/include, see cmake/OrreryDependencies.cmake).
#
# usage: [ORRERY_COMMIT=hash] scripts/gpu_session.sh [TASK ...]   (default: tests bench-direct)
#   tests         build the GPU tests (target orrery_gpu_tests), ctest -L gpu
#   sanitize      compute-sanitizer memcheck and racecheck on every GPU test executable
#                 (also run after `tests` when ORRERY_SANITIZE=1)
#   bench-direct  SASS issue-slot count of the direct kernels, then
#                 bench/gpu_direct_bench (ORRERY_BENCH_MODE=quick|full, default full)
#   tree          the GPU tree walk/solver tests alone, then compute-sanitizer
#                 memcheck and racecheck on them
#   bench-tree    bench/gpu_tree_bench -> gpu_tree.csv (ORRERY_BENCH_MODE as above;
#                 ORRERY_TREE_CAPACITY=0 skips the largest-N ladder; ORRERY_TREE_TABLES=a,b
#                 runs only those tables, see the bench's usage: gpu_tree_bench --help).
#                 Issue 21's tables are not in the default list: distributions, double, and
#                 ORRERY_TREE_TABLES=cost,rate,cube24 (a cell term's measured cost in particle
#                 terms and the direct kernel's rate; the walk's interaction rate against it at
#                 the targets' configurations; the cube at 2^24 - 1): 13.5 s together on the H200
#                 ORRERY_TREE_TABLES=rate,group,group-leaf: group opening (docs/adr/0017) beside
#                 each target's own walk, over tolerance, group cell size and leaf capacity
#                 ORRERY_TREE_TABLES=list: the list walk (docs/adr/0019) against the own walk
#                 at issue 21's accuracy
#                 ORRERY_TREE_TABLES=warp-order: the warps in the tree's key order against the
#                 leaves' Hilbert order (GpuTreeSolverConfig::warp_order), alternately, at issue
#                 21's configurations
#   cpu-threads   cpu_tree_bench at N = 1M on 1, 2, 4, 8 and all host threads (the
#                 CPU walk's parallel efficiency)
#   profile       SASS of the float coherent walks (coherent_walk_sass.txt) and Nsight
#                 Compute sections of each walk variant at 1M (ncu_walk.txt);
#                 ORRERY_PROFILE_TABLE=profile-relative profiles the relative opening instead
#   profile21     Nsight Compute on issue 21's walks (bh_regression_bench --rows issue21: the
#                 cube geometric and relative, Plummer and Hernquist relative, 2^20, one timed
#                 evaluation each after the warm-ups): the usual sections plus the active-lane
#                 fraction (thread instructions per warp instruction) and the instructions per
#                 pipe -> ncu_issue21.txt (ORRERY_PROFILE_ROWS=list21 ORRERY_PROFILE_KERNEL=list_walk:
#                 the list walk's rows and kernel -> ncu_list21.txt)
#   python        the Python package's tests (scripts/python_test.sh on the cuda build:
#                 the CUDA tests of tests/python run instead of skipping)
#   bench-build   bench/gpu_tree_build_bench (the tree build alone, 1M and 16M) -> gpu_tree_build.csv
#   golden        the golden forces (tests/golden): the CUDA cases and the CPU cases on this
#                 host; with ORRERY_GOLDEN_RECORD=1 they are recorded to golden_record.txt instead
#   bench-regression  bench/bh_regression_bench (issue 14's no-speed rows); with
#                 ORRERY_OLD_SRC=DIR (a `git archive` of an older commit, e.g. under the
#                 git-ignored .old/) that commit's copy is built too and the two run
#                 alternately, old new old new, into bh_regression.csv (the bench's source is
#                 the new commit's, copied into the old tree); ORRERY_REGRESSION_ROWS=a,b picks
#                 rows (gpu_tree_phases: the GPU tree's build and walk phases)
#   bench-targets bench/targets_bench: forces on 0.1-100 % of 1M sources, GPU and CPU -> targets.csv
#                 (ORRERY_TARGETS_ARGS="--lanes 0,1,8 --fractions 0.001,1 --cpu 0" passes options on)
#   cpu-isa       the CPU tree tests (AVX-512 walk bits on this host), then the 1M walk with
#                 --isa avx2 and avx512 side by side on all host threads (order alternated)
#   bench-cpu-tree  bench/cpu_tree_bench on all host cores (docs/performance/cpu_tree.md's
#                 16-core session) -> cpu_tree_h200host_{scaling,crossover,accuracy}.csv
#   bench-block   bench/block_steps_bench (docs/performance/block_steps.md): 1M Hernquist for one
#                 dynamical time, block steps at eta 0.025 and 0.1 against the global step at
#                 dt = 1/32 .. 1/256, on the GPU, then the CPU on every host core with the rows
#                 ORRERY_BLOCK_CPU (default "block:0.1 global:0.03125 global:0.0078125"; " " for none),
#                 the GPU rows ORRERY_BLOCK_GPU (mode:eta-or-dt, default block 0.025, 0.1 and global
#                 1/32 .. 1/256), ORRERY_BLOCK_ARGS passed to every row (e.g. "--softening 0.001")
#                 -> block_steps_h200.csv, the per-substep CSVs in logs
#   mpi           the MPI tests (ctest -L mpi: K = 1..4 CPU ranks, K = 1, 2, 4 ranks sharing
#                 the GPU), a 2-rank GPU test under compute-sanitizer memcheck, then
#                 scripts/mpi_bench.sh (docs/performance/mpi.md) -> mpi_bench.csv
#                 (ORRERY_BENCH_MODE=quick for the small rows; ORRERY_MPI_BENCH=0: the tests alone)
#   bench-mpi-let CPU ranks over the distributed tree (docs/performance/mpi.md, part 2):
#                 scripts/mpi_let_bench.sh, K = 1, 2, 4, 8, 16 ranks of 16 / K threads (the cores
#                 constant), Plummer, weak scaling at 1M per rank, strong at 4M, and at 16M with
#                 K = 1, 4, 16; 2 timed steps a row after the untimed first solve and 2 untimed
#                 steps (until 2026-12-07 none: the second solve's fresh pages were in the
#                 medians, mpi.md); the rows cut off at 300 s -> mpi_let_h200host.csv, then
#                 scripts/mpi_model.py's prediction from it (ORRERY_LET_SIZES, ORRERY_LET_RANKS,
#                 ORRERY_LET_STEPS, ORRERY_LET_WARMUP, ORRERY_LET_BUDGET_S override;
#                 ORRERY_LET_ARGS passes options to every row, ORRERY_LET_THREADS sets the threads
#                 per rank in place of 16 / K).
#                 GPU ranks (each rank walks on the GPU, local rank mod 1: K ranks share the H200;
#                 the rest of the step stays on the host) -> mpi_let_h200gpu.csv, no model:
#                   ORRERY_LET_ARGS="--backend cuda" ORRERY_LET_RANKS="1 2 4" \
#                     ORRERY_LET_SIZES="1048576 4194304 16777216" scripts/gpu_session.sh bench-mpi-let
#                 (16 / K threads a rank); add ORRERY_LET_THREADS=1 for one thread a rank
#                 With ORRERY_OLD_SRC=DIR (as bench-regression's) the old copy's mpi_let_bench is
#                 built too, and the two run the same rows alternately, ORRERY_LET_ROUNDS rounds
#                 (default 2), into mpi_let_h200{host,gpu}_{old,new}_ROUND.csv
#                 (ORRERY_OLD_FILES="a b": the old binary is the new build with those files
#                 swapped for the old copy's, see build_old)
#                 With ORRERY_LET_VARIANTS="opts A|opts B|..." one binary runs the same rows with
#                 each variant's options appended to ORRERY_LET_ARGS, the variants in turn each
#                 round, ORRERY_LET_ROUNDS rounds -> mpi_let_h200{host,gpu}_v{I}_{ROUND}.csv
#                 (e.g. ORRERY_LET_VARIANTS="--freed-memory release|--freed-memory keep")
#                 ORRERY_LET_MODELS="plummer hernquist": the models of the rows (default plummer)
#   probe-mpi     what the host's MPI can do with device buffers: ompi_info's CUDA lines, UCX's
#                 CUDA transports, then mpi_exchange_bench's `device` transport forced
#                 (--force-device-mpi) through the UCX PML at K = 2 ranks sharing the GPU, in a
#                 process of its own under a timeout (a crash there is the answer "no"); every
#                 byte received is checked by the bench -> exchange_probe.csv
#   bench-exchange bench/mpi_exchange_bench: the LET's all-to-all of bytes, 4 KB .. 64 MB per pair,
#                 by mpi::Communicator::exchange, host MPI_Alltoallv, MPI_Alltoallv on device buffers
#                 (CUDA-aware MPI) and NCCL send/recv, K = 1 (--self: a rank's part to itself),
#                 2 and 4 ranks sharing the GPU (NCCL runs at K = 1 alone: it needs a GPU per rank,
#                 the rows say so) -> exchange_h200.csv (ORRERY_EXCHANGE_RANKS, default "1 2 4";
#                 ORRERY_EXCHANGE_ARGS passed on, e.g. "--sizes 4096,1048576 --trials 9"; the device
#                 transport runs in an mpiexec of its own, so a crash there keeps the other rows)
# To add a task: a function task_<name> below and its targets in targets_for.
#
# $OUT gets summary.txt (what ran, test summary, bench table), the CSVs, and
# logs.tar.gz (every log). At most 8 files, no deeper than one folder. The
# "h200" in the CSV names above is the GPU that ran them (h100 on an H100).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
logs=$(mktemp -d)
summary=$out/summary.txt
export PATH="$PATH:/usr/local/cuda/bin"
jobs=$(nproc)
tasks=("$@")
((${#tasks[@]})) || tasks=(tests bench-direct)
status=0
old_built=""  # the old benches build_old made in this call
# The GPU in the CSVs' names (h200, h100, ...; "gpu" where nvidia-smi names none
# of these): the lent kind may be either, and a file must say which ran it.
machine=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep -oiE 'h100|h200|b200|a100' | head -1 | tr '[:upper:]' '[:lower:]')
machine=${machine:-gpu}

say() { echo "$*" | tee -a "$summary"; }
fail() { say "FAILED: $*"; status=1; }

targets_for() {
  case $1 in
    tests | sanitize) echo orrery_gpu_tests ;;
    bench-direct) echo gpu_direct_bench ;;
    tree) echo orrery_bh_gpu_test orrery_gravity_gpu_test ;;
    bench-tree) echo gpu_tree_bench ;;
    bench-cpu-tree) echo cpu_tree_bench ;;
    profile) echo gpu_tree_bench ;;
    profile21) echo bh_regression_bench ;;
    cpu-threads) echo cpu_tree_bench ;;
    python) echo orrery_cli ;;
    bench-build) echo gpu_tree_build_bench ;;
    cpu-isa) echo cpu_tree_bench orrery_bh_test ;;
    golden) echo orrery_golden_test orrery_golden_gpu_test ;;
    bench-regression) echo bh_regression_bench ;;
    bench-targets) echo targets_bench ;;
    bench-block) echo block_steps_bench ;;
    bench-mpi-let) echo mpi_let_bench ;;
    bench-exchange|probe-mpi) echo mpi_exchange_bench ;;
    mpi) echo orrery_mpi_communicator_test orrery_mpi_unique_ids_test orrery_mpi_solver_test orrery_mpi_solver_gpu_test orrery_driver_mpi_test orrery_driver_mpi_gpu_test orrery_mpi_distributed_test orrery_mpi_distributed_gpu_test orrery_driver_distributed_test orrery_cli mpi_bench mpi_exchange_bench ;;
    *) return 1 ;;
  esac
}

gpu_test_executables() {  # the executables behind the tests labelled gpu
  ctest --preset cuda -L gpu --show-only=json-v1 2>/dev/null | python3 -c '
import json, sys
seen = []
for t in json.load(sys.stdin).get("tests", []):
    exe = (t.get("command") or [""])[0]
    if exe and exe not in seen:
        seen.append(exe)
print("\n".join(seen))'
}

task_tests() {
  ctest --preset cuda -L gpu -j 4 --output-on-failure >"$logs/ctest_gpu.log" 2>&1 || fail "ctest -L gpu"
  say "== ctest -L gpu"
  grep -E "tests passed|tests failed|Total Test time|\(Failed\)|\(Skipped\)|Not Run" "$logs/ctest_gpu.log" | tee -a "$summary"
  if [ "${ORRERY_SANITIZE:-0}" = 1 ]; then task_sanitize; fi
}

task_sanitize() {
  # API errors are not reported: the error-path tests provoke them on purpose
  # (invalid device index, oversized allocation); memory errors all are.
  say "== compute-sanitizer memcheck (memory errors; API errors not reported)"
  for exe in $(gpu_test_executables); do
    name=$(basename "$exe")
    # The golden cases run the same kernels as the tests below on 64K
    # particles: hours under the sanitizer, and nothing they would add.
    case $name in orrery_golden_gpu_test | orrery_golden_test) continue ;; esac
    if compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 --print-limit 20 "$exe" >"$logs/memcheck_$name.log" 2>&1; then
      say "memcheck $name: clean ($(grep -c '^\[       OK \]' "$logs/memcheck_$name.log") tests ok, $(grep -m1 'ERROR SUMMARY' "$logs/memcheck_$name.log"))"
    else
      fail "memcheck $name (see logs/memcheck_$name.log): $(grep -m1 'ERROR SUMMARY' "$logs/memcheck_$name.log")"
    fi
    # Shared-memory races (the direct kernel's tiles, W = 64's slots, the build's block scans).
    if compute-sanitizer --tool racecheck --report-api-errors no --error-exitcode 3 --print-limit 20 "$exe" >"$logs/racecheck_$name.log" 2>&1; then
      say "racecheck $name: clean ($(grep -m1 'RACECHECK SUMMARY' "$logs/racecheck_$name.log"))"
    else
      fail "racecheck $name (see logs/racecheck_$name.log): $(grep -m1 'RACECHECK SUMMARY' "$logs/racecheck_$name.log")"
    fi
  done
}

task_bench-direct() {
  local bin=build/cuda/bench/gpu_direct_bench
  say "== SASS issue slots per interaction (inner loop, float fast kernels)"
  if command -v cuobjdump >/dev/null; then
    cuobjdump -sass "$bin" >"$logs/gpu_direct_bench.sass" 2>&1
    python3 scripts/sass_slots.py "$out/sass_slots.csv" "$out/sass_loops.txt" <"$logs/gpu_direct_bench.sass" | tee -a "$summary"
  else
    fail "cuobjdump not found: no SASS count"
  fi
  say "== gpu_direct_bench (mode ${ORRERY_BENCH_MODE:-full})"
  "$bin" --out "$out/gpu_direct.csv" --slots "$out/sass_slots.csv" --mode "${ORRERY_BENCH_MODE:-full}" \
    2>&1 | tee "$logs/gpu_direct_bench.log" | tee -a "$summary" || fail "gpu_direct_bench"
}

task_tree() {
  # The GPU walks (bh/) and the GPU tree solver (gravity/).
  local exe filter
  for exe in build/cuda/src/orrery/bh/orrery_bh_gpu_test build/cuda/src/orrery/gravity/orrery_gravity_gpu_test; do
    say "== $(basename $exe)"
    "$exe" >"$logs/tree_tests_$(basename $exe).log" 2>&1 || fail "$(basename $exe) (see logs)"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]|Failure|Expected|Which is|differ" "$logs/tree_tests_$(basename $exe).log" | head -60 | tee -a "$summary"
  done
  for tool in memcheck racecheck; do
    for exe in build/cuda/src/orrery/bh/orrery_bh_gpu_test build/cuda/src/orrery/gravity/orrery_gravity_gpu_test; do
      filter='GpuTreeWalk.Spline*:GpuTreeWalk.GroupOpeningOnASubset*:HilbertLeafOrder.*:GpuTreeSolver.ExactMode*:GpuTreeSolver.DevicePointer*:GpuTreeSolver.WarpOrders*:GpuTreeSolver.ListWalk*:DeviceOctreeTest/*.StructuredInputs*'
      if compute-sanitizer --tool $tool --error-exitcode 3 --print-limit 20 "$exe" --gtest_filter="$filter" \
        >"$logs/${tool}_tree.log" 2>&1; then
        say "$tool $(basename $exe) ($filter): clean, $(grep -c '^\[       OK \]' "$logs/${tool}_tree.log") tests ok, $(grep -m1 'ERROR SUMMARY\|RACECHECK SUMMARY' "$logs/${tool}_tree.log")"
      else
        fail "$tool $(basename $exe): $(grep -m1 'ERROR SUMMARY\|RACECHECK SUMMARY' "$logs/${tool}_tree.log")"; tail -30 "$logs/${tool}_tree.log" | tee -a "$summary"
      fi
    done
  done
}

task_bench-tree() {
  say "== gpu_tree_bench (mode ${ORRERY_BENCH_MODE:-full})"
  build/cuda/bench/gpu_tree_bench --out "$out/gpu_tree.csv" --mode "${ORRERY_BENCH_MODE:-full}" \
    --capacity "${ORRERY_TREE_CAPACITY:-1}" ${ORRERY_TREE_TABLES:+--tables "$ORRERY_TREE_TABLES"} 2>&1 | tee "$logs/gpu_tree_bench.log" | tee -a "$summary" || fail "gpu_tree_bench"
}

task_profile() {
  local bin=build/cuda/bench/gpu_tree_bench
  say "== profile: SASS of the float W=32 coherent walks, then ncu at 1M"
  cuobjdump -sass "$bin" >"$logs/gpu_tree_bench.sass" 2>&1
  python3 - "$logs/gpu_tree_bench.sass" >"$out/coherent_walk_sass.txt" <<'PY'
import re, sys
# Keep the functions coherent_walk<*, *, fast, 32, float, Plummer>: their whole SASS.
keep, out = False, []
for line in open(sys.argv[1]):
    if "Function :" in line:
        keep = "coherent_walk" in line and "Li32EfNS_16Plummer" in line and "MathModeE1E" in line
    if keep:
        out.append(line.rstrip())
print("\n".join(out))
PY
  say "SASS lines kept: $(wc -l <"$out/coherent_walk_sass.txt")"
  ncu --clock-control none -k regex:coherent_walk --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section WarpStateStats --section Occupancy --section InstructionStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section LaunchStats "$bin" --tables "${ORRERY_PROFILE_TABLE:-profile}" --out "$logs/profile.csv" \
    >"$out/ncu_walk.txt" 2>&1 || fail "ncu (see ncu_walk.txt)"
  grep -E "profile:|coherent_walk|Duration|Issue Slots Busy|Executed Ipc A|No Eligible|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|L1/TEX Hit|L2 Hit|Compute \(SM\) Thr" \
    "$out/ncu_walk.txt" | cut -c1-160 | tee -a "$summary"
}

task_profile21() {
  # ORRERY_PROFILE_ROWS / ORRERY_PROFILE_KERNEL: other rows and kernels, e.g. list21 and list_walk.
  local rows=${ORRERY_PROFILE_ROWS:-issue21} kernel=${ORRERY_PROFILE_KERNEL:-coherent_walk}
  say "== profile21: ncu on the $kernel kernels of bh_regression_bench --rows $rows"
  # Per row: 3 warm-ups, 1 timed solve, 3 + 1 phase solves; the relative rows'
  # first evaluation bootstraps (a second, geometric walk). Every walk is
  # profiled; the table below keeps one line per kernel launch.
  ncu --clock-control none -k regex:$kernel --section SpeedOfLight --section WarpStateStats \
    --section InstructionStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis \
    --metrics smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_uniform.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_global_ld.sum \
    build/cuda/bench/bh_regression_bench --rows "$rows" --trials 1 --out "$logs/profile21.csv" \
    >"$out/ncu_$rows.txt" 2>&1 || fail "ncu (see ncu_$rows.txt)"
  grep -E "^  *(old|new|run)|$kernel|Duration|Issue Slots Busy|Executed Ipc A|Achieved Occupancy|Registers Per|L1/TEX Hit|thread_inst_executed_per|inst_executed" \
    "$out/ncu_$rows.txt" | cut -c1-150 | tee -a "$summary"
}

task_cpu-threads() {
  say "== cpu_tree_bench thread sweep at N = 1048576"
  for t in 1 2 4 8 $(nproc); do
    OMP_NUM_THREADS=$t OMP_PROC_BIND=close build/cuda/bench/cpu_tree_bench "$logs/cpu_threads_$t" \
      --min-n 1048576 --max-n 1048576 --trials 3 --scaling-only 1 >"$logs/cpu_threads_$t.log" 2>&1 || fail "cpu_tree_bench $t threads"
    say "threads $t: $(grep -E '^ +1048576' "$logs/cpu_threads_$t.log" | cut -c1-120)"
  done
}

task_python() {
  say "== pytest tests/python (cuda build)"
  # The device host's python3 is a virtual environment whose wheels bring their
  # own C++ runtime: without the system libstdc++ first in the process, toml++'s
  # float parsing inside the module crashed there (istream facets of two
  # runtimes; session of 2026-11-29). Debian's python3 (CI) needs nothing.
  local preload=/usr/lib/x86_64-linux-gnu/libstdc++.so.6
  [ -e "$preload" ] || preload=
  if ! LD_PRELOAD=$preload ORRERY_BUILD_DIR=build/cuda ORRERY_JOBS=$jobs scripts/python_test.sh -rs >"$logs/pytest.log" 2>&1; then
    fail "pytest (see logs/pytest.log)"
    if grep -q "Segmentation fault\|Fatal Python error" "$logs/pytest.log"; then
      # A crash: the failing test again under cuda-gdb, for the native backtrace.
      local t
      t=$(grep -m1 -oE 'tests/python/[a-z_]+\.py", line [0-9]+ in test_[a-z0-9_]+' "$logs/pytest.log" | sed -E 's/", line [0-9]+ in /::/')
      say "crash in $t; backtrace:"
      LD_PRELOAD=$preload PYTHONPATH=$PWD/build/cuda/python ORRERY_CLI=$PWD/build/cuda/apps/orrery/orrery timeout 120 \
        cuda-gdb -batch -ex run -ex bt --args python3 -m pytest -x -q "$t" 2>&1 | grep -E "^#|signal|SIG" | head -30 | tee -a "$summary"
    fi
  fi
  grep -E "passed|failed|SKIPPED|FAILED|Error" "$logs/pytest.log" | tail -15 | tee -a "$summary"
}

task_bench-build() {
  say "== gpu_tree_build_bench"
  build/cuda/bench/gpu_tree_build_bench --out "$out/gpu_tree_build.csv" 2>&1 | tee "$logs/gpu_tree_build_bench.log" | tee -a "$summary" || fail "gpu_tree_build_bench"
}

task_cpu-isa() {
  say "== orrery_bh_test on this host"
  build/cuda/src/orrery/bh/orrery_bh_test >"$logs/tree_test.log" 2>&1 || fail "orrery_bh_test (see logs/tree_test.log)"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\] [0-9]+ tests" "$logs/tree_test.log" | tee -a "$summary"
  say "== 1M walk, avx2 vs avx512, $(nproc) threads"
  for isa in avx2 avx512 avx512 avx2; do
    OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close build/cuda/bench/cpu_tree_bench "$logs/isa_$isa" --isa $isa \
      --min-n 1048576 --max-n 1048576 --trials 5 --scaling-only 1 >"$logs/isa_$isa.log" 2>&1 || fail "cpu_tree_bench --isa $isa"
    say "$isa: $(grep -E '^ +1048576' "$logs/isa_$isa.log" | cut -c1-110)"
  done
}

task_golden() {
  local record=
  [ "${ORRERY_GOLDEN_RECORD:-0}" = 1 ] && record=$out/golden_record.txt
  for exe in build/cuda/tests/golden/orrery_golden_gpu_test build/cuda/tests/golden/orrery_golden_test; do
    say "== $(basename "$exe")${record:+ (recording)}"
    ORRERY_GOLDEN_RECORD=$record "$exe" >"$logs/$(basename "$exe").log" 2>&1 || fail "$(basename "$exe") (see logs)"
    grep -E "^\[  (PASSED|FAILED) |^\[  SKIPPED \] [0-9]|^\[==========\] [0-9]+ tests|^\[  FAILED  \] " "$logs/$(basename "$exe").log" | tee -a "$summary"
  done
}

task_mpi() {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  say "== ctest -L mpi (CPU ranks 1..4; GPU: 1, 2, 4 ranks sharing GPU 0)"
  ctest --preset cuda -L mpi -j 4 --output-on-failure >"$logs/ctest_mpi.log" 2>&1 || fail "ctest -L mpi"
  grep -E "tests passed|tests failed|Total Test time|\(Failed\)|\(Skipped\)|Not Run" "$logs/ctest_mpi.log" | tee -a "$summary"
  say "== compute-sanitizer memcheck, 2 ranks on the GPU (the relative GPU tree, split and gathered)"
  if OMP_NUM_THREADS=4 mpirun --oversubscribe -np 2 compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 20 \
    build/cuda/src/orrery/mpi/orrery_mpi_solver_gpu_test --gtest_filter='*RelativeTree*' >"$logs/memcheck_mpi.log" 2>&1; then
    say "memcheck mpi 2 ranks: clean ($(grep -c 'ERROR SUMMARY: 0 errors' "$logs/memcheck_mpi.log") ranks with 0 errors)"
  else
    fail "memcheck mpi 2 ranks (see logs/memcheck_mpi.log): $(grep 'ERROR SUMMARY' "$logs/memcheck_mpi.log" | tr '\n' ' ')"
  fi
  # The distributed tree's GPU ranks: their subtrees' device builds and their walks.
  if OMP_NUM_THREADS=4 mpirun --oversubscribe -np 2 compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 20 \
    build/cuda/src/orrery/mpi/orrery_mpi_distributed_gpu_test --gtest_filter='*Geometric*' >"$logs/memcheck_mpi_distributed.log" 2>&1; then
    say "memcheck mpi distributed 2 ranks: clean ($(grep -c 'ERROR SUMMARY: 0 errors' "$logs/memcheck_mpi_distributed.log") ranks with 0 errors)"
  else
    fail "memcheck mpi distributed 2 ranks (see logs/memcheck_mpi_distributed.log): $(grep 'ERROR SUMMARY' "$logs/memcheck_mpi_distributed.log" | tr '\n' ' ')"
  fi
  [ "${ORRERY_MPI_BENCH:-1}" = 0 ] && return 0  # the tests alone
  say "== scripts/mpi_bench.sh (${ORRERY_BENCH_MODE:-full})"
  scripts/mpi_bench.sh build/cuda/bench/mpi_bench "$out/mpi_bench.csv" "${ORRERY_BENCH_MODE:-full}" \
    >"$logs/mpi_bench.log" 2>&1 || fail "mpi_bench.sh (see logs/mpi_bench.log)"
  tee -a "$summary" <"$logs/mpi_bench.log"
}

# Builds TARGET... of the old copy ORRERY_OLD_SRC (a `git archive` of an older
# commit) into build/old, for the tasks that run the old and the new commit
# alternately in one call; fails (and says why) where it does not build.
# With ORRERY_OLD_FILES="path ..." (paths under the repository that differ
# between the two commits) the old binaries come from the new build itself:
# those files swapped for the old copy's, the targets rebuilt (only what
# depends on them recompiles) and copied to build/old/bench, then the new
# files put back and rebuilt. Minutes of CUDA compiling fewer than a second
# build tree; only valid when the commits differ in those files alone. The
# old benches of every task of the call are built in that one swap (one
# recompile of the swapped files each way), and a later task finds its own.
build_old() {
  local old=$ORRERY_OLD_SRC
  if [ -n "${ORRERY_OLD_FILES:-}" ]; then
    local f t keep all=("$@") want=$1 ready=1
    for t in "$@"; do [[ " $old_built " == *" $t "* ]] || ready=0; done
    [ $ready = 1 ] && return 0  # an earlier task of this call built them
    for t in "${tasks[@]}"; do
      case $t in
        bench-regression) all+=(bh_regression_bench) ;;
        bench-mpi-let) all+=(mpi_let_bench) ;;
      esac
    done
    set -- $(printf '%s\n' "${all[@]}" | sort -u)
    keep=$(mktemp -d)
    for f in $ORRERY_OLD_FILES; do mkdir -p "$keep/$(dirname "$f")"; cp "$f" "$keep/$f"; cp "$old/$f" "$f"; done
    mkdir -p build/old/bench
    if cmake --build --preset cuda -j "$jobs" --target "$@" >>"$logs/old_build.log" 2>&1; then
      for t in "$@"; do cp "build/cuda/bench/$t" build/old/bench/; done
      old_built="$*"
      say "built $* with the old copy's $ORRERY_OLD_FILES"
    else
      fail "the old files did not build ($*)"; tail -20 "$logs/old_build.log" | tee -a "$summary"
    fi
    for f in $ORRERY_OLD_FILES; do cp "$keep/$f" "$f"; done
    cmake --build --preset cuda -j "$jobs" --target "$@" >>"$logs/old_build.log" 2>&1 || fail "the new files did not rebuild"
    [[ " $old_built " == *" $want "* ]]
    return
  fi
  [ -e "$old/.deps" ] || ln -s "$root/.deps" "$old/.deps"
  if cmake -S "$old" -B build/old -G Ninja -DCMAKE_BUILD_TYPE=Release -DORRERY_ENABLE_CUDA=ON \
    -DORRERY_REQUIRE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DORRERY_BUILD_TESTS=OFF >>"$logs/old_configure.log" 2>&1 &&
    cmake --build build/old -j "$jobs" --target "$@" >>"$logs/old_build.log" 2>&1; then
    say "built $* of the old copy $old"
  else
    fail "old copy $old did not build ($*)"; tail -20 "$logs/old_build.log" | tee -a "$summary"; return 1
  fi
}

task_bench-mpi-let() {
  local csv=$out/mpi_let_${machine}host.csv gpu=0
  [[ ${ORRERY_LET_ARGS:-} == *"--backend cuda"* ]] && gpu=1 csv=$out/mpi_let_${machine}gpu.csv
  say "== scripts/mpi_let_bench.sh: ${ORRERY_LET_MODELS:-plummer}, K = ${ORRERY_LET_RANKS:-1 2 4 8 16} ranks of ${ORRERY_LET_THREADS:-$(nproc) / K} threads, N = ${ORRERY_LET_SIZES:-1048576/rank 4194304 16777216:1,4,16}${ORRERY_LET_ARGS:+, options $ORRERY_LET_ARGS}"
  let_rows() {  # BIN CSV LOG
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ORRERY_LET_STEPS=${ORRERY_LET_STEPS:-2} \
      ORRERY_LET_WARMUP=${ORRERY_LET_WARMUP:-2} ORRERY_LET_BUDGET_S=${ORRERY_LET_BUDGET_S:-300} \
      scripts/mpi_let_bench.sh "$1" "$2" "${ORRERY_LET_SIZES:-1048576/rank 4194304 16777216:1,4,16}" \
      "${ORRERY_LET_RANKS:-1 2 4 8 16}" ${ORRERY_LET_MODELS:-plummer} >"$3" 2>&1 || fail "mpi_let_bench.sh (see $3)"
    tee -a "$summary" <"$3"
  }
  if [ -n "${ORRERY_OLD_SRC:-}" ]; then
    # The old and the new commit's bench alternately, old new old new, each
    # round the same rows (ORRERY_LET_ROUNDS, default 2), into one CSV each.
    build_old mpi_let_bench || return 0
    local round
    for round in $(seq 1 "${ORRERY_LET_ROUNDS:-2}"); do
      say "== round $round: old"
      let_rows build/old/bench/mpi_let_bench "${csv%.csv}_old_$round.csv" "$logs/mpi_let_bench_old_$round.log"
      say "== round $round: new"
      let_rows build/cuda/bench/mpi_let_bench "${csv%.csv}_new_$round.csv" "$logs/mpi_let_bench_new_$round.log"
    done
    return 0
  fi
  if [ -n "${ORRERY_LET_VARIANTS:-}" ]; then
    # One binary, options that differ alternately, each round every variant
    # in turn (ORRERY_LET_ROUNDS, default 2), into one CSV per variant and round.
    local round v i variants
    IFS='|' read -ra variants <<<"$ORRERY_LET_VARIANTS"
    for round in $(seq 1 "${ORRERY_LET_ROUNDS:-2}"); do
      for i in "${!variants[@]}"; do
        v=${variants[$i]}
        say "== round $round: variant $i (${v})"
        ORRERY_LET_ARGS="${ORRERY_LET_ARGS:-} $v" let_rows build/cuda/bench/mpi_let_bench \
          "${csv%.csv}_v${i}_$round.csv" "$logs/mpi_let_bench_v${i}_$round.log"
      done
    done
    return 0
  fi
  let_rows build/cuda/bench/mpi_let_bench "$csv" "$logs/mpi_let_bench.log"
  if [ $gpu = 1 ]; then  # the model fits CPU ranks' rows only
    column -s, -t <"$csv" | cut -c1-400 | tee -a "$summary"
  else
    python3 scripts/mpi_model.py "$csv" 2>&1 | tee -a "$summary" || fail "mpi_model.py"
  fi
}

task_probe-mpi() {
  local bin=build/cuda/bench/mpi_exchange_bench csv=$out/exchange_probe.csv
  say "== probe-mpi: device buffers through the host's MPI"
  { ompi_info --parsable --all 2>/dev/null | grep -i cuda | head -20; ompi_info 2>/dev/null | grep -iE "MCA (pml|btl)" ;
    command -v ucx_info >/dev/null && { ucx_info -v; ucx_info -d | grep -iE "Transport: *cuda|Transport: *gdr"; } ; } 2>&1 | tee -a "$summary"
  [ -x "$bin" ] || { fail "probe-mpi: $bin was not built"; return; }
  local pml
  for pml in ucx ob1; do
    if OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 mpiexec --oversubscribe --mca pml "$pml" -np 2 "$bin" \
      --header --transports device --force-device-mpi --sizes 65536,1048576,4194304,67108864 >"$csv.$pml" 2>"$logs/probe_$pml.log"; then
      say "device buffers through MPI (pml $pml, K = 2): every byte matched"; column -s, -t <"$csv.$pml" | tee -a "$summary"
    else
      say "device buffers through MPI (pml $pml, K = 2): failed, status $? (logs/probe_$pml.log):"; tail -5 "$logs/probe_$pml.log" | tee -a "$summary"
    fi
  done
}

task_bench-exchange() {
  local bin=build/cuda/bench/mpi_exchange_bench csv=$out/exchange_${machine}.csv header=--header k self
  [ -x "$bin" ] || { fail "bench-exchange: $bin was not built (NCCL not found: see logs/configure.log)"; return; }
  say "== mpi_exchange_bench: K = ${ORRERY_EXCHANGE_RANKS:-1 2 4} ranks sharing the GPU${ORRERY_EXCHANGE_ARGS:+, options $ORRERY_EXCHANGE_ARGS}"
  : >"$csv"
  for k in ${ORRERY_EXCHANGE_RANKS:-1 2 4}; do
    self=
    [ "$k" = 1 ] && self=--self  # the LET sends a rank nothing of its own: at K = 1 only --self moves bytes
    # Device pointers through MPI on a call of their own: if the MPI is not CUDA-aware after all
    # and crashes, the other transports' rows are kept.
    for transports in comm,host,nccl device; do
      # shellcheck disable=SC2086 # ORRERY_EXCHANGE_ARGS is a list of options
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec --oversubscribe -np "$k" "$bin" $header $self \
        --transports $transports ${ORRERY_EXCHANGE_ARGS:-} >>"$csv" 2>>"$logs/mpi_exchange_bench.log" ||
        fail "mpi_exchange_bench K = $k, $transports (see logs/mpi_exchange_bench.log)"
      header=
      sleep 1
    done
  done
  grep "^mpi_exchange_bench:" "$logs/mpi_exchange_bench.log" | tee -a "$summary"
  column -s, -t <"$csv" | tee -a "$summary"
}

task_bench-regression() {
  local old=${ORRERY_OLD_SRC:-} csv=$out/bh_regression.csv
  if [ -n "$old" ]; then
    # One program measures both commits: the bench takes only the factory
    # and GpuTreeSolver's interface, which they share.
    cp bench/bh_regression_bench.cu bench/bench_stats.hpp "$old/bench/"
    build_old bh_regression_bench || old=
  fi
  say "== bh_regression_bench${old:+ (old = $old, alternating)}"
  for round in $(seq 1 "${ORRERY_REGRESSION_ROUNDS:-2}"); do
    if [ -n "$old" ]; then
      build/old/bench/bh_regression_bench --out "$logs/old_$round.csv" --label "old$round" ${ORRERY_REGRESSION_ROWS:+--rows "$ORRERY_REGRESSION_ROWS"} 2>&1 | tee -a "$summary" || fail "old bench"
    fi
    build/cuda/bench/bh_regression_bench --out "$logs/new_$round.csv" --label "new$round" ${ORRERY_REGRESSION_ROWS:+--rows "$ORRERY_REGRESSION_ROWS"} 2>&1 | tee -a "$summary" || fail "new bench"
  done
  cat "$logs"/new_1.csv >"$csv"
  for f in "$logs"/old_1.csv "$logs"/old_2.csv "$logs"/new_2.csv; do [ -f "$f" ] && tail -n +2 "$f" >>"$csv"; done
}

task_bench-targets() {
  say "== targets_bench"
  # shellcheck disable=SC2086 # ORRERY_TARGETS_ARGS is a list of options
  OMP_PROC_BIND=close build/cuda/bench/targets_bench --out "$out/targets.csv" ${ORRERY_TARGETS_ARGS:-} 2>&1 | tee -a "$summary" || fail "targets_bench"
}

task_bench-block() {
  local bench=build/cuda/bench/block_steps_bench csv=$out/block_steps_${machine}.csv header=--header
  say "== block_steps_bench (1M Hernquist, one dynamical time at the half-mass radius)"
  row() {  # backend mode value
    local opt=--dt
    [ "$2" = block ] && opt=--eta
    # shellcheck disable=SC2086 # ORRERY_BLOCK_ARGS is a list of options (e.g. --softening 0.001)
    OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close $bench --mode "$2" --backend "$1" --n 1048576 $opt "$3" ${ORRERY_BLOCK_ARGS:-} \
      ${header} ${4:+--substeps "$logs/$4"} >>"$csv" 2>>"$logs/block_steps.log" || fail "block_steps_bench $*"
    header=""
    sleep 1
  }
  local r
  for r in ${ORRERY_BLOCK_GPU:-block:0.025 block:0.1 global:0.03125 global:0.015625 global:0.0078125 global:0.00390625}; do
    row cuda "${r%%:*}" "${r#*:}" "$([ "${r%%:*}" = block ] && echo "block_cuda_${r#*:}.csv")"
  done
  for r in ${ORRERY_BLOCK_CPU:-block:0.1 global:0.03125 global:0.0078125}; do
    row cpu "${r%%:*}" "${r#*:}" "$([ "${r%%:*}" = block ] && echo "block_cpu_${r#*:}.csv")"
  done
  column -s, -t <"$csv" | tee -a "$summary"
}

task_bench-cpu-tree() {
  say "== cpu_tree_bench ($(nproc) threads)"
  OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close build/cuda/bench/cpu_tree_bench "$out/cpu_tree_${machine}host" \
    --max-n 4194304 --trials 3 --budget-s 75 2>&1 | tee "$logs/cpu_tree_bench.log" | tee -a "$summary" || fail "cpu_tree_bench"
}

{
  echo "gpu_session: tasks: ${tasks[*]}"
  # The device copy has no .git: the caller passes ORRERY_COMMIT=$(git rev-parse HEAD).
  echo "commit: ${ORRERY_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,temperature.gpu,power.draw --format=csv 2>&1
  nvcc --version | tail -1
  cmake --version | head -1
} >"$summary"

targets=()
for t in "${tasks[@]}"; do
  tg=$(targets_for "$t") || { fail "unknown task '$t' (accepted: tests sanitize bench-direct tree bench-tree bench-cpu-tree profile cpu-threads python bench-build cpu-isa golden bench-regression bench-targets bench-block bench-mpi-let bench-exchange probe-mpi mpi)"; continue; }
  read -ra more <<<"$tg"
  targets+=("${more[@]}")
done
start=$(date +%s)
configured=0
cmake --preset cuda >"$logs/configure.log" 2>&1 && configured=1
if [ $configured = 1 ] && ! grep -q "Orrery: NCCL ON" "$logs/configure.log"; then
  # mpi_exchange_bench exists only where NCCL was found (cmake/OrreryNccl.cmake).
  kept=()
  for t in "${targets[@]}"; do [ "$t" = mpi_exchange_bench ] || kept+=("$t"); done
  ((${#kept[@]} < ${#targets[@]})) && say "$(grep -m1 'Orrery: NCCL' "$logs/configure.log")"
  targets=("${kept[@]}")
fi
if [ $configured = 1 ] && cmake --build --preset cuda -j "$jobs" --target "${targets[@]}" >"$logs/build.log" 2>&1; then
  say "configure + build (${targets[*]}): $(($(date +%s) - start)) s"
  for t in "${tasks[@]}"; do
    targets_for "$t" >/dev/null && "task_$t"
  done
else
  fail "configure/build; last lines:"
  tail -n 40 "$logs/configure.log" "$logs/build.log" | tee -a "$summary"
fi
tar -czf "$out/logs.tar.gz" -C "$logs" . 2>/dev/null
say "gpu_session: done, status $status"
exit $status
