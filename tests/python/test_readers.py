"""yt and pynbody, the real readers from PyPI (scripts/setup.sh pins them),
on a physical-units Hernquist snapshot written by the Python package: each
reports the total mass in Msun, the half-mass radius in kpc and the velocity
dispersion in km/s of the model the snapshot was drawn from, and loads it
without a unit warning. And the docs/snapshots.md recipes run as written,
extracted from the file."""

import pathlib
import re
import warnings

import numpy as np
import pytest

import orrery

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "snapshots.md"

# examples/hernquist_halo.toml: 1e12 Msun, Henon length stretched to 60 kpc (scale radius a = 20 kpc), cut at 100 a.
MASS_MSUN, LENGTH_KPC, TRUNCATION, N = 1e12, 60.0, 100.0, 20000
A_KPC = LENGTH_KPC / 3


def model_half_mass_radius_kpc():
    """m(<r) = r^2 / (r + a)^2 of the untruncated sphere; half of the mass inside the cut."""
    c = TRUNCATION / (1 + TRUNCATION)
    q = np.sqrt(0.5) * c  # r / (r + a) at half the enclosed mass
    return A_KPC * q / (1 - q)


def model_velocity_dispersion_km_s():
    """sqrt(<|v|^2>) over the particles: inside the cut the particles are a
    Hernquist sphere of mass M / m(cut) (ic/hernquist.hpp), whose isotropic
    radial dispersion is Hernquist (1990) eq. 10; 3 sigma_r^2 averaged over mass."""
    g = orrery._core.G_KPC_KMS2_PER_MSUN
    m_cut = (TRUNCATION / (1 + TRUNCATION)) ** 2
    gm_over_a = g * MASS_MSUN / m_cut / A_KPC  # (km/s)^2
    x = np.linspace(1e-6, TRUNCATION, 400001)  # r / a
    sigma_r2 = gm_over_a / 12 * (12 * x * (1 + x) ** 3 * np.log((1 + x) / x)
                                 - x / (1 + x) * (25 + 52 * x + 42 * x ** 2 + 12 * x ** 3))
    dm = 2 * x / (1 + x) ** 3  # d m(<x) / dx
    return float(np.sqrt(np.trapezoid(3 * sigma_r2 * dm, x) / np.trapezoid(dm, x)))


def centred_stats(pos_kpc, vel_km_s, mass_msun):
    """(half-mass radius about the centre of mass, 3D velocity dispersion) from a reader's arrays."""
    centre = (mass_msun[:, None] * pos_kpc).sum(0) / mass_msun.sum()
    r = np.linalg.norm(pos_kpc - centre, axis=1)
    order = np.argsort(r)
    half = r[order][np.searchsorted(np.cumsum(mass_msun[order]), 0.5 * mass_msun.sum())]
    mean_v = (mass_msun[:, None] * vel_km_s).sum(0) / mass_msun.sum()
    dispersion = np.sqrt((mass_msun * ((vel_km_s - mean_v) ** 2).sum(1)).sum() / mass_msun.sum())
    return half, dispersion


@pytest.fixture(scope="module")
def halo(tmp_path_factory):
    """hernquist-out/snapshot_0004.h5, as the docs' recipes name it: a run snapshot (with Potential)."""
    root = tmp_path_factory.mktemp("readers")
    (root / "hernquist-out").mkdir()
    sim = orrery.Simulation.hernquist(N, seed=3, mass=MASS_MSUN, length=LENGTH_KPC, truncation=TRUNCATION,
                                      units="physical", solver="tree", theta=0.7, softening=0.5)
    sim.save_snapshot(root / "hernquist-out" / "snapshot_0004.h5")
    return root


def check_against_model(mass_msun, half_kpc, dispersion_km_s):
    # The readers' Msun differ from Orrery's IAU value by a few 1e-6.
    assert mass_msun == pytest.approx(MASS_MSUN, rel=1e-5)
    # Sampling noise of N = 20000 particles: about 1 % in each.
    assert half_kpc == pytest.approx(model_half_mass_radius_kpc(), rel=0.03)
    assert dispersion_km_s == pytest.approx(model_velocity_dispersion_km_s(), rel=0.03)


def test_the_model_values_are_those_of_the_example():
    # examples/hernquist_halo.toml quotes the untruncated half-mass radius, (1 + sqrt 2) a = 48 kpc.
    assert model_half_mass_radius_kpc() == pytest.approx(46.7, abs=0.05)
    # Untruncated, <v^2> = GM / (6 a) (virial theorem, W = -GM^2 / (6a)). Inside the cut the sphere is heavier
    # by 1 / m(cut) = 1.02 and its cold outskirts are gone: a few per cent higher.
    untruncated = np.sqrt(orrery._core.G_KPC_KMS2_PER_MSUN * MASS_MSUN / (6 * A_KPC))
    assert untruncated < model_velocity_dispersion_km_s() < 1.05 * untruncated


def test_pynbody_infers_physical_units_without_a_warning(halo):
    pynbody = pytest.importorskip("pynbody")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Unable to infer units" and the like fail the test
        s = pynbody.load(str(halo / "hernquist-out" / "snapshot_0004.h5"))
        assert type(s).__name__ == "GadgetHDFSnap" and len(s.dm) == N
        mass = np.asarray(s["mass"].in_units("Msol"), dtype=float)
        pos = np.asarray(s["pos"].in_units("kpc"), dtype=float)
        vel = np.asarray(s["vel"].in_units("km s^-1"), dtype=float)
        phi = s["phi"].in_units("km^2 s^-2")
        acc = s["Acceleration"]
        eps = s["eps"].in_units("kpc")  # GADGET-4's softening classes
    assert np.allclose(eps, 0.5)
    half, dispersion = centred_stats(pos, vel, mass)
    check_against_model(mass.sum(), half, dispersion)
    assert float(phi.min()) < -dispersion ** 2  # a bound system, in (km/s)^2
    assert str(acc.units) != "NoUnit()"


def test_yt_reports_msun_kpc_and_km_s_with_the_files_units(halo):
    yt = pytest.importorskip("yt")
    import h5py

    fn = str(halo / "hernquist-out" / "snapshot_0004.h5")
    with h5py.File(fn, "r") as f:
        p = f["Parameters"].attrs
        unit_base = {k: p[k] for k in ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s")}
        bbox = p["BoundingBox"].reshape(3, 2)
    ds = yt.load(fn, unit_base=unit_base, bounding_box=bbox)
    assert type(ds).__name__ == "GadgetHDF5Dataset"
    ad = ds.all_data()
    mass = ad["PartType1", "particle_mass"].in_units("Msun").d
    pos = ad["PartType1", "particle_position"].in_units("kpc").d
    vel = ad["PartType1", "particle_velocity"].in_units("km/s").d
    assert mass.shape == (N,)
    half, dispersion = centred_stats(pos, vel, mass)
    check_against_model(mass.sum(), half, dispersion)
    # The bounding box holds every particle.
    assert (pos >= ds.domain_left_edge.in_units("kpc").d).all() and (pos <= ds.domain_right_edge.in_units("kpc").d).all()


def recipes(section):
    """The ```python blocks of a '### <section>' of docs/snapshots.md."""
    text = DOCS.read_text()
    match = re.search(rf"^### {re.escape(section)}\n(.*?)(?=^##)", text, flags=re.S | re.M)
    assert match, f"docs/snapshots.md has no '### {section}' section"
    blocks = re.findall(r"```python\n(.*?)```", match.group(1), flags=re.S)
    assert blocks, f"docs/snapshots.md '### {section}' has no python block"
    return blocks


@pytest.mark.parametrize("section, module", [("h5py", "h5py"), ("yt", "yt"), ("pynbody", "pynbody")])
def test_the_docs_recipes_run_as_written(halo, section, module, monkeypatch, capsys):
    pytest.importorskip(module)
    monkeypatch.chdir(halo)
    for code in recipes(section):
        exec(compile(code, f"docs/snapshots.md ({section})", "exec"), {})
    out = capsys.readouterr().out
    if section == "yt":
        assert (halo / "halo_yt.png").stat().st_size > 10000
        printed = re.search(r"([0-9.e+]+) Msun", out)
        assert printed and float(printed.group(1)) == pytest.approx(MASS_MSUN, rel=1e-5), out
    if section == "pynbody":
        n, time_gyr = out.splitlines()[0].split()
        assert int(n) == N and float(time_gyr) == 0.0, out
        assert float(out.splitlines()[1].split()[-2]) == pytest.approx(MASS_MSUN, rel=1e-5), out
