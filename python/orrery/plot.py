"""Plots of a run with matplotlib (imported on first use: `import orrery`
works without it).

    log = sim.run(10.0, every=0.1)
    orrery.plot.energy_error(log)
    orrery.plot.lagrangian_radii(log)
    orrery.plot.density_image(sim)

Each function draws on `ax` (a new figure's axes when None) and returns the axes.
"""

import numpy as np

from .diagnostics import LAGRANGIAN_FRACTIONS

_AXES = {"x": (1, 2), "y": (0, 2), "z": (0, 1)}  # projected along: the two axes kept


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("orrery.plot needs matplotlib: pip install matplotlib (or pip install orrery[plot])") from e
    return plt


def _axes(ax):
    return _pyplot().subplots()[1] if ax is None else ax


def energy_error(log, ax=None, **style):
    """|E - E0| / |E0| against time, log scale, from Simulation.run's records."""
    ax = _axes(ax)
    err = np.abs(np.asarray(log["relative_energy_error"], dtype=float))
    ax.plot(log["time"], np.where(err > 0, err, np.nan), **style)
    ax.set_yscale("log")
    ax.set_xlabel("time")
    ax.set_ylabel(r"$|E - E_0| \,/\, |E_0|$")
    return ax


def lagrangian_radii(log, ax=None, fractions=LAGRANGIAN_FRACTIONS, **style):
    """The Lagrangian radii (10, 50, 90 % of the mass) against time, log scale."""
    ax = _axes(ax)
    radii = np.asarray(log["lagrangian_radii"], dtype=float)
    for k, f in enumerate(fractions):
        ax.plot(log["time"], radii[:, k], label=f"{100 * f:g} %", **style)
    ax.set_yscale("log")
    ax.set_xlabel("time")
    ax.set_ylabel("Lagrangian radius")
    ax.legend(title="mass fraction")
    return ax


def projected_density(positions, masses, *, axis="z", bins=256, extent=None):
    """Mass per unit area projected along `axis` on a bins x bins grid.

    positions (N, 3), masses (N,) or scalar. extent: (lo, hi) of both kept
    axes; None: centred on the median position, +-3 times the median
    distance from it (the bulk of a cluster, not its farthest escaper).
    Returns (image[bins, bins] indexed [row = second axis, column = first],
    (lo_first, hi_first, lo_second, hi_second)) for imshow's extent.
    """
    if axis not in _AXES:
        raise ValueError(f"axis = {axis!r}; accepted: 'x', 'y', 'z'")
    pos = np.asarray(positions, dtype=float)
    i, j = _AXES[axis]
    u, v = pos[:, i], pos[:, j]
    w = np.broadcast_to(np.asarray(masses, dtype=float), u.shape)
    if extent is None:
        cu, cv = np.median(u), np.median(v)
        r = 3 * np.median(np.hypot(u - cu, v - cv)) or 1.0
        box = ((cu - r, cu + r), (cv - r, cv + r))
    else:
        box = (tuple(extent), tuple(extent))
    image, ue, ve = np.histogram2d(u, v, bins=bins, range=box, weights=w)
    area = (ue[1] - ue[0]) * (ve[1] - ve[0])
    return image.T / area, (ue[0], ue[-1], ve[0], ve[-1])


def density_image(sim_or_positions, masses=None, ax=None, *, axis="z", bins=None, extent=None, cmap="magma"):
    """A log-scale image of the projected density (as `orrery render` draws it).

    Pass a Simulation, or positions (N, 3) and masses. bins: pixels per side
    (None: sqrt(N) between 32 and 512, a few particles per pixel in the bulk);
    empty pixels take the colour of the lowest density."""
    if masses is None:
        positions, masses = sim_or_positions.positions, sim_or_positions.mass
    else:
        positions = sim_or_positions
    if bins is None:
        bins = int(np.clip(np.sqrt(len(positions)), 32, 512))
    image, box = projected_density(positions, masses, axis=axis, bins=bins, extent=extent)
    ax = _axes(ax)
    colours = _pyplot().get_cmap(cmap)
    colours = colours.with_extremes(bad=colours(0.0))
    shown = np.where(image > 0, image, np.nan)
    im = ax.imshow(np.log10(shown), origin="lower", extent=box, cmap=colours, interpolation="nearest")
    first, second = [a for a in "xyz" if a != axis]
    ax.set_xlabel(first)
    ax.set_ylabel(second)
    ax.figure.colorbar(im, ax=ax, label=r"$\log_{10}\Sigma$")
    return ax
