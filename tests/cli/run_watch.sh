#!/usr/bin/env bash
# A run that notices (issue 17), through the whole program:
#  - the Kepler orbit of eccentricity 0.99 without softening at the default
#    step, which used to end at |dE/E| = 331 with exit status 0: it warns that
#    integration.dt is larger than the criterion's step, then stops with exit
#    status 2 and one error line naming the step, the time and the error and
#    the checkpoint it wrote; an earlier diagnostics.csv is left as it was, and
#    the checkpoint restarts (with the limit lifted, to the end);
#  - the default demo neither warns nor stops.
source "$(dirname "$0")/lib.sh"

kepler=(--set initial_conditions.kind=kepler --set initial_conditions.kepler.eccentricity=0.99
        --set gravity.softening=0 --set output.directory=out)
mkdir out
echo "an earlier run's log" >out/diagnostics.csv
status=0
"$ORRERY" run "${kepler[@]}" >.stdout 2>.all || status=$?
[ "$status" -eq 2 ] || fail "exit status $status, expected 2 -- stderr: $(cat .all)"
grep -Eq '^orrery: warning: integration\.dt = 0\.0078125 is larger than the step [0-9.e+-]+ that the dynamical criterion .* gives particle [01] at t = [0-9.]+ \(step [0-9]+\)' .all ||
  fail "no warning naming dt, the criterion, the particle and the time: $(cat .all)"
grep -v '^orrery: warning:' .all >.stderr
check_failure 2 "^orrery: error: \|dE/E\| = [0-9.e+-]+ at step [0-9]+ \(t = [0-9.]+\) exceeds integration\.max_energy_error = 0\.01: the run stopped there; accepted: .*; the last checkpoint is 'out/checkpoint_[0-9]+\.orrck'$" "$status"
step=$(sed -E 's/.* at step ([0-9]+) .*/\1/' .stderr)
checkpoint=$(printf 'out/checkpoint_%012d.orrck' "$step")
[ -f "$checkpoint" ] || fail "no checkpoint of the step the run stopped at ($step): $(ls out)"
[ "$(cat out/diagnostics.csv)" = "an earlier run's log" ] || fail "the earlier diagnostics.csv was overwritten"
[ -f out/diagnostics.csv.partial ] || fail "the stopped run's rows are not in diagnostics.csv.partial: $(ls out)"
"$ORRERY" info "$checkpoint" >/dev/null || fail "the final checkpoint does not read back"
"$ORRERY" run --restart "$checkpoint" --set integration.max_energy_error=0 >.stdout 2>.all ||
  fail "the checkpoint does not restart with the limit lifted: $(cat .all)"
grep -q "steps to t = 10" .stdout || fail "the restart did not reach t = 10: $(cat .stdout)"

"$ORRERY" run --set output.directory=demo >.stdout 2>.all || fail "the default demo failed: $(cat .all)"
[ ! -s .all ] || fail "the default demo said something on stderr: $(cat .all)"
echo "Kepler e = 0.99: warned, stopped at step $step with status 2 and a checkpoint; the demo: quiet"
