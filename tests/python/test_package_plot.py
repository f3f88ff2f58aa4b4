"""orrery.plot: the helpers draw what they say; the projected density keeps the mass."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import orrery


@pytest.fixture(scope="module")
def run():
    sim = orrery.Simulation.plummer(300, seed=8)
    return sim, sim.run(0.5, every=0.125)


def test_energy_error_and_lagrangian_radii_plot_the_log(run):
    sim, log = run
    ax = orrery.plot.energy_error(log)
    (line,) = ax.get_lines()
    assert np.array_equal(line.get_xdata(), log.time) and ax.get_yscale() == "log"
    ax = orrery.plot.lagrangian_radii(log)
    lines = ax.get_lines()
    assert len(lines) == 3 and np.array_equal(lines[1].get_ydata(), log.lagrangian_radii[:, 1])
    plt.close("all")


def test_projected_density_keeps_the_mass_inside_the_extent(run):
    sim, _ = run
    image, box = orrery.plot.projected_density(sim.positions, sim.mass, axis="x", bins=40, extent=(-50, 50))
    pixel = (box[1] - box[0]) / 40 * (box[3] - box[2]) / 40
    assert image.shape == (40, 40)
    assert image.sum() * pixel == pytest.approx(sim.mass.sum(), rel=1e-5)
    with pytest.raises(ValueError, match="axis = 'w'"):
        orrery.plot.projected_density(sim.positions, sim.mass, axis="w")


def test_density_image_draws_on_the_given_axes(run):
    sim, _ = run
    fig, ax = plt.subplots()
    assert orrery.plot.density_image(sim, ax=ax) is ax
    (image,) = ax.get_images()
    assert image.get_array().shape == (32, 32)  # sqrt(300) -> at least 32 pixels a side
    plt.close(fig)


def test_a_physical_run_is_labelled_and_scaled_in_gyr_kpc_and_msun():
    halo = orrery.Simulation.hernquist(400, seed=2, mass=1e12, length=60, units="physical", dt=1 / 256)
    log = halo.run(1 / 64, every=1 / 128)
    ax = orrery.plot.lagrangian_radii(log, units=halo)
    assert ax.get_xlabel() == "time (Gyr)" and ax.get_ylabel() == "Lagrangian radius (kpc)"
    assert np.allclose(ax.get_lines()[0].get_xdata(), log.time * halo.units.time_gyr)
    assert orrery.plot.energy_error(log, units="physical").get_xlabel() == "time (Gyr)"
    fig, ax = plt.subplots()
    orrery.plot.density_image(halo, ax=ax, extent=(-100, 100))
    assert ax.get_xlabel() == "x (kpc)"
    assert "M_\\odot" in fig.axes[-1].get_ylabel()  # the colour bar: Msun / kpc^2
    # In code units: labelled so, unscaled.
    ax = orrery.plot.lagrangian_radii(log)
    assert ax.get_xlabel() == "time (code units)" and np.array_equal(ax.get_lines()[0].get_xdata(), log.time)
    plt.close("all")
