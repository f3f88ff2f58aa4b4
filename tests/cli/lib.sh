# Helpers for the CLI's data-safety tests (sourced; $ORRERY is the binary).
# Each test gets a fresh work directory, readable by an unprivileged user so
# that permission cases can run as one when CI runs as root.
set -euo pipefail
: "${ORRERY:?set ORRERY to the orrery binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery_cli_XXXXXX")
chmod 755 "$work"
# A script may define on_exit (e.g. to unmount what it mounted under $work).
trap 'declare -F on_exit >/dev/null && on_exit; chmod -R u+rwX "$work"; rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

# check_failure STATUS REGEX GOT: a command that wrote its stderr to
# $work/.stderr exited with GOT; it must be STATUS, and stderr exactly one
# line matching REGEX (grep -E).
check_failure() {
  local want=$1 regex=$2 got=$3
  [ "$got" -eq "$want" ] || fail "exit status $got, expected $want -- stderr: $(cat "$work/.stderr")"
  [ "$(wc -l <"$work/.stderr")" -eq 1 ] || fail "stderr is not one line: $(cat "$work/.stderr")"
  grep -Eq -- "$regex" "$work/.stderr" || fail "stderr does not match '$regex': $(cat "$work/.stderr")"
}

# expect_failure STATUS REGEX COMMAND...: check_failure of COMMAND.
expect_failure() {
  local want=$1 regex=$2 got=0
  shift 2
  "$@" >"$work/.stdout" 2>"$work/.stderr" || got=$?
  check_failure "$want" "$regex" "$got"
}

# The last failure's message.
last_error() { cat "$work/.stderr"; }

# as_unprivileged COMMAND...: runs COMMAND as user nobody when we are root
# (root ignores file permissions), else as ourselves.
as_unprivileged() {
  if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi
}

# No temporary file of an atomic write is left in directory $1.
# The write-failure sweeps (fault_injection.sh, tests/mpi/write_failure_distributed.sh):
# writer_of TEXT: which writer a failure's line names (log, snapshot, checkpoint).
writer_of() {
  case "$1" in
    *"diagnostics log"*) echo log ;;
    *"snapshot_"*) echo snapshot ;;
    *"checkpoint_"*) echo checkpoint ;;
  esac
}
# save_earlier: after an earlier complete run to t = 0.25 into out/, its log and checkpoint kept
# aside (earlier.csv, earlier.orrck); $earlier_checkpoint names the checkpoint.
save_earlier() {
  cp out/diagnostics.csv earlier.csv
  earlier_checkpoint=out/checkpoint_000000000016.orrck
  cp "$earlier_checkpoint" earlier.orrck
}
# expect_earlier_kept K CHECKPOINT: after the failed write K, what an earlier complete run
# wrote into out/ (saved as earlier.csv and earlier.orrck) is intact and no temporary is left.
expect_earlier_kept() {
  local s
  cmp -s out/diagnostics.csv earlier.csv || fail "write $1: the earlier complete diagnostics.csv was replaced"
  cmp -s "$2" earlier.orrck || fail "write $1: the earlier run's checkpoint is gone or changed"
  expect_no_temporaries out
  for s in out/snapshot_*.h5; do "$ORRERY" info "$s" >/dev/null || fail "write $1: $s is not readable"; done
}
# expect_every_writer_hit STATUS SEEN: the sweep reached a run that succeeded (STATUS 0) and
# its failures hit every writer (SEEN: their writer_of words).
expect_every_writer_hit() {
  local kind
  [ "$1" -eq 0 ] || fail "the run still failed at write 40: the seam counts more writes than expected"
  for kind in log snapshot checkpoint; do
    [[ " $2 " == *" $kind "* ]] || fail "no injected failure hit the $kind writer (seen:$2)"
  done
}

expect_no_temporaries() {
  local left
  left=$(find "$1" -name '.*.tmp-*' | head -1)
  [ -z "$left" ] || fail "a temporary file was left: $left"
}

small_run=(--set initial_conditions.count=64 --set gravity.precision=double --set integration.dt=0.015625
           --set output.diagnostics_interval=0.125 --set output.snapshot_interval=0.25
           --set output.checkpoint_minutes=0 --set output.checkpoint_keep=1)
