"""Stepping a Simulation to a time in pieces: for callbacks on a schedule of
simulated time, and for a progress line on a terminal, as the CLI shows.

Pieces are whole steps, so a run stepped in pieces is bit-identical to one
stepped in a single call.
"""

import math
import sys
import time as _time

#: Wall seconds before the progress line appears (short runs stay quiet).
PROGRESS_AFTER_S = 1.0
#: Wall seconds of stepping between two progress updates.
PROGRESS_EVERY_S = 0.25


class Progress:
    """The CLI's progress line (steps, simulated time, steps/s, ETA) on
    stderr, rewritten in place; shown only on a terminal and only once the
    run has taken PROGRESS_AFTER_S. `enabled`: True, False, or None (a terminal)."""

    def __init__(self, total_steps, enabled=None):
        stream = sys.stderr
        self._on = (stream.isatty() if enabled is None else bool(enabled)) and total_steps > 0
        self._stream, self._total, self._done = stream, total_steps, 0
        self._start = _time.monotonic()
        self._shown = False

    def advance(self, steps, sim_time):
        self._done += steps
        if not self._on:
            return
        wall = _time.monotonic() - self._start
        if wall < PROGRESS_AFTER_S and self._done < self._total:
            return
        rate = self._done / wall if wall > 0 else 0.0
        eta = (self._total - self._done) / rate if rate > 0 else 0.0
        self._stream.write(f"\r  step {self._done}/{self._total}  t = {sim_time:.6g}  {rate:.4g} steps/s  "
                           f"ETA {eta:.0f} s   ")
        self._stream.flush()
        self._shown = True

    def close(self):
        if self._shown:
            self._stream.write("\n")
            self._stream.flush()


def chunk_steps(core, steps, progress):
    """Takes `steps` steps in pieces of about PROGRESS_EVERY_S of wall time
    (one piece when no progress is shown), reporting each to `progress`."""
    if not progress._on:
        core.step(steps)
        progress.advance(steps, core.time)
        return
    piece = 1
    while steps > 0:
        n = min(piece, steps)
        start = _time.monotonic()
        core.step(n)
        progress.advance(n, core.time)
        steps -= n
        elapsed = _time.monotonic() - start
        piece = max(1, int(n * PROGRESS_EVERY_S / elapsed)) if elapsed > 0 else piece * 2


def advance(sim, t_end, *, every=None, at_every=(), progress=None):
    """Steps `sim` until time >= t_end. With `every`, stops at start + k*every
    (k = 1, 2, ..., the last at t_end) and calls each function of `at_every`
    with the simulation there; a function returning False stops the run
    (returns False). Returns True when t_end was reached."""
    core = sim._sim
    bar = Progress(core.steps_until(float(t_end)), progress)
    try:
        if every is None:
            chunk_steps(core, core.steps_until(float(t_end)), bar)
            return True
        start = sim.time
        marks = int(math.ceil((t_end - start) / every - 1e-9))
        for k in range(1, marks + 1):
            chunk_steps(core, core.steps_until(min(start + k * every, t_end)), bar)
            for f in at_every:
                if f(sim) is False:
                    return False
        return True
    finally:
        bar.close()
