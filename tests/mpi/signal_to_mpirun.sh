#!/usr/bin/env bash
# SIGTERM to mpirun (a batch system's stop): mpirun forwards it to the
# ranks, which agree on it after their step, write one checkpoint and stop
# together; rank 0 says so, and the checkpoint continues the run.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"

"$MPIEXEC" --oversubscribe -np 2 "$ORRERY" run "${tree_run[@]}" --set initial_conditions.count=3000 \
  --set integration.t_end=1000 --set output.directory=out >.stdout 2>.stderr &
job=$!
for _ in $(seq 1 300); do
  [ -f out/snapshot_0001.h5 ] && break
  sleep 0.1
done
[ -f out/snapshot_0001.h5 ] || { kill -KILL "$job"; fail "the run wrote no second snapshot in 30 s"; }
kill -TERM "$job"
timeout 60 tail --pid="$job" -f /dev/null || fail "the job did not end within 60 s of SIGTERM"
wait "$job" || true  # mpirun's own status after a signal is not the ranks'
grep -q "stopped by signal" .stdout || fail "rank 0 did not say the run stopped by a signal: $(cat .stdout .stderr)"
[ "$(grep -c 'stopped by' .stdout)" -eq 1 ] || fail "more than one rank spoke: $(cat .stdout)"
[ "$(ls out/checkpoint_*.orrck | wc -l)" -eq 1 ] || fail "expected one checkpoint: $(ls out)"
expect_no_temporaries out
"$ORRERY" run --restart out/checkpoint_*.orrck --set integration.t_end=0 --set output.directory=again >/dev/null ||
  fail "the stop's checkpoint does not restart"
echo "SIGTERM to mpirun: every rank stopped at $(ls out/checkpoint_*.orrck | sed 's/.*_0*//; s/.orrck//') with one checkpoint"
