"""A softening per particle type (docs/softening.md), as GADGET-4's softening
classes: set in the configuration or from Python, used by the CPU solvers
(a pair takes the larger of its two softenings), written to snapshots as
SofteningComovingClassN / SofteningClassOfPartTypeN, kept in checkpoints
and through a restart, listed by `orrery info`; the GPU solvers refuse it."""

import h5py
import numpy as np
import pytest

import orrery
from package_helpers import run_cli
from test_particle_types import DISC, HALO, foreign_snapshot

EPS_HALO, EPS_DISC = 0.5, 2.0  # kpc (the foreign snapshot is in physical units)


def brute_force(pos, mass, eps):
    """Plummer accelerations in double with max(eps_i, eps_j) for each pair."""
    d = pos[None, :, :] - pos[:, None, :]
    s2 = (d ** 2).sum(axis=2) + np.maximum(eps[:, None], eps[None, :]) ** 2
    np.fill_diagonal(s2, np.inf)
    return (mass[None, :, None] * d / s2[:, :, None] ** 1.5).sum(axis=1)


def two_types(seed=5):
    rng = np.random.default_rng(seed)
    pos = np.vstack([rng.normal(size=(300, 3)), rng.normal(scale=0.2, size=(100, 3)) + [0.3, 0, 0]])
    mass = np.full(400, 1 / 400)
    eps = np.concatenate([np.full(300, 0.02), np.full(100, 0.15)])
    return pos, mass, eps, {"PartType1": 300, "PartType2": 100}


@pytest.mark.parametrize("solver", ["reference", "direct", "tree"])
def test_forces_take_the_larger_softening_of_each_pair(solver):
    pos, mass, eps, types = two_types()
    expected = brute_force(pos, mass, eps)
    # theta = 0 opens every cell: the tree sums every pair as the direct sum does.
    acc, _, _ = orrery.forces(pos, mass, solver=solver, precision="double", softening=0.02, theta=0.0,
                              softening_per_type={"PartType2": 0.15}, types=types)
    assert np.abs(acc - expected).max() < 1e-11 * np.abs(expected).max()
    # Six values (None: the type takes softening) say the same.
    again, _, _ = orrery.forces(pos, mass, solver=solver, precision="double", softening=0.02, theta=0.0,
                                softening_per_type=[None, None, 0.15, None, None, None], types=types)
    assert np.array_equal(acc, again)
    one, _, _ = orrery.forces(pos, mass, solver=solver, precision="double", softening=0.02, theta=0.0)
    assert np.abs(one - expected).max() > 1e-2 * np.abs(expected).max()  # the rule changes the forces


def test_the_gpu_solvers_and_bad_values_are_refused_with_the_accepted_ones():
    pos, mass, _, types = two_types()
    with pytest.raises(ValueError, match=r"gravity.softening_per_type: solver direct/cuda computes one softening for "
                                         r"every particle.*accepted: the solvers reference/cpu, direct/cpu, tree/cpu"):
        orrery.forces(pos, mass, backend="cuda", softening_per_type={"PartType2": 0.15}, types=types)
    with pytest.raises(ValueError, match=r"gravity.softening_per_type.PartType2 = -0.1 is not accepted; accepted: a "
                                         r"number >= 0, or -1 \(unset: gravity.softening\)"):
        orrery.forces(pos, mass, softening_per_type={"PartType2": -0.1}, types=types)
    with pytest.raises(ValueError, match=r"softening_per_type: 'Disc' is not a particle type; accepted: PartType0"):
        orrery.forces(pos, mass, softening_per_type={"Disc": 0.1}, types=types)


def run_from(ic, out, t_end, *more):
    return run_cli("run", "--set", "initial_conditions.kind=file", "--set", f"initial_conditions.path={ic}",
                   "--set", "units.system=physical", "--set", f"gravity.softening={EPS_HALO}",
                   "--set", f"gravity.softening_per_type.PartType2={EPS_DISC}", "--set", "gravity.solver=tree",
                   "--set", "integration.dt=0.0009765625", "--set", f"integration.t_end={t_end}",
                   "--set", "output.snapshot_interval=0.001953125", "--set", f"output.directory={out}", *more)


def positions(path):
    with h5py.File(path, "r") as f:
        return np.vstack([f["PartType1/Coordinates"][:], f["PartType2/Coordinates"][:]])


def test_a_run_writes_the_softening_classes_and_a_restart_keeps_them(tmp_path):
    ic = tmp_path / "ic.hdf5"
    foreign_snapshot(ic, 1)
    whole, split = tmp_path / "whole", tmp_path / "split"
    run_from(ic, whole, 0.00390625)
    run_from(ic, split, 0.001953125)
    with h5py.File(split / "snapshot_0001.h5", "r") as f:
        p = f["Parameters"].attrs
        assert [p[f"SofteningClassOfPartType{t}"] for t in range(6)] == list(range(6))
        assert p["SofteningComovingClass1"] == EPS_HALO and p["SofteningComovingClass2"] == EPS_DISC
        assert p["SofteningMaxPhysClass2"] == EPS_DISC
    assert "softening/type:   PartType1 0.5, PartType2 2 (a pair takes the larger)" in \
        run_cli("info", split / "snapshot_0001.h5").stdout
    checkpoint = sorted(split.glob("checkpoint_*.orrck"))[-1]
    assert "softening/type:   PartType1 0.5, PartType2 2" in run_cli("info", checkpoint).stdout
    # The restart takes the softening per type from the checkpoint and continues bit for bit.
    run_cli("run", "--restart", checkpoint, "--set", "integration.t_end=0.00390625")
    assert np.array_equal(positions(split / "snapshot_0002.h5"), positions(whole / "snapshot_0002.h5"))
    # ... and refuses another one: it is the physics of the run.
    refused = run_cli("run", "--restart", checkpoint, "--set", "gravity.softening_per_type.PartType2=1.0",
                      "--set", "integration.t_end=0.00390625", check=False)
    assert refused.returncode == 2
    assert "gravity.softening_per_type.PartType2 is 2.0 in the checkpoint but 1.0 in this configuration" in refused.stderr
    # Without the softening per type the run differs: the test sees the setting.
    plain = tmp_path / "plain"
    run_cli("run", "--set", "initial_conditions.kind=file", "--set", f"initial_conditions.path={ic}",
            "--set", "units.system=physical", "--set", f"gravity.softening={EPS_HALO}", "--set", "gravity.solver=tree",
            "--set", "integration.dt=0.0009765625", "--set", "integration.t_end=0.00390625",
            "--set", "output.snapshot_interval=0.001953125", "--set", f"output.directory={plain}")
    assert not np.array_equal(positions(plain / "snapshot_0002.h5"), positions(whole / "snapshot_0002.h5"))


def test_python_reads_writes_and_runs_it_as_the_cli_does(tmp_path):
    ic = tmp_path / "ic.hdf5"
    foreign_snapshot(ic, 1)
    out = tmp_path / "out"
    run_from(ic, out, 0.001953125)
    snap = orrery.read_snapshot(out / "snapshot_0001.h5")
    assert snap["info"]["softening_per_type"] == {"PartType0": EPS_HALO, "PartType1": EPS_HALO, "PartType2": EPS_DISC,
                                                  "PartType3": EPS_HALO, "PartType4": EPS_HALO, "PartType5": EPS_HALO}
    # The CLI's first snapshot, continued by Python, equals the CLI's next one bit for bit.
    sim = orrery.Simulation.from_snapshot(out / "snapshot_0000.h5")
    assert sim.settings["softening_per_type"] == {"PartType2": EPS_DISC}
    sim.integrate(0.001953125)
    assert np.array_equal(sim.positions, positions(out / "snapshot_0001.h5"))
    # A checkpoint keeps it; a snapshot written by Python carries the classes.
    sim.save_checkpoint(tmp_path / "c.orrck")
    resumed = orrery.Simulation.load_checkpoint(tmp_path / "c.orrck")
    assert resumed.settings["softening_per_type"] == {"PartType2": EPS_DISC}
    resumed.save_snapshot(tmp_path / "s.h5")
    with h5py.File(tmp_path / "s.h5", "r") as f:
        assert f["Parameters"].attrs["SofteningComovingClass2"] == EPS_DISC
    # From arrays: types and softening_per_type as keywords.
    both = orrery.Simulation(sim.positions, sim.velocities, sim.mass, types={"PartType1": HALO, "PartType2": DISC},
                             softening=EPS_HALO, softening_per_type={"PartType2": EPS_DISC}, precision="double")
    assert both.particle_types == {"PartType1": HALO, "PartType2": DISC}
    assert both.settings["softening_per_type"] == {"PartType2": EPS_DISC}
