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
