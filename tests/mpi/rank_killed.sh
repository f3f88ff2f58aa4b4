#!/usr/bin/env bash
# A rank killed with SIGKILL: mpirun ends the job (non-zero status, within
# seconds), and every checkpoint on disk is a complete, verified one (a write
# the kill interrupted leaves only a temporary file, never a torn
# checkpoint); the newest one continues the run.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"

# Long enough to be killed mid-run; a checkpoint every 0.5 s of wall time.
"$MPIEXEC" --oversubscribe -np 2 "$ORRERY" run "${tree_run[@]}" --set initial_conditions.count=3000 \
  --set integration.t_end=1000 --set output.checkpoint_minutes=0.008 --set output.checkpoint_keep=3 \
  --set output.directory=out >/dev/null 2>.stderr &
job=$!
for _ in $(seq 1 300); do
  [ "$(ls out/checkpoint_*.orrck 2>/dev/null | wc -l)" -ge 2 ] && break
  sleep 0.1
done
[ "$(ls out/checkpoint_*.orrck 2>/dev/null | wc -l)" -ge 2 ] || { kill "$job"; fail "no checkpoints after 30 s"; }
ranks=$(pgrep -P "$job" -x orrery || true)
[ "$(echo "$ranks" | wc -w)" -eq 2 ] || { kill "$job"; fail "expected 2 ranks under mpirun $job, found: $ranks"; }
victim=$(echo "$ranks" | sort -n | tail -1)
kill -KILL "$victim"
status=0
timeout 60 tail --pid="$job" -f /dev/null || fail "mpirun did not end within 60 s of the kill"
wait "$job" || status=$?
[ "$status" -ne 0 ] || fail "mpirun exited 0 after a rank was killed"
for c in out/checkpoint_*.orrck; do
  "$ORRERY" info "$c" >/dev/null || fail "$c is not a complete checkpoint"
done
newest=$(ls out/checkpoint_*.orrck | sort | tail -1)
"$ORRERY" run --restart "$newest" --set integration.t_end=0 --set output.directory=again >/dev/null ||
  fail "the newest checkpoint $newest does not restart"
echo "a killed rank: mpirun ended with status $status; $(ls out/checkpoint_*.orrck | wc -l) checkpoints, all verified"
