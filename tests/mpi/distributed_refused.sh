#!/usr/bin/env bash
# The distributed tree (docs/adr/0012) is the tree solver's alone (CPU ranks
# or a GPU per rank), with the global step or block time steps: another solver with
# gravity.mpi_layout = "distributed" is refused on every rank before
# anything is written, status 2, each rank's line naming the layout, what
# it was given and what is accepted.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"

# refused WHAT REGEX ARGS...: a 2-rank run of ARGS with the distributed layout refused as said.
refused() {
  local what=$1 regex=$2 status=0
  shift 2
  on_ranks 2 run "$@" --set gravity.mpi_layout=distributed --set output.directory=out >/dev/null 2>.stderr ||
    status=$?
  [ "$status" -eq 2 ] || fail "mpi_layout = distributed with $what: exit status $status, expected 2"
  grep -Eq "^orrery: error: rank [01] of 2: gravity.mpi_layout = \"distributed\" with $regex" .stderr ||
    fail "no line naming the layout, $what and what is accepted: $(cat .stderr)"
  [ ! -e out ] || fail "the refused run wrote $(ls out)"
}
refused "the direct solver" 'gravity.solver = "direct".*accepted: solver "tree" \(on the CPU or one GPU per rank\)' \
  "${small_run[@]}" --set gravity.solver=direct
echo "the distributed layout without the tree solver: refused with status 2 before any output"
