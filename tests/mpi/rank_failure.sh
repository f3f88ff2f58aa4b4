#!/usr/bin/env bash
# A rank that throws ends the job: one line naming the rank and the error,
# then MPI_Abort; the job's exit status is the error's (1 for a failure), and
# what an earlier run left (its checkpoint, its diagnostics) is intact.
# ORRERY_TEST_FAIL_RANK=<rank>:<step> is the driver's seam (driver/ranks.hpp).
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
tree_run=("${tree_run[@]}" "$@")  # mpi.rank_failure_distributed: --set gravity.mpi_layout=distributed

on_ranks 2 run "${tree_run[@]}" --set integration.t_end=0.25 --set output.directory=out >/dev/null
checkpoint=out/checkpoint_000000000016.orrck
[ -f "$checkpoint" ] || fail "the first run wrote no $checkpoint: $(ls out)"
cp "$checkpoint" earlier.orrck
cp out/diagnostics.csv earlier.csv

status=0
ORRERY_TEST_FAIL_RANK=1:20 on_ranks 2 run --restart "$checkpoint" --set integration.t_end=0.5 "$@" \
  >/dev/null 2>.stderr || status=$?
[ "$status" -eq 1 ] || fail "exit status $status, expected 1 -- stderr: $(cat .stderr)"
[ "$(grep -c '^orrery: ' .stderr)" -eq 1 ] || fail "not one line from orrery: $(cat .stderr)"
grep -Eq '^orrery: failure: rank 1 of 2: injected failure .* after step 20' .stderr ||
  fail "the line does not name rank 1 and the failure: $(cat .stderr)"
cmp -s "$checkpoint" earlier.orrck || fail "the earlier checkpoint changed"
cmp -s out/diagnostics.csv earlier.csv || fail "the earlier diagnostics.csv changed"
"$ORRERY" info "$checkpoint" >/dev/null || fail "the earlier checkpoint is not readable"
expect_no_temporaries out
echo "a throwing rank: one line ($(grep '^orrery: ' .stderr | cut -c1-60)...), status 1, the checkpoint intact"
