"""Snapshots and checkpoints written and read from Python (the CLI's formats)."""

import h5py
import numpy as np
import pytest

import orrery


@pytest.mark.parametrize("precision", ["single", "double"])
def test_snapshot_round_trip_is_bit_exact(tmp_path, precision):
    sim = orrery.Simulation.plummer(200, seed=6, precision=precision, softening=0.02, softening_kernel="spline",
                                    solver="tree", theta=0.3, dt=1 / 64)
    sim.step(5)
    path = tmp_path / "snap.h5"
    sim.save_snapshot(path)
    snap = orrery.read_snapshot(path)
    dtype = np.float32 if precision == "single" else np.float64
    assert snap["positions"].dtype == dtype
    assert np.array_equal(snap["positions"], sim.positions)
    assert np.array_equal(snap["velocities"], sim.velocities)
    assert np.array_equal(snap["masses"], sim.mass)
    assert np.array_equal(snap["ids"], sim.ids)
    assert np.array_equal(snap["accelerations"], sim.accelerations)
    assert np.array_equal(snap["potentials"], sim.potential)
    info = snap["info"]
    assert info["time"] == sim.time and info["step"] == 5
    assert info["softening"] == 0.02 and info["softening_kernel"] == "spline"
    assert info["solver"] == sim.solver_name

    # A simulation restarted from the snapshot has the same state and settings.
    again = orrery.Simulation.from_snapshot(path)
    assert again.time == sim.time and again.dtype == sim.dtype and again.dt == 1 / 64
    assert again.settings == sim.settings
    assert np.array_equal(again.positions, sim.positions)
    assert np.array_equal(again.accelerations, sim.accelerations)


def test_snapshot_has_the_gadget4_layout(tmp_path):
    sim = orrery.Simulation.plummer(50, seed=1, units="physical")
    sim.save_snapshot(tmp_path / "s.h5", fields=False)
    with h5py.File(tmp_path / "s.h5", "r") as f:
        assert f["Header"].attrs["NumPart_Total"][1] == 50
        assert f["PartType1/Coordinates"].shape == (50, 3)
        assert np.array_equal(f["PartType1/Coordinates"][:], sim.positions)
        assert "Potential" not in f["PartType1"] and "Acceleration" not in f["PartType1"]
        assert f["Parameters"].attrs["unit_system"].decode() == "physical"
    snap = orrery.read_snapshot(tmp_path / "s.h5")
    assert "potentials" not in snap and snap["info"]["units"] == orrery.Units("physical")


def test_a_checkpoint_continues_bit_identically(tmp_path):
    settings = dict(solver="direct", precision="single", softening=0.03, dt=1 / 64)
    straight = orrery.Simulation.plummer(300, seed=7, **settings)
    straight.step(20)

    first = orrery.Simulation.plummer(300, seed=7, **settings)
    first.step(8)
    first.diagnostics()  # sets the run's reference energy, which the checkpoint keeps
    first.save_checkpoint(tmp_path / "run.orrck")
    resumed = orrery.Simulation.load_checkpoint(tmp_path / "run.orrck")
    assert resumed.step_count == 8 and resumed.time == first.time and resumed.dt == 1 / 64
    assert resumed.settings == first.settings
    resumed.step(12)
    assert np.array_equal(resumed.positions, straight.positions)
    assert np.array_equal(resumed.velocities, straight.velocities)
    # The energy error is still measured against the first run's start.
    assert resumed.diagnostics()["relative_energy_error"] != 0.0


@pytest.mark.skipif("tree/cpu" not in orrery.available_solvers(), reason="no CPU tree solver in this build")
def test_a_relative_opening_checkpoint_continues_bit_identically(tmp_path):
    # Each evaluation reads the previous one's accelerations: the checkpoint carries them.
    settings = dict(solver="tree", opening="relative", tolerance=0.001, theta=1.0, multipole="quadrupole",
                    precision="double", dt=1 / 64)
    straight = orrery.Simulation.plummer(1000, seed=3, **settings)
    straight.step(12)

    first = orrery.Simulation.plummer(1000, seed=3, **settings)
    first.step(5)
    first.potential  # a late potential solve, which leaves the accelerations alone
    first.save_checkpoint(tmp_path / "run.orrck")
    resumed = orrery.Simulation.load_checkpoint(tmp_path / "run.orrck")
    assert resumed.settings == first.settings
    assert resumed.settings["opening"] == "relative" and resumed.settings["tolerance"] == 0.001
    assert np.array_equal(resumed.accelerations, first.accelerations)
    resumed.step(7)
    assert np.array_equal(resumed.positions, straight.positions)
    assert np.array_equal(resumed.velocities, straight.velocities)

    # The same particles without those accelerations start with a bootstrap and take another path.
    fresh = orrery.Simulation(first.positions, first.velocities, first.mass, first.ids, time=first.time, **settings)
    fresh.step(7)
    assert not np.array_equal(fresh.positions, straight.positions)

    # An override changes the force: the stored accelerations (the old
    # tolerance's) are not kept, and the run is the fresh one at the new tolerance.
    changed = orrery.Simulation.load_checkpoint(tmp_path / "run.orrck", tolerance=0.002)
    assert changed.settings["tolerance"] == 0.002
    fresh_changed = orrery.Simulation(first.positions, first.velocities, first.mass, first.ids, time=first.time,
                                      **{**settings, "tolerance": 0.002})
    changed.step(3)
    fresh_changed.step(3)
    assert np.array_equal(changed.positions, fresh_changed.positions)


def test_file_errors_name_the_file(tmp_path):
    missing = tmp_path / "nope.h5"
    with pytest.raises(ValueError, match="nope.h5"):
        orrery.read_snapshot(missing)
    garbage = tmp_path / "garbage.orrck"
    garbage.write_bytes(b"not a checkpoint at all")
    with pytest.raises(ValueError, match="garbage.orrck"):
        orrery.Simulation.load_checkpoint(garbage)
    sim = orrery.Simulation.plummer(10)
    with pytest.raises(ValueError, match="no-such-dir"):
        sim.save_snapshot(tmp_path / "no-such-dir" / "s.h5")
    with pytest.raises(ValueError, match='^units.system = "cgs"; accepted: henon, physical$'):
        orrery.Simulation.plummer(10, units="cgs")


def test_settings_survive_a_checkpoint_and_the_cli_spelling_of_multipole_is_accepted(tmp_path):
    settings = dict(solver="direct", precision="double", softening=0.07, softening_kernel="spline", theta=0.35,
                    leaf_capacity=5, multipole="quadrupole", opening="relative", tolerance=0.004, math="exact",
                    dt=1 / 32)
    sim = orrery.Simulation.plummer(20, **settings)
    assert sim.settings["multipole"] == 2
    assert sim.settings["opening"] == "relative" and sim.settings["tolerance"] == 0.004
    sim.save_checkpoint(tmp_path / "c.orrck")
    again = orrery.Simulation.load_checkpoint(tmp_path / "c.orrck")
    assert again.settings == sim.settings and again.dt == 1 / 32
    with pytest.raises(ValueError, match='gravity.multipole = "dipole" is not accepted; accepted: one of: monopole, quadrupole, octupole, hexadecapole'):
        orrery.Simulation.plummer(20, multipole="dipole")
