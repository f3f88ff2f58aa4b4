"""orrery.Simulation: creation, stepping, views, diagnostics, the GIL and Ctrl-C."""

import _thread
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import orrery
from package_helpers import cloud


def test_plummer_simulation_conserves_energy_and_reports_diagnostics():
    sim = orrery.Simulation.plummer(256, seed=5, solver="direct", precision="double", softening=0.05, dt=1 / 256)
    log = sim.run(1.0, every=0.25)
    assert log.dtype == orrery.diagnostics.DTYPE and len(log) == 5
    assert np.allclose(log.time, [0, 0.25, 0.5, 0.75, 1.0])
    assert log.step[-1] == 256 == sim.step_count
    assert log.relative_energy_error[0] == 0.0
    assert 0 < abs(log.relative_energy_error[-1]) < 1e-3
    assert log.total[0] == pytest.approx(-0.25, abs=0.05)  # Henon units (N = 256 fluctuates)
    assert log.virial_ratio[0] == pytest.approx(1.0, abs=0.2)
    assert np.all(np.abs(log.momentum) < 1e-12)
    assert np.all(np.diff(log.lagrangian_radii[0]) > 0)  # 10 % < 50 % < 90 %


def test_integrate_stops_at_the_first_multiple_of_dt_at_or_after_t():
    sim = orrery.Simulation.plummer(64, dt=1 / 128)
    sim.integrate(0.1)
    assert sim.step_count == 13 and sim.time == 13 / 128
    sim.integrate(0.05)  # in the past: nothing to do
    assert sim.step_count == 13
    sim.step(3)
    assert sim.step_count == 16
    with pytest.raises(ValueError, match="count = -1; accepted: an integer >= 0"):
        sim.step(-1)
    with pytest.raises(TypeError):
        sim.step(2.5)


def test_same_seed_gives_identical_runs_and_generators_are_deterministic():
    a = orrery.Simulation.plummer(300, seed=9).integrate(0.2)
    b = orrery.Simulation.plummer(300, seed=9).integrate(0.2)
    c = orrery.Simulation.plummer(300, seed=10)
    assert np.array_equal(a.positions, b.positions) and np.array_equal(a.velocities, b.velocities)
    assert not np.array_equal(a.positions, c.positions)


def test_views_are_zero_copy_read_only_and_follow_the_simulation():
    sim = orrery.Simulation.plummer(100, seed=2)
    x, ax = sim.x, sim.ax
    assert x.dtype == np.float32 and x.shape == (100,) and not x.flags.writeable and not x.flags.owndata
    with pytest.raises(ValueError):
        x[0] = 1.0
    assert np.shares_memory(sim.x, x)  # the same memory every time: no copy
    before = x.copy()
    sim.step()
    assert not np.array_equal(x, before) and np.array_equal(x, sim.positions[:, 0])
    assert np.array_equal(ax, sim.accelerations[:, 0])
    # On a GPU machine the default backend ("auto") keeps the particles on the
    # device, and the views still follow the simulation.
    assert sim.device_resident == ("cuda" in sim.solver_name)
    # (N, 3) rows are copies that the caller owns.
    rows = sim.positions
    assert rows.flags.writeable and rows.flags.c_contiguous and not np.shares_memory(rows, x)


def test_a_view_keeps_the_simulation_memory_alive():
    sim = orrery.Simulation.plummer(50, seed=3)
    vx = sim.vx
    want = vx.copy()
    del sim
    import gc

    gc.collect()
    assert np.array_equal(vx, want)


def test_simulation_from_arrays_keeps_ids_masses_and_dtype():
    pos, mass = cloud(40)
    vel = np.zeros_like(pos)
    ids = np.arange(1000, 1040)
    sim = orrery.Simulation(pos, vel, mass, ids, dt=0.01, time=2.0, precision="double", solver="reference")
    assert sim.dtype == np.float64 and sim.n == 40 and sim.time == 2.0
    assert np.array_equal(sim.ids, ids) and sim.ids.dtype == np.uint64
    assert np.array_equal(sim.positions, pos) and np.array_equal(sim.mass, mass)
    assert sim.settings["solver"] == "reference" and sim.settings["precision"] == "double"
    sim.step()
    assert sim.time == 2.01


@pytest.mark.parametrize(
    "change,exc,message",
    [
        (lambda a: a.update(velocities=np.zeros((3, 3))), ValueError,
         "orrery.Simulation: velocities has 3 rows but positions has 4"),
        (lambda a: a["velocities"].__setitem__((2, 1), np.inf), ValueError,
         "orrery.Simulation: velocities: row 2 is not finite"),
        (lambda a: a["masses"].__setitem__(1, 0.0), ValueError, "orrery.Simulation: masses: row 1 has mass 0"),
        (lambda a: a.update(ids=[1, 2, 2, 3]), ValueError, "ids: ID 2 occurs more than once"),
        (lambda a: a.update(ids=[1.0, 2, 3, 4]), TypeError, "ids: dtype float64 is not accepted"),
        (lambda a: a.update(positions=np.zeros((4, 4))), ValueError, "positions: shape (4, 4) is not accepted"),
    ],
)
def test_invalid_particles_are_rejected_with_a_clear_message(change, exc, message):
    args = {"positions": np.eye(4, 3), "velocities": np.zeros((4, 3)), "masses": np.full(4, 0.25), "ids": None}
    change(args)
    with pytest.raises(exc) as info:
        orrery.Simulation(**args)
    assert message in str(info.value)


def test_invalid_settings_and_dt_are_rejected():
    with pytest.raises(ValueError, match="integration.dt = -1"):
        orrery.Simulation.plummer(10, dt=-1.0)
    with pytest.raises(TypeError, match=r"unknown setting\(s\) \['thetaa'\]"):
        orrery.Simulation.plummer(10, thetaa=0.4)
    with pytest.raises(ValueError, match='initial_conditions.kind = "king"'):
        orrery.Simulation.from_initial_conditions("king", 10)
    with pytest.raises(ValueError, match="initial_conditions.count = 0"):
        orrery.Simulation.plummer(0)
    with pytest.raises(ValueError, match=r"initial_conditions.kepler.eccentricity"):
        orrery.Simulation.kepler(eccentricity=1.5)
    with pytest.raises(ValueError, match=r"initial_conditions.plummer.radius: no such parameter"):
        orrery.Simulation.from_initial_conditions("plummer", 10, model={"radius": 2})


def test_every_generator_of_the_build_makes_a_simulation():
    for kind in orrery.initial_condition_kinds():
        sim = orrery.Simulation.from_initial_conditions(kind, 20, seed=4)
        assert sim.n == (2 if kind == "kepler" else 20)
        assert sim.mass.sum() == pytest.approx(1.0, rel=1e-6)


def test_kepler_orbit_returns_after_one_period():
    sim = orrery.Simulation.kepler(eccentricity=0.3, precision="double", softening=0.0, solver="direct", dt=2 * np.pi / 4096)
    start = sim.positions
    sim.step(4096)  # period 2 pi sqrt(a^3 / M) = 2 pi
    assert np.abs(sim.positions - start).max() < 1e-4
    assert abs(sim.diagnostics()["relative_energy_error"]) == 0.0  # first measurement of the run
    assert abs(sim.integrate(sim.time + 1).diagnostics()["relative_energy_error"]) < 1e-6


def test_the_gil_is_released_while_integrating():
    sim = orrery.Simulation.plummer(1500, seed=1, solver="direct")
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    start = time.monotonic()
    sim.step(20)
    elapsed = time.monotonic() - start
    stop.set()
    t.join()
    # A thread blocked on the GIL for the whole call would tick about once.
    assert len(ticks) > min(10, elapsed / 0.01), (len(ticks), elapsed)


def test_ctrl_c_interrupts_a_long_integrate_between_steps():
    # Started with SIGINT ignored (`nohup ... &`, `&` in a script, some batch
    # systems), Python installs no Ctrl-C handler and interrupt_main() does
    # nothing: integrate(1e6) then ran for hours. The test installs the
    # handler it needs, whatever disposition it inherited.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        sim = orrery.Simulation.plummer(1000, seed=1, solver="direct")
        timer = threading.Timer(0.5, _thread.interrupt_main)  # what Ctrl-C does
        timer.start()
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            sim.integrate(1e6)
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - start < 30
    assert 0 < sim.step_count and sim.time == sim.step_count * sim.dt  # a consistent state
    sim.step()  # and the simulation still works


def test_the_ctrl_c_test_passes_when_started_with_sigint_ignored():
    """The test above, in a pytest started as `nohup scripts/test.sh &` starts it."""
    test = f"{__file__}::test_ctrl_c_interrupts_a_long_integrate_between_steps"
    ignore_sigint = lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)  # noqa: E731 (inherited through exec)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
                       preexec_fn=ignore_sigint, capture_output=True, text=True, timeout=120,
                       cwd=os.path.dirname(__file__))
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_simulation_busy_in_another_thread_refuses_instead_of_racing():
    sim = orrery.Simulation.plummer(1000, seed=1, solver="direct")
    worker = threading.Thread(target=sim.step, args=(400,))
    worker.start()
    deadline = time.monotonic() + 30
    while sim.step_count == 0 and time.monotonic() < deadline:
        time.sleep(0.005)
    try:
        if worker.is_alive():
            with pytest.raises(RuntimeError, match="in use by another thread"):
                sim.step()
        else:
            pytest.skip("the worker finished before the second call (machine too fast for this check)")
    finally:
        worker.join()
    assert sim.step_count == 400


def test_callbacks_run_on_a_schedule_of_simulated_time_and_can_stop_the_run():
    seen = []
    sim = orrery.Simulation.plummer(64, seed=4, dt=1 / 64)
    log = sim.run(1.0, every=0.25, callback=lambda s: seen.append(s.time))
    assert seen == [0.25, 0.5, 0.75, 1.0] and len(log) == 5
    # Stepping in pieces for the callback gives the bits of one call.
    straight = orrery.Simulation.plummer(64, seed=4, dt=1 / 64).integrate(1.0)
    assert np.array_equal(straight.positions, sim.positions)

    stopped = orrery.Simulation.plummer(64, seed=4, dt=1 / 64)
    log = stopped.run(1.0, every=0.25, callback=lambda s: s.time < 0.5)
    assert stopped.time == 0.5 and len(log) == 3
    calls = []
    stopped.integrate(2.0, every=0.5, callback=lambda s: calls.append(s.step_count) or len(calls) < 2)
    assert calls == [64, 96] and stopped.time == 1.5
    with pytest.raises(ValueError, match="needs every"):
        stopped.integrate(3.0, callback=print)
    with pytest.raises(ValueError, match=r"^every = -1; accepted: a number > 0$"):
        stopped.run(3.0, every=-1)


def test_the_progress_line_is_shown_when_asked_and_not_otherwise(capsys, monkeypatch):
    from orrery import _stepping

    monkeypatch.setattr(_stepping, "PROGRESS_AFTER_S", 0.0)
    orrery.Simulation.plummer(64, seed=4, dt=1 / 64).integrate(0.5, progress=True)
    err = capsys.readouterr().err
    assert "step 32/32" in err and "steps/s" in err and err.endswith("\n")
    orrery.Simulation.plummer(64, seed=4, dt=1 / 64).run(0.5, every=0.25)  # pytest's stderr is no terminal
    assert capsys.readouterr().err == ""
