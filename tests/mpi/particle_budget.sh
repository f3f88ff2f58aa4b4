#!/usr/bin/env bash
# A run whose particles do not fit one rank's budget (docs/adr/0012): with
# gravity.mpi_layout = "distributed" and gravity.max_particles_per_rank below
# N, one rank refuses it at its first solve (status 2, one line naming the
# rank, what it holds and the key) before it writes anything; four ranks, each
# holding its domain's particles and what the others send it, run it to the
# end with one process's snapshots, byte for byte.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
# 20000 particles, 4 steps; at the first solve one rank of two holds 15782 of them, of four 11039
# (the largest over the run's solves at most 12500): a budget of 13000 (65 % of N).
budget_run=("${small_run[@]}" --set initial_conditions.count=20000 --set gravity.solver=tree --set gravity.theta=0.6
            --set integration.t_end=0.0625 --set output.snapshot_interval=0.0625
            --set gravity.mpi_layout=distributed --set gravity.max_particles_per_rank=13000)

status=0
(mkdir one_rank && cd one_rank && on_ranks 1 run "${budget_run[@]}" --set output.directory=out >/dev/null 2>.stderr) ||
  status=$?
[ "$status" -eq 2 ] || fail "N = 20000 on one rank with a budget of 13000: exit status $status, expected 2"
grep -Eq '^orrery: error: (rank 0 of 1: )?rank 0 of 1 holds 20000 particles \(20000 of its domain, 0 received\), more than gravity.max_particles_per_rank = 13000 .*accepted: more ranks' one_rank/.stderr ||
  fail "no line naming the rank, the counts and the key: $(cat one_rank/.stderr)"
[ ! -e one_rank/out ] || fail "the refused run wrote $(ls one_rank/out)"

mkdir one ranks
(cd one && "$ORRERY" run "${budget_run[@]}" --set output.directory=out >/dev/null)
(cd ranks && on_ranks 4 run "${budget_run[@]}" --set output.directory=out >/dev/null) ||
  fail "four ranks within the budget of 13000 of 20000 particles failed"
same_snapshots one ranks 2
echo "a budget of 13000 of 20000 particles: one rank refuses it, four run it with one process's snapshots"
