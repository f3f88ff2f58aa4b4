"""orrery.run: `orrery run` from Python."""

import signal
import threading
import warnings

from . import _core
from .errors import TimeStepWarning


def run(config=None, *, overrides=None, restart=None, on_progress=None):
    """Runs a simulation exactly as `orrery run` does, with the same outputs.

    config: a TOML configuration file (docs/config.md), or None for the
    embedded default. overrides: "section.key=value" strings or a dict
    {"section.key": value}, as --set. restart: a checkpoint to continue (its
    own configuration unless `config` is given). on_progress: called with a
    dict (step, total_steps, time, wall_seconds) about twice a second.

    As in the CLI, SIGINT (Ctrl-C) or SIGTERM during the run writes a
    checkpoint and stops (when called from the main thread; Python's own
    handlers are restored afterwards), and so do a STOP file in the output
    directory and integration.wall_limit_minutes. As in the CLI, the run warns
    (orrery.TimeStepWarning) when integration.dt is larger than the time-step
    criterion's step for the fastest particle, and raises
    orrery.EnergyErrorExceeded, after writing a checkpoint, when a diagnostics
    row's |dE/E| passes integration.max_energy_error. Returns a dict: solver,
    steps, first_step, time, relative_energy_error (the last row's),
    worst_relative_energy_error (the largest |dE/E| of this run), wall_seconds,
    diagnostics (the CSV path), stopped_by ("" when t_end was reached),
    checkpoint (the last one written), snapshots (written by this run), config.
    """
    if isinstance(overrides, dict):
        overrides = [f"{key}={value}" for key, value in overrides.items()]
    overrides = [str(o) for o in (overrides or [])]
    main = threading.current_thread() is threading.main_thread()
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} if main else {}
    said = []  # the run's warnings, warned here, where Python may raise them as errors
    try:
        return _core.run(str(config or ""), overrides, str(restart or ""), main, on_progress, said.append)
    finally:
        for message in said:
            warnings.warn(message, TimeStepWarning, stacklevel=2)
        for sig, handler in saved.items():
            if handler is not None:
                signal.signal(sig, handler)
