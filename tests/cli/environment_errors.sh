#!/usr/bin/env bash
# The environment failing (a full disk, a file or directory the user may not
# use): exit status 3 and one line from us naming the file and the OS error
# (not libpng's or HDF5's lines, not a crash), and the user's files intact.
source "$(dirname "$0")/lib.sh"

"$ORRERY" ic --set initial_conditions.count=500 -o ic.h5 >/dev/null
"$ORRERY" render ic.h5 -o pic.png --resolution 32 >/dev/null
cp pic.png earlier.png

# PNG through the seam (ENOSPC): our line only, the earlier picture unchanged.
expect_failure 3 "^orrery: error: image 'pic.png': could not be written: No space left on device" \
  env ORRERY_TEST_FAIL_WRITE=1:ENOSPC "$ORRERY" render ic.h5 -o pic.png --resolution 32
cmp -s pic.png earlier.png || fail "the earlier picture was changed by a failed write"

# A real write failure inside libpng (a file-size limit): libpng printed its
# own "libpng error: Write Error" line before ours.
expect_failure 3 "^orrery: error: image 'big.png': could not be written: File too large" \
  sh -c "trap '' XFSZ; ulimit -f 8; exec \"$ORRERY\" render ic.h5 -o big.png --resolution 1024"

# The configuration dump on a really full device.
expect_failure 3 "^orrery: error: standard output: the configuration could not be written: No space left on device" \
  sh -c "exec \"$ORRERY\" config --dump >/dev/full"

# A real write failure inside a snapshot (a file-size limit makes write() fail
# with EFBIG, as a full disk does): it crashed in HDF5 at exit (status 139)
# after HDF5's own two lines.
expect_failure 3 "^orrery: error: output file 'big.h5': could not be written: File too large" \
  sh -c "trap '' XFSZ; ulimit -f 64; exec \"$ORRERY\" ic --set initial_conditions.count=20000 -o big.h5"
[ ! -e big.h5 ] || fail "a failed snapshot write left big.h5"
expect_no_temporaries .

# An output directory where a file is: the user's input (2), with the OS reason.
touch a_file
expect_failure 2 "^orrery: error: output.directory = 'a_file': cannot be created: " \
  "$ORRERY" run --set initial_conditions.count=8 --set output.directory=a_file

# Permissions, as an unprivileged user (root ignores them): 3, naming the file and the OS error.
mkdir locked && chmod 555 locked
expect_failure 3 "^orrery: error: output.directory = 'locked/out': cannot be created: Permission denied" \
  as_unprivileged "$ORRERY" run --set initial_conditions.count=8 --set output.directory=locked/out
expect_failure 3 "^orrery: error: output file 'locked/x.h5': cannot create a file in directory 'locked': Permission denied" \
  as_unprivileged "$ORRERY" ic --set initial_conditions.count=8 -o locked/x.h5
chmod 000 ic.h5
# It was reported as "not an HDF5 file".
expect_failure 3 "^orrery: error: file 'ic.h5': cannot be read: Permission denied$" as_unprivileged "$ORRERY" info ic.h5
expect_failure 3 "^orrery: error: file 'ic.h5': cannot be read: Permission denied$" \
  as_unprivileged "$ORRERY" run --set initial_conditions.kind=file --set initial_conditions.path=ic.h5
# A really full disk, where CI allows it (root with the right to mount): a
# 512 KiB tmpfs that a run's second snapshot overflows. The earlier
# snapshot stays readable and no temporary file is left. The coarse step
# (fast) with a softening it resolves, so the run's only line is the error.
mkdir small
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=512k tmpfs small 2>/dev/null; then
  on_exit() { umount "$work/small"; }
  expect_failure 3 "^orrery: error: output file 'small/out/snapshot_000[0-9].h5': could not be written: No space left on device" \
    "$ORRERY" run --set initial_conditions.count=3000 --set integration.dt=0.0625 --set gravity.softening=0.2 \
    --set integration.t_end=2 --set output.snapshot_interval=0.25 --set output.directory=small/out
  "$ORRERY" info small/out/snapshot_0000.h5 >/dev/null || fail "the first snapshot on the full disk is not readable"
  expect_no_temporaries small
else
  echo "a real small tmpfs: not available here (needs root and the right to mount); the seam covers it"
fi
echo "environment errors: exit status 3, one line each"
