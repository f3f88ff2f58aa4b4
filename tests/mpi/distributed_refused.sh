#!/usr/bin/env bash
# The distributed tree (docs/adr/0012) is the tree's alone (on the CPU or a GPU per rank): another solver
# with gravity.mpi_layout = "distributed" is refused on every rank before
# anything is written, status 2, each rank's line naming the layout, the
# solver and what is accepted.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"

status=0
on_ranks 2 run "${small_run[@]}" --set gravity.solver=direct --set gravity.mpi_layout=distributed \
  --set output.directory=out >/dev/null 2>.stderr || status=$?
[ "$status" -eq 2 ] || fail "mpi_layout = distributed with the direct solver: exit status $status, expected 2"
grep -Eq '^orrery: error: rank [01] of 2: gravity.mpi_layout = "distributed" with gravity.solver = "direct".*accepted: solver "tree" \(on the CPU or one GPU per rank\)' .stderr ||
  fail "no line naming the layout, the solver and what is accepted: $(cat .stderr)"
[ ! -e out ] || fail "the refused run wrote $(ls out)"
echo "the distributed layout without the tree solver: refused with status 2 before any output"
