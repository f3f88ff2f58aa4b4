#!/usr/bin/env bash
# The reference solver takes a subset of the targets (gravity/targets.hpp),
# so it runs under mpirun too: on 2 ranks its snapshots are byte-identical to
# one process's. (A solver that takes no subset is refused before any output:
# src/orrery/mpi/replicated_solver_test.cpp.)
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"

reference_run=("${small_run[@]}" --set gravity.solver=reference --set integration.t_end=0.25 --set output.directory=out)
mkdir one ranks
(cd one && "$ORRERY" run "${reference_run[@]}" >/dev/null)
(cd ranks && on_ranks 2 run "${reference_run[@]}" >/dev/null 2>.stderr) || fail "2 ranks failed: $(cat ranks/.stderr)"
same_snapshots one ranks 2
echo "the reference solver on 2 ranks: 2 snapshots byte-identical to one process"
