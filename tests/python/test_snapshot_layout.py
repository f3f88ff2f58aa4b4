"""The HDF5 snapshots the CLI writes have the GADGET-4 layout that yt and
pynbody recognise (../shared/research/users-and-formats.md §2.6; docs/snapshots.md),
checked with h5py; yt and pynbody themselves where they are installed.
Also the CLI's ic / info / render / run --restart paths end to end."""

import pathlib
import struct

import h5py
import numpy as np
import pytest

from package_helpers import run_cli

N = 500


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    path = tmp_path_factory.mktemp("snap") / "ic.h5"
    run_cli("ic", "--set", f"initial_conditions.count={N}", "--set", "gravity.precision=double", "-o", path)
    return path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    run_cli("run", "--set", "initial_conditions.count=200", "--set", "integration.t_end=0.25",
            "--set", "integration.dt=0.015625", "--set", "output.snapshot_interval=0.125",
            "--set", f"output.directory={out}")
    return out


def test_header_has_the_gadget_attributes_with_six_types(snapshot):
    with h5py.File(snapshot, "r") as f:
        h = f["Header"].attrs
        for name in ("NumPart_ThisFile", "NumPart_Total"):
            assert h[name].shape == (6,) and h[name].dtype == np.uint64
            assert list(h[name]) == [0, N, 0, 0, 0, 0]
        assert h["NumPart_Total_HighWord"].dtype == np.uint32 and list(h["NumPart_Total_HighWord"]) == [0] * 6
        assert h["MassTable"].dtype == np.float64 and list(h["MassTable"]) == [0.0] * 6
        assert h["Time"] == 0.0 and h["Redshift"] == 0.0 and h["BoxSize"] == 0.0
        assert h["NumFilesPerSnapshot"] == 1
        assert h["Flag_DoublePrecision"] == 1


def test_particles_are_in_parttype1(snapshot):
    with h5py.File(snapshot, "r") as f:
        assert set(f.keys()) == {"Header", "Parameters", "PartType1"}
        p = f["PartType1"]
        assert p["Coordinates"].shape == (N, 3) and p["Coordinates"].dtype == np.float64
        assert p["Velocities"].shape == (N, 3)
        assert p["Masses"].shape == (N,)
        assert p["ParticleIDs"].dtype == np.uint64
        assert list(p["ParticleIDs"][:]) == list(range(1, N + 1))
        assert np.isclose(p["Masses"][:].sum(), 1.0)
        com = (p["Masses"][:][:, None] * p["Coordinates"][:]).sum(axis=0)
        assert np.allclose(com, 0.0, atol=1e-12)


def test_parameters_carry_units_and_run_metadata_but_no_cosmology(snapshot):
    with h5py.File(snapshot, "r") as f:
        a = f["Parameters"].attrs
        for name in ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s", "GravityConstantInternal",
                     "Time_GYR", "softening", "theta"):
            assert np.isfinite(a[name]), name
        assert np.isclose(a["UnitLength_in_cm"], 3.0856775814913673e21)
        for name in ("solver", "version", "config", "unit_system", "softening_kernel", "precision"):
            value = a[name]
            # Fixed-length ASCII: h5py hands back bytes (a variable-length str breaks yt's frontend check).
            assert isinstance(value, (bytes, np.bytes_)), (name, type(value))
        assert b"[initial_conditions]" in a["config"]
        for group in ("Header", "Parameters"):
            for name in ("HubbleParam", "OmegaLambda", "Omega0"):
                assert name not in f[group].attrs


def test_run_snapshots_hold_potential_and_acceleration(run_dir):
    snaps = sorted(run_dir.glob("snapshot_*.h5"))
    assert [s.name for s in snaps] == ["snapshot_0000.h5", "snapshot_0001.h5", "snapshot_0002.h5"]
    with h5py.File(snaps[1], "r") as f:
        assert f["Header"].attrs["Time"] == 0.125
        p = f["PartType1"]
        assert p["Potential"].shape == (200,) and p["Acceleration"].shape == (200, 3)
        assert (p["Potential"][:] < 0).all()


def test_info_render_and_restart(run_dir, tmp_path):
    out = run_cli("info", run_dir / "snapshot_0002.h5").stdout
    assert "particles:        200" in out
    checkpoints = sorted(run_dir.glob("checkpoint_*.orrck"))
    assert checkpoints
    assert "checksum verified" in run_cli("info", checkpoints[-1]).stdout
    png = tmp_path / "p.png"
    run_cli("render", run_dir / "snapshot_0002.h5", "-o", png, "--resolution", "64", "--axis", "x", "--bare")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (64, 64)
    # By default the map is framed: axes and tick labels, colour bar, scale bar and time (margins 70 + 104, 30 + 46).
    run_cli("render", run_dir / "snapshot_0002.h5", "-o", png, "--resolution", "64", "--axis", "x")
    assert struct.unpack(">II", png.read_bytes()[16:24]) == (64 + 174, 64 + 76)
    # Continue the finished run to a later time from its last checkpoint.
    run_cli("run", "--restart", checkpoints[-1], "--set", "integration.t_end=0.375")
    assert (run_dir / "snapshot_0003.h5").exists()


def test_bad_files_give_one_line_and_status_2(tmp_path):
    bad = tmp_path / "bad.h5"
    bad.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(100))
    result = run_cli("info", bad, check=False)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "bad.h5" in result.stderr


def test_yt_loads_it_as_a_gadget_file(snapshot):
    yt = pytest.importorskip("yt")
    # As docs/snapshots.md shows: yt needs the file's units passed as unit_base.
    with h5py.File(snapshot, "r") as f:
        unit_base = {k: float(f["Parameters"].attrs[k])
                     for k in ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s")}
    ds = yt.load(str(snapshot), unit_base=unit_base)
    assert type(ds).__name__ == "GadgetHDF5Dataset"
    masses = ds.all_data()["PartType1", "Masses"]
    assert masses.shape == (N,)
    # Henon units scaled to 1 kpc and 1e10 Msun by default: the model weighs 1e10 Msun.
    assert np.isclose(float(masses.sum().in_units("Msun")), 1e10, rtol=1e-4)  # yt's Msun differs by 3e-6


def test_pynbody_loads_it_as_a_gadget_file(snapshot):
    pynbody = pytest.importorskip("pynbody")
    s = pynbody.load(str(snapshot))
    assert len(s) == N and len(s.dm) == N
    # Units from /Parameters (no cosmology: no a or h factors), time from Time_GYR.
    assert np.isclose(float(s["mass"].in_units("Msol").sum()), 1e10, rtol=1e-5)
    assert np.isclose(float(s["pos"].units.in_units("kpc")), 1.0)
    assert float(s.properties["time"].in_units("Gyr")) == 0.0


def test_render_labels_a_physical_snapshot_and_makes_a_movie_of_a_run(run_dir, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")  # its PNG reader decodes the picture
    import matplotlib.image

    halo = tmp_path / "halo.h5"
    run_cli("ic", "examples/hernquist_halo.toml", "--set", "initial_conditions.count=2000", "-o", halo,
            cwd=pathlib.Path(__file__).resolve().parents[2])
    png = tmp_path / "halo.png"
    run_cli("render", halo, "-o", png, "--width", "120", "--resolution", "128")
    picture = matplotlib.image.imread(png)
    assert picture.shape[:2] == (128 + 76, 128 + 174)
    margin = picture[:30, :70, :3]  # above the map, left: the "y (kpc)" label in dark ink on white
    assert margin.min() < 0.3 and np.median(margin) > 0.99
    # A movie of the run's snapshots as an animated PNG: one frame each, looping.
    frames = len(list(run_dir.glob("snapshot_*.h5")))
    movie = tmp_path / "run.png"
    out = run_cli("render", "--movie", run_dir, "-o", movie, "--resolution", "48").stdout
    assert f"{frames} frames" in out and frames >= 3
    data = movie.read_bytes()
    actl = data.index(b"acTL")
    assert struct.unpack(">II", data[actl + 4:actl + 12]) == (frames, 0)
    assert data.count(b"fcTL") == frames and data.count(b"fdAT") == frames - 1
    result = run_cli("render", "--movie", run_dir, "-o", tmp_path / "run.gif", check=False)
    assert result.returncode == 2 and "accepted for a movie: NAME.mp4 (ffmpeg) or NAME.png" in result.stderr
