#!/usr/bin/env bash
# A run checkpointed on 3 ranks (FIRST_K) continues on 2 (SECOND_K) to the same bits as one
# process doing the same two legs (which continue bit-identically to a run
# that never stopped: tests/restart): every snapshot of both legs is
# byte-identical. Each run writes to a directory of the same name ("out", in
# its own folder) so the configuration stored in the snapshots is the same text.
# Arguments are added to every run's (mpi.restart_other_k_distributed:
# --set gravity.mpi_layout=distributed, which one process ignores;
# mpi.restart_other_k_distributed_block: and block time steps, whose bins the
# checkpoint holds).
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
tree_run=("${tree_run[@]}" "$@")
first=${FIRST_K:-3} second=${SECOND_K:-2}  # the rank counts of the two legs

mkdir one ranks
(cd one && "$ORRERY" run "${tree_run[@]}" --set integration.t_end=0.25 --set output.directory=out >/dev/null)
(cd ranks && on_ranks "$first" run "${tree_run[@]}" --set integration.t_end=0.25 --set output.directory=out >/dev/null)
checkpoint=$(cd ranks && ls out/checkpoint_*.orrck)
# The same columns (with block steps, the time bins too): the same size as one process's file.
[ "$(stat -c %s "ranks/$checkpoint")" = "$(stat -c %s "one/$checkpoint")" ] ||
  fail "the checkpoint of $first ranks holds other columns than one process's: $(stat -c %s "ranks/$checkpoint" "one/$checkpoint")"
(cd one && "$ORRERY" run --restart "$checkpoint" --set integration.t_end=0.5 "$@" >/dev/null)
(cd ranks && on_ranks "$second" run --restart "$checkpoint" --set integration.t_end=0.5 "$@" >/dev/null)
cmp -s "one/$checkpoint" "ranks/$checkpoint" && fail "two runs share a run identity: the comparison below proves nothing new"
[ "$(ls one/out/*.orrck | sed 's,.*/,,')" = "$(ls ranks/out/*.orrck | sed 's,.*/,,')" ] ||
  fail "the checkpoints differ in name: $(ls one/out ranks/out)"
same_snapshots one ranks 3
echo "restart on another K: 3 snapshots byte-identical to one process ($first ranks to t = 0.25, then $second ranks)"
