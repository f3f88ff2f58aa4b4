#!/usr/bin/env bash
# Bad input that was accepted, or refused only after allocating: exit status
# 2 and one line naming the key or file, the value and what is accepted,
# before any output is written.
source "$(dirname "$0")/lib.sh"

mkdir a_directory
# It ran the defaults.
expect_failure 2 "^orrery: error: config file a_directory: is a directory; accepted: a readable TOML file" \
  "$ORRERY" run a_directory
# t_end / dt overflowed the step count: 0 steps, exit 0.
expect_failure 2 "integration.t_end / integration.dt = 10 / 1e-300 = 1e\+301 steps; accepted: at most 2\^53" \
  "$ORRERY" run --set integration.dt=1e-300
# It died in std::bad_alloc (exit 1).
expect_failure 2 "^orrery: error: initial_conditions.count = 1000000000000 needs at least [0-9.e+]+ GB of memory, but [0-9.e+]+ GB is available" \
  "$ORRERY" run --set initial_conditions.count=1000000000000
# Found on a second pass with inputs of our own: a configuration that never
# ends was read until memory ran out; an empty output.directory was an
# environment failure (EINVAL, exit 3); an output interval so small that the
# interval count overflowed int64 silently wrote no snapshots or rows.
expect_failure 2 "^orrery: error: config file /dev/zero: larger than 16 MiB; accepted: a readable TOML file" \
  "$ORRERY" run /dev/zero
expect_failure 2 "^orrery: error: output.directory is empty; accepted: a directory path" \
  "$ORRERY" run --set output.directory=
expect_failure 2 "output.snapshot_interval = 1e-300; accepted: a number >= integration.t_end / 2\^53" \
  "$ORRERY" run --set output.snapshot_interval=1e-300
expect_failure 2 "output.diagnostics_interval = 1e-300; accepted: a number >= integration.t_end / 2\^53" \
  "$ORRERY" run --set output.diagnostics_interval=1e-300
# ... and a count that kind = "kepler" ignores (two bodies) is not held against it.
"$ORRERY" run --set initial_conditions.kind=kepler --set initial_conditions.count=1000000000000 \
  --set integration.t_end=0.01 --set output.directory=kepler >/dev/null || fail "kepler refused an ignored count"
[ ! -e orrery-out ] || fail "a refused run left output behind"
# A movie's frames directory that cannot be made (TMPDIR inside /proc; a
# stand-in ffmpeg, as the real one may be missing): an uncaught filesystem
# error before, exit 1 "(please report this)".
"$ORRERY" run --set initial_conditions.count=64 --set integration.t_end=0.125 --set output.directory=movie_run \
  >/dev/null || fail "the movie's run failed"
mkdir fakebin && printf '#!/bin/sh\nexit 0\n' >fakebin/ffmpeg && chmod +x fakebin/ffmpeg
expect_failure 2 "^orrery: error: movie 'm.mp4': the frames' directory '/proc/orrery-movie-[0-9]+' cannot be created: No such file or directory$" \
  env PATH="$PWD/fakebin:$PATH" TMPDIR=/proc "$ORRERY" render --movie movie_run -o m.mp4 --resolution 32
# The allocator's policy from the environment (docs/adr/0020): a value that is
# neither keep nor release is refused before anything runs; release runs.
expect_failure 2 "^orrery: error: ORRERY_FREED_MEMORY = \"free\"; accepted: keep, release$" \
  env ORRERY_FREED_MEMORY=free "$ORRERY" run --set initial_conditions.count=64 --set integration.t_end=0.125 \
  --set output.directory=policy_refused
[ ! -e policy_refused ] || fail "a refused allocator policy left output behind"
ORRERY_FREED_MEMORY=release "$ORRERY" run --set initial_conditions.count=64 --set integration.t_end=0.125 \
  --set output.directory=policy_release >/dev/null || fail "ORRERY_FREED_MEMORY=release was refused"
echo "bad input: refused before any output"
