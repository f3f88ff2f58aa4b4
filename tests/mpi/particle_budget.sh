#!/usr/bin/env bash
# A run whose particles do not fit one rank's budget (docs/adr/0012): with
# gravity.mpi_layout = "distributed" and gravity.max_particles_per_rank below
# N, one rank refuses it at its first solve (status 2, one line naming the
# rank, what it holds and the key) before any snapshot; four ranks, each
# holding its domain's particles and what the others send it, run it to the
# end with one process's snapshots, byte for byte.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
budget_run=("${tree_run[@]}" --set initial_conditions.count=3000 --set integration.t_end=0.25
            --set gravity.mpi_layout=distributed --set gravity.max_particles_per_rank=2400)

status=0
(mkdir one_rank && cd one_rank && on_ranks 1 run "${budget_run[@]}" --set output.directory=out >/dev/null 2>.stderr) ||
  status=$?
[ "$status" -eq 2 ] || fail "N = 3000 on one rank with a budget of 2400: exit status $status, expected 2"
grep -Eq '^orrery: error: rank 0 of 1: rank 0 of 1 holds 3000 particles \(3000 of its domain, 0 received\), more than gravity.max_particles_per_rank = 2400 .*accepted: more ranks' one_rank/.stderr ||
  fail "no line naming the rank, the counts and the key: $(cat one_rank/.stderr)"
[ -z "$(ls one_rank/out/snapshot_* 2>/dev/null)" ] || fail "the refused run wrote $(ls one_rank/out)"

mkdir one ranks
(cd one && "$ORRERY" run "${budget_run[@]}" --set output.directory=out >/dev/null)
(cd ranks && on_ranks 4 run "${budget_run[@]}" --set output.directory=out >/dev/null) ||
  fail "four ranks within the budget of 2400 of 3000 particles failed"
same_snapshots one ranks 2
echo "a budget of 2400 of 3000 particles: one rank refuses it, four run it with one process's snapshots"
