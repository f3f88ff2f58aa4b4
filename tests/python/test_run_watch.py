"""A run that notices (issue 17), from Python: the Kepler orbit of
eccentricity 0.99 without softening at the default step warns
(orrery.TimeStepWarning) and stops (orrery.EnergyErrorExceeded, a
ValueError), through orrery.run (with a final checkpoint) and
Simulation.run; the demo does neither; the limit is validated."""

import re
import warnings

import pytest

import orrery

KEPLER = {"initial_conditions.kind": "kepler", "initial_conditions.kepler.eccentricity": 0.99,
          "gravity.softening": 0}
STOPPED = r"\|dE/E\| = \S+ at step (\d+) \(t = \S+\) exceeds integration\.max_energy_error = 0\.01"


def test_run_warns_then_stops_with_a_checkpoint_of_the_step(tmp_path):
    with pytest.warns(orrery.TimeStepWarning, match=r"integration\.dt = 0\.0078125 is larger than the step"):
        with pytest.raises(orrery.EnergyErrorExceeded, match=STOPPED) as stopped:
            orrery.run(overrides={**KEPLER, "output.directory": str(tmp_path)})
    assert isinstance(stopped.value, ValueError)
    step = int(re.search(STOPPED, str(stopped.value)).group(1))
    assert 0 < step < 1280
    assert (tmp_path / f"checkpoint_{step:012d}.orrck").exists()
    assert not (tmp_path / "diagnostics.csv").exists() and (tmp_path / "diagnostics.csv.partial").exists()


def test_run_without_a_limit_ends_as_it_used_to(tmp_path):
    with pytest.warns(orrery.TimeStepWarning):
        s = orrery.run(overrides={**KEPLER, "integration.max_energy_error": 0, "output.directory": str(tmp_path)})
    assert s["steps"] == 1280 and s["worst_relative_energy_error"] > 100


def test_simulation_run_warns_then_stops_at_the_row(tmp_path):
    sim = orrery.Simulation.kepler(eccentricity=0.99, softening=0.0)
    with pytest.warns(orrery.TimeStepWarning, match="dynamical criterion"):
        with pytest.raises(orrery.EnergyErrorExceeded, match=STOPPED) as stopped:
            sim.run(10.0, every=0.125)
    assert sim.step_count == int(re.search(STOPPED, str(stopped.value)).group(1))
    sim.save_checkpoint(tmp_path / "kept.orrck")  # what the user keeps of it


def test_the_demo_neither_warns_nor_stops(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = orrery.run(overrides={"integration.t_end": 0.5, "output.directory": str(tmp_path)})
        sim = orrery.Simulation.plummer(1024, seed=1, softening=0.05)
        sim.run(0.5, every=0.125)
    assert s["worst_relative_energy_error"] < 0.01


@pytest.mark.parametrize("bad", [-0.1, float("nan"), "much"])
def test_a_bad_limit_is_refused_naming_it(bad):
    sim = orrery.Simulation.plummer(64, seed=1)
    with pytest.raises(ValueError, match=r"max_energy_error = .*; accepted: a finite number >= 0 \(0: no limit\)"):
        sim.run(0.1, every=0.05, max_energy_error=bad)
    with pytest.raises(ValueError, match=r"integration\.max_energy_error = -0\.1 is not accepted; accepted: a number >= 0"):
        orrery.run(overrides={"integration.max_energy_error": -0.1})
