#!/usr/bin/env bash
# Every write of a run fails in turn (the fault-injection seam,
# ORRERY_TEST_FAIL_WRITE, core/write_fault.hpp): the diagnostics log rows,
# each snapshot and the checkpoint. Each failure must stop the run with exit
# status 3 and one line naming the file and the OS error, leave no temporary
# file, and leave what an earlier complete run wrote in the same directory
# intact: its diagnostics.csv, its checkpoint, and its snapshots readable.
source "$(dirname "$0")/lib.sh"

"$ORRERY" run "${small_run[@]}" --set integration.t_end=0.25 --set output.directory=out >/dev/null
cp out/diagnostics.csv earlier.csv
earlier_checkpoint=out/checkpoint_000000000016.orrck
cp "$earlier_checkpoint" earlier.orrck

seen=""
for k in $(seq 1 40); do
  status=0
  ORRERY_TEST_FAIL_WRITE=$k:EACCES "$ORRERY" run "${small_run[@]}" --set integration.t_end=0.5 \
    --set output.directory=out >/dev/null 2>.stderr || status=$?
  [ "$status" -ne 0 ] || break  # k is past the run's last write
  check_failure 3 "^orrery: error: .*'out/[^']+'.*Permission denied" "$status"
  case "$(cat .stderr)" in
    *"diagnostics log"*) seen+=" log" ;;
    *"snapshot_"*) seen+=" snapshot" ;;
    *"checkpoint_"*) seen+=" checkpoint" ;;
  esac
  grep -q "diagnostics so far are in 'out/diagnostics.csv.partial'" .stderr ||
    grep -q "^orrery: error: diagnostics log 'out/diagnostics.csv.partial'" .stderr ||
    fail "write $k: the message does not say where the failed run's log is: $(cat .stderr)"
  cmp -s out/diagnostics.csv earlier.csv || fail "write $k: the earlier complete diagnostics.csv was replaced"
  cmp -s "$earlier_checkpoint" earlier.orrck || fail "write $k: the earlier run's checkpoint is gone or changed"
  expect_no_temporaries out
  for s in out/snapshot_*.h5; do "$ORRERY" info "$s" >/dev/null || fail "write $k: $s is not readable"; done
done
[ "$status" -eq 0 ] || fail "the run still failed at write 40: the seam counts more writes than expected"
for kind in log snapshot checkpoint; do
  [[ " $seen " == *" $kind "* ]] || fail "no injected failure hit the $kind writer (seen:$seen)"
done
# The run that finally succeeded kept the earlier run's checkpoint (rotation is per run) and its own.
[ -f "$earlier_checkpoint" ] || fail "rotation removed the earlier run's checkpoint"
[ -f out/checkpoint_000000000032.orrck ] || fail "the complete run has no checkpoint"
echo "fault injection: every write failed cleanly (writers hit:$seen)"
