# Helpers of the MPI end-to-end tests (sourced after tests/cli/lib.sh):
# $MPIEXEC runs `orrery` on K ranks, oversubscribed (CI has 2 cores) and as
# root where CI runs as root.
: "${MPIEXEC:?set MPIEXEC to mpiexec}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
# on_ranks K ARGS...: `orrery ARGS...` on K ranks.
on_ranks() {
  local k=$1
  shift
  "$MPIEXEC" --oversubscribe -np "$k" "$ORRERY" "$@"
}
# A tree run of 1000 particles: enough that the ranks' shares differ.
tree_run=("${small_run[@]}" --set initial_conditions.count=1000 --set gravity.solver=tree
          --set gravity.opening=relative --set gravity.theta=1.0)
# same_snapshots A B COUNT: A/out and B/out hold the same COUNT snapshots, byte for byte.
same_snapshots() {
  local s name
  for s in "$1"/out/snapshot_*.h5; do
    name=$(basename "$s")
    [ -f "$2/out/$name" ] || fail "$2 has no $name"
    cmp -s "$s" "$2/out/$name" || fail "$name differs between $1 and $2"
  done
  [ "$(ls "$1"/out/snapshot_*.h5 | wc -l)" -eq "$3" ] || fail "expected $3 snapshots, found $(ls "$1"/out/snapshot_*.h5)"
}
