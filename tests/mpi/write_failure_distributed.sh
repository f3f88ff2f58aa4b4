#!/usr/bin/env bash
# Every write of a distributed run (gravity.mpi_layout = "distributed": rank 0
# writes the pieces the others send it) fails in turn through the
# fault-injection seam (ORRERY_TEST_FAIL_WRITE, core/write_fault.hpp; only
# rank 0 writes, so only its writes count): the diagnostics log rows, each
# snapshot (written by HDF5 as hyperslabs) and each checkpoint (written
# column by column). Each failure ends the job with status 3 and one line
# naming the file and the OS error, leaves no temporary file, and leaves the
# earlier run's checkpoint and diagnostics intact.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
run=("${small_run[@]}" --set gravity.solver=tree --set gravity.mpi_layout=distributed --set output.directory=out)

on_ranks 2 run "${run[@]}" --set integration.t_end=0.25 >/dev/null
save_earlier
seen=""
for k in $(seq 1 40); do
  status=0
  ORRERY_TEST_FAIL_WRITE=$k:ENOSPC on_ranks 2 run "${run[@]}" --set integration.t_end=0.5 >/dev/null 2>.stderr ||
    status=$?
  [ "$status" -ne 0 ] || break  # k is past the run's last write
  [ "$status" -eq 3 ] || fail "write $k: exit status $status, expected 3: $(cat .stderr)"
  [ "$(grep -c '^orrery: ' .stderr)" -eq 1 ] || fail "write $k: not one line from orrery: $(cat .stderr)"
  grep -Eq "^orrery: error: rank 0 of 2: .*'out/[^']+'.*No space left on device" .stderr ||
    fail "write $k: the line does not name rank 0, the file and the error: $(cat .stderr)"
  seen+=" $(writer_of "$(grep '^orrery: ' .stderr)")"
  expect_earlier_kept "$k" "$earlier_checkpoint"
done
expect_every_writer_hit "$status" "$seen"
echo "a distributed run's writes each failed cleanly on rank 0 (writers hit:$seen)"
