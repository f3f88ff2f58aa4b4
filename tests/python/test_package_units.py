"""A Simulation's unit system: taken from the generator, the snapshot or the
checkpoint it came from, written into every file, the CLI's physical
parameters accepted, astropy quantities converted where they go in."""

import h5py
import numpy as np
import pytest

import orrery
from package_helpers import run_cli

MSUN_G = orrery._core.MSUN_G


def halo(**kwargs):
    return orrery.Simulation.hernquist(500, seed=3, mass=1e12, length=60.0, units="physical", precision="double",
                                       **kwargs)


def test_a_physical_halo_from_python_is_the_clis_and_weighs_1e12_msun(tmp_path):
    sim = halo()
    assert sim.units == orrery.Units("physical") and sim.units.system == "physical"
    assert sim.mass.sum() * sim.units.mass_msun == pytest.approx(1e12, rel=1e-12)
    sim.save_snapshot(tmp_path / "py.h5", fields=False)
    run_cli("ic", "--set", "units.system=physical", "--set", "initial_conditions.kind=hernquist",
            "--set", "initial_conditions.count=500", "--set", "initial_conditions.seed=3",
            "--set", "initial_conditions.mass=1e12", "--set", "initial_conditions.length=60",
            "--set", "gravity.precision=double", "-o", tmp_path / "cli.h5")
    with h5py.File(tmp_path / "py.h5", "r") as py, h5py.File(tmp_path / "cli.h5", "r") as cli:
        for name in ("Coordinates", "Velocities", "Masses"):
            assert np.array_equal(py["PartType1"][name][:], cli["PartType1"][name][:]), name
        p = py["Parameters"].attrs
        assert p["unit_system"] == b"physical"
        assert py["PartType1/Masses"][:].sum() * p["UnitMass_in_g"] / MSUN_G == pytest.approx(1e12, rel=1e-12)
        assert p["UnitVelocity_in_cm_per_s"] == 1e5


def test_the_units_survive_snapshot_checkpoint_and_back(tmp_path):
    scaled = orrery.Units("henon", length_kpc=2.5, mass_msun=3e11)
    sim = orrery.Simulation.plummer(64, seed=2, units=scaled)
    sim.step(2)
    sim.save_snapshot(tmp_path / "s.h5")
    again = orrery.Simulation.from_snapshot(tmp_path / "s.h5")
    assert again.units == scaled and again.units.length_kpc == pytest.approx(2.5, rel=1e-15)
    again.save_checkpoint(tmp_path / "c.orrck")
    resumed = orrery.Simulation.load_checkpoint(tmp_path / "c.orrck")
    assert resumed.units == scaled
    resumed.save_snapshot(tmp_path / "t.h5")
    with h5py.File(tmp_path / "t.h5", "r") as f:
        assert f["Parameters"].attrs["UnitMass_in_g"] == pytest.approx(3e11 * MSUN_G, rel=1e-15)
        assert f["Parameters"].attrs["unit_system"] == b"henon"
    assert orrery.read_snapshot(tmp_path / "t.h5")["info"]["units"] == scaled
    # The CLI continues the checkpoint in the same units.
    cfg = run_cli("info", "--config", tmp_path / "c.orrck").stdout
    assert "length_kpc = 2.5" in cfg and "mass_msun = 3" in cfg


def test_the_clis_run_from_a_file_requires_the_files_units(tmp_path):
    halo().save_snapshot(tmp_path / "halo.h5", fields=False)
    result = run_cli("run", "--set", "initial_conditions.kind=file", "--set", f"initial_conditions.path={tmp_path / 'halo.h5'}",
                     "--set", "integration.t_end=0", "--set", f"output.directory={tmp_path / 'out'}", check=False)
    assert result.returncode == 2
    assert 'is in units.system = "physical", but the run has units.system = "henon"' in result.stderr
    run_cli("run", "--set", "initial_conditions.kind=file", "--set", f"initial_conditions.path={tmp_path / 'halo.h5'}",
            "--set", "units.system=physical", "--set", "integration.t_end=0",
            "--set", f"output.directory={tmp_path / 'out'}", "--set", "output.snapshot_interval=1")
    with h5py.File(tmp_path / "out" / "snapshot_0000.h5", "r") as f:
        assert f["Parameters"].attrs["unit_system"] == b"physical"


def test_a_file_whose_units_have_g_other_than_1_is_refused(tmp_path):
    halo().save_snapshot(tmp_path / "g.h5", fields=False)
    with h5py.File(tmp_path / "g.h5", "r+") as f:  # GADGET's kpc, 1e10 Msun, km/s: G = 43009 in code units
        del f["Parameters"].attrs["unit_system"]
        f["Parameters"].attrs["UnitMass_in_g"] = 1e10 * MSUN_G
    with pytest.raises(ValueError, match=r"give G = 43009.\d+ in code units, but Orrery computes with G = 1"):
        orrery.Simulation.from_snapshot(tmp_path / "g.h5")


def test_a_file_of_another_code_in_physical_units_reads_as_physical(tmp_path):
    halo().save_snapshot(tmp_path / "p.h5", fields=False)
    with h5py.File(tmp_path / "p.h5", "r+") as f:
        del f["Parameters"].attrs["unit_system"]
    assert orrery.Simulation.from_snapshot(tmp_path / "p.h5").units == orrery.Units("physical")


def test_units_say_what_a_code_unit_is():
    phys = orrery.Units("physical")
    assert phys.length_kpc == 1.0 and phys.velocity_km_s == 1.0
    assert phys.mass_msun == pytest.approx(1 / 4.30091e-6, rel=1e-12)
    assert phys.time_gyr == pytest.approx(0.9778, rel=1e-4)
    henon = orrery.Units()
    assert henon.system == "henon" and henon.mass_msun == pytest.approx(1e10, rel=1e-15)
    assert henon.velocity_km_s == pytest.approx(207.4, rel=1e-3)
    assert henon != phys and "henon" in repr(henon)
    with pytest.raises(ValueError, match="units.length_kpc = -1.000000; accepted: a number > 0"):
        orrery.Units("henon", length_kpc=-1)
    with pytest.raises(ValueError, match="the physical system is always kpc"):
        orrery.Units("physical", length_kpc=2)
    with pytest.raises(ValueError, match="accepted: length, mass"):
        henon.cgs("volume")


def test_astropy_quantities_are_converted_to_code_units():
    u = pytest.importorskip("astropy.units")
    plain = halo()
    # 60 kpc given as 0.06 Mpc, and dt in Myr: the same particles and step as plain numbers in code units.
    quantities = orrery.Simulation.hernquist(500, seed=3, mass=1e12 * u.Msun, length=0.06 * u.Mpc, units="physical",
                                             precision="double", dt=plain.dt * plain.units.time_gyr * 1e3 * u.Myr)
    assert np.allclose(quantities.positions, plain.positions, rtol=1e-14, atol=0)
    # astropy's Msun (IAU 2015 GM / CODATA 2018 G) is Orrery's to 7e-8.
    assert np.allclose(quantities.mass, plain.mass, rtol=1e-7, atol=0)
    assert quantities.dt == pytest.approx(plain.dt, rel=1e-14)
    total = plain.units.quantity(plain.mass, "mass").sum().to(u.Msun)
    assert total.value == pytest.approx(1e12, rel=1e-7)
    assert plain.units.quantity(plain.vx, "velocity").unit.is_equivalent(u.km / u.s)

    # Arrays with units, into a Simulation of the henon system scaled to 1 kpc and 1e10 Msun.
    pos = np.array([[1.0, 0, 0], [-1.0, 0, 0]]) * u.kpc
    sim = orrery.Simulation(pos, np.zeros((2, 3)) * u.km / u.s, [5e9, 5e9] * u.Msun, softening=10 * u.pc)
    assert np.allclose(sim.positions, [[1, 0, 0], [-1, 0, 0]], rtol=1e-15)
    assert np.allclose(sim.mass, 0.5, rtol=1e-7) and sim.settings["softening"] == pytest.approx(0.01, rel=1e-12)
    with pytest.raises(TypeError, match=r"^masses = .*: not a mass; accepted: a plain number in code units or an "
                                        r"astropy quantity of mass$"):
        orrery.Simulation(pos, np.zeros((2, 3)), [1, 1] * u.kpc)
    # Simulated time as a quantity, on the simulation's clock.
    sim.integrate(sim.dt * 3 * sim.units.time_gyr * u.Gyr)
    assert sim.step_count == 3


def test_forces_take_quantities_with_a_unit_system_and_refuse_them_without():
    u = pytest.importorskip("astropy.units")
    pos = np.array([[0.0, 0, 0], [10.0, 0, 0]])
    acc, pot, _ = orrery.forces(pos * u.kpc, [1e10, 1e10] * u.Msun, softening=0 * u.kpc, units="physical")
    code_mass = 1e10 * u.Msun.to(u.g) / orrery.Units("physical").mass_g
    assert acc[0, 0] == pytest.approx(code_mass / 100, rel=1e-12)  # G m / r^2 in (km/s)^2 / kpc
    assert pot[0] == pytest.approx(-code_mass / 10, rel=1e-12)
    with pytest.raises(TypeError, match=r'^orrery.forces: positions, masses given as quantities; pass units="physical"'):
        orrery.forces(pos * u.kpc, [1, 1] * u.Msun)
