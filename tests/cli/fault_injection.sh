#!/usr/bin/env bash
# Every write of a run fails in turn (the fault-injection seam,
# ORRERY_TEST_FAIL_WRITE, core/write_fault.hpp): the diagnostics log rows,
# each snapshot and the checkpoint. Each failure must stop the run with exit
# status 3 and one line naming the file and the OS error, leave no temporary
# file, and leave what an earlier complete run wrote in the same directory
# intact: its diagnostics.csv, its checkpoint, and its snapshots readable.
source "$(dirname "$0")/lib.sh"

"$ORRERY" run "${small_run[@]}" --set integration.t_end=0.25 --set output.directory=out >/dev/null
save_earlier
seen=""
for k in $(seq 1 40); do
  status=0
  ORRERY_TEST_FAIL_WRITE=$k:EACCES "$ORRERY" run "${small_run[@]}" --set integration.t_end=0.5 \
    --set output.directory=out >/dev/null 2>.stderr || status=$?
  [ "$status" -ne 0 ] || break  # k is past the run's last write
  check_failure 3 "^orrery: error: .*'out/[^']+'.*Permission denied" "$status"
  seen+=" $(writer_of "$(cat .stderr)")"
  grep -q "diagnostics so far are in 'out/diagnostics.csv.partial'" .stderr ||
    grep -q "^orrery: error: diagnostics log 'out/diagnostics.csv.partial'" .stderr ||
    fail "write $k: the message does not say where the failed run's log is: $(cat .stderr)"
  expect_earlier_kept "$k" "$earlier_checkpoint"
done
expect_every_writer_hit "$status" "$seen"
# The run that finally succeeded kept the earlier run's checkpoint (rotation is per run) and its own.
[ -f "$earlier_checkpoint" ] || fail "rotation removed the earlier run's checkpoint"
[ -f out/checkpoint_000000000032.orrck ] || fail "the complete run has no checkpoint"
echo "fault injection: every write failed cleanly (writers hit:$seen)"
