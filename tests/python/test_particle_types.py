"""Snapshots as other GADGET-4-layout writers make them: several particle
types, masses in MassTable with no Masses dataset, float32 data, uint32 IDs
from 0 or from 1. Orrery runs from such a file (initial_conditions.kind =
"file") and keeps every particle's type and ID through the run, a restart
and the Python package."""

import h5py
import numpy as np
import pytest

import orrery
from package_helpers import run_cli

HALO, DISC = 300, 100
MASS_HALO, MASS_DISC = 2e9, 5e8  # Msun: the writer uses Orrery's physical units (G = 1), in MassTable


def foreign_snapshot(path, first_id):
    """A halo in PartType1 and a disc in PartType2, written with h5py the way
    a GADGET-2/3 IC tool does (legacy header flags and cosmology entries, no
    Masses, no Orrery attributes)."""
    rng = np.random.default_rng(11)
    halo = rng.normal(scale=30.0, size=(HALO, 3))
    radius, phi = rng.uniform(2, 20, DISC), rng.uniform(0, 2 * np.pi, DISC)
    disc = np.column_stack([radius * np.cos(phi), radius * np.sin(phi), rng.normal(scale=0.3, size=DISC)])
    unit_mass = orrery.Units("physical").mass_msun
    with h5py.File(path, "w") as f:
        h = f.create_group("Header").attrs
        counts = np.array([0, HALO, DISC, 0, 0, 0], dtype=np.uint32)
        h["NumPart_ThisFile"] = counts
        h["NumPart_Total"] = counts
        h["NumPart_Total_HighWord"] = np.zeros(6, dtype=np.uint32)
        h["MassTable"] = np.array([0, MASS_HALO / unit_mass, MASS_DISC / unit_mass, 0, 0, 0])
        h["Time"] = 0.0
        h["Redshift"] = 0.0
        h["BoxSize"] = 0.0
        h["NumFilesPerSnapshot"] = np.int32(1)
        for flag in ("Flag_Sfr", "Flag_Cooling", "Flag_StellarAge", "Flag_Metals", "Flag_Feedback"):
            h[flag] = np.int32(0)
        h["Omega0"], h["OmegaLambda"], h["HubbleParam"] = 0.0, 0.0, 1.0
        p = f.create_group("Parameters").attrs  # Orrery's physical units, stated as GADGET-4 does
        units = orrery.Units("physical")
        p["UnitLength_in_cm"] = units.length_cm
        p["UnitMass_in_g"] = units.mass_g
        p["UnitVelocity_in_cm_per_s"] = units.velocity_cm_per_s
        ids = np.arange(first_id, first_id + HALO + DISC, dtype=np.uint32)
        for group, pos, vel_scale, type_ids in (("PartType1", halo, 100.0, ids[:HALO]),
                                               ("PartType2", disc, 150.0, ids[HALO:])):
            g = f.create_group(group)
            g["Coordinates"] = pos.astype(np.float32)
            g["Velocities"] = rng.normal(scale=vel_scale, size=pos.shape).astype(np.float32)
            g["ParticleIDs"] = type_ids
    return ids


def run_from(tmp_path, ic, *more):
    out = tmp_path / "out"
    run_cli("run", "--set", "initial_conditions.kind=file", "--set", f"initial_conditions.path={ic}",
            "--set", "units.system=physical", "--set", "gravity.softening=0.5", "--set", "integration.dt=0.0009765625",
            "--set", "integration.t_end=0.00390625", "--set", "output.snapshot_interval=0.001953125",
            "--set", f"output.directory={out}", *more)
    return out


def check_types_and_ids(path, ids):
    with h5py.File(path, "r") as f:
        assert list(f["Header"].attrs["NumPart_ThisFile"]) == [0, HALO, DISC, 0, 0, 0]
        assert {k for k in f if k.startswith("PartType")} == {"PartType1", "PartType2"}
        assert np.array_equal(f["PartType1/ParticleIDs"][:], ids[:HALO])
        assert np.array_equal(f["PartType2/ParticleIDs"][:], ids[HALO:])
        unit = f["Parameters"].attrs["UnitMass_in_g"] / orrery._core.MSUN_G
        assert f["PartType1/Masses"][:] * unit == pytest.approx(np.full(HALO, MASS_HALO), rel=1e-6)
        assert f["PartType2/Masses"][:] * unit == pytest.approx(np.full(DISC, MASS_DISC), rel=1e-6)
        assert f["Parameters"].attrs["unit_system"] == b"physical"


@pytest.mark.parametrize("first_id", [0, 1])
def test_a_foreign_multi_type_file_runs_and_keeps_types_and_ids_through_a_restart(tmp_path, first_id):
    ic = tmp_path / "ic.hdf5"
    ids = foreign_snapshot(ic, first_id)
    info = run_cli("info", ic).stdout
    assert "types:            PartType1 300, PartType2 100" in info
    assert "units:            physical" in info
    out = run_from(tmp_path, ic)
    check_types_and_ids(out / "snapshot_0002.h5", ids)
    checkpoint = sorted(out.glob("checkpoint_*.orrck"))[-1]
    assert "types:            PartType1 300, PartType2 100" in run_cli("info", checkpoint).stdout
    run_cli("run", "--restart", checkpoint, "--set", "integration.t_end=0.0078125")
    check_types_and_ids(out / "snapshot_0004.h5", ids)
    # The snapshot is still a GADGET file for pynbody: PartType1 and 2 are both its dark matter.
    pynbody = pytest.importorskip("pynbody")
    assert len(pynbody.load(str(out / "snapshot_0004.h5")).dm) == HALO + DISC


def test_the_python_package_keeps_the_types_too(tmp_path):
    ic = tmp_path / "ic.hdf5"
    ids = foreign_snapshot(ic, 1)
    sim = orrery.Simulation.from_snapshot(ic, precision="double")
    assert sim.particle_types == {"PartType1": HALO, "PartType2": DISC} and sim.units.system == "physical"
    assert np.array_equal(sim.ids, ids)
    assert orrery.read_snapshot(ic)["info"]["types"] == {"PartType1": HALO, "PartType2": DISC}
    sim.step(2)
    sim.save_checkpoint(tmp_path / "c.orrck")
    resumed = orrery.Simulation.load_checkpoint(tmp_path / "c.orrck")
    assert resumed.particle_types == sim.particle_types
    resumed.save_snapshot(tmp_path / "s.h5")
    check_types_and_ids(tmp_path / "s.h5", ids)
    # Simulations made from arrays or generators hold PartType1 only.
    assert orrery.Simulation.plummer(10).particle_types == {"PartType1": 10}


def test_a_halo_and_a_disc_built_from_arrays_are_written_as_two_types(tmp_path):
    halo = orrery.Simulation.hernquist(300, seed=1)
    disc = orrery.Simulation.plummer(100, seed=2, length=0.2)
    both = orrery.Simulation(np.vstack([halo.positions, disc.positions]), np.vstack([halo.velocities, disc.velocities]),
                             np.concatenate([halo.mass, disc.mass * 0.1]), types={"PartType1": 300, "PartType2": 100})
    both.save_snapshot(tmp_path / "galaxy.h5", fields=False)
    with h5py.File(tmp_path / "galaxy.h5", "r") as f:
        assert list(f["Header"].attrs["NumPart_ThisFile"]) == [0, 300, 100, 0, 0, 0]
        assert np.array_equal(f["PartType2/ParticleIDs"][:], np.arange(301, 401))
    with pytest.raises(ValueError, match=r"the counts must be >= 0 and add up to the 400 particles"):
        orrery.Simulation(both.positions, both.velocities, both.mass, types={"PartType1": 300})
    with pytest.raises(ValueError, match=r"types: \['Disc'\]; accepted: PartType0, PartType1"):
        orrery.Simulation(both.positions, both.velocities, both.mass, types={"Disc": 400})
