"""Plots of a run with matplotlib (imported on first use: `import orrery`
works without it).

    log = sim.run(10.0, every=0.1)
    orrery.plot.energy_error(log)
    orrery.plot.lagrangian_radii(log)
    orrery.plot.density_image(sim)

Each function draws on `ax` (a new figure's axes when None) and returns the axes.
`units` (a Simulation, an orrery.Units or a system name; None: code units)
labels the axes: in the physical system time is shown in Gyr, lengths in
kpc and surface density in Msun/kpc^2; in Henon units they are labelled as
code units.
"""

import numpy as np

from .diagnostics import LAGRANGIAN_FRACTIONS
from .units import Units

_AXES = {"x": (1, 2), "y": (0, 2), "z": (0, 1)}  # projected along: the two axes kept


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("orrery.plot needs matplotlib: pip install matplotlib (or pip install orrery[plot])") from e
    return plt


def _axes(ax):
    return _pyplot().subplots()[1] if ax is None else ax


def _units(units):
    """Units of a Simulation, a Units, a name, or None (code units)."""
    if units is None:
        return None
    return Units.of(getattr(units, "units", units))


def _scale(units, dimension):
    """(factor from code units, axis-label suffix) for a dimension."""
    u = _units(units)
    if u is None or u.system != "physical":
        return 1.0, " (code units)" if u is None else " (Henon units)"
    return {"time": (u.time_gyr, " (Gyr)"), "length": (u.length_kpc, " (kpc)"),
            "surface_density": (u.mass_msun / u.length_kpc ** 2, r" ($M_\odot\,\mathrm{kpc}^{-2}$)")}[dimension]


def energy_error(log, ax=None, *, units=None, **style):
    """|E - E0| / |E0| against time, log scale, from Simulation.run's records."""
    ax = _axes(ax)
    err = np.abs(np.asarray(log["relative_energy_error"], dtype=float))
    t_scale, t_label = _scale(units, "time")
    ax.plot(np.asarray(log["time"]) * t_scale, np.where(err > 0, err, np.nan), **style)
    ax.set_yscale("log")
    ax.set_xlabel("time" + t_label)
    ax.set_ylabel(r"$|E - E_0| \,/\, |E_0|$")
    return ax


def lagrangian_radii(log, ax=None, fractions=LAGRANGIAN_FRACTIONS, *, units=None, **style):
    """The Lagrangian radii (10, 50, 90 % of the mass) against time, log scale."""
    ax = _axes(ax)
    radii = np.asarray(log["lagrangian_radii"], dtype=float)
    t_scale, t_label = _scale(units, "time")
    r_scale, r_label = _scale(units, "length")
    for k, f in enumerate(fractions):
        ax.plot(np.asarray(log["time"]) * t_scale, radii[:, k] * r_scale, label=f"{100 * f:g} %", **style)
    ax.set_yscale("log")
    ax.set_xlabel("time" + t_label)
    ax.set_ylabel("Lagrangian radius" + r_label)
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


def density_image(sim_or_positions, masses=None, ax=None, *, axis="z", bins=None, extent=None, cmap="magma",
                  units=None):
    """A log-scale image of the projected density (as `orrery render` draws it).

    Pass a Simulation (its units label the axes unless `units` is given), or
    positions (N, 3) and masses (code units). bins: pixels per side (None:
    sqrt(N) between 32 and 512, a few particles per pixel in the bulk);
    extent in code units; empty pixels take the colour of the lowest density."""
    if masses is None:
        positions, masses = sim_or_positions.positions, sim_or_positions.mass
        units = sim_or_positions if units is None else units
    else:
        positions = sim_or_positions
    if bins is None:
        bins = int(np.clip(np.sqrt(len(positions)), 32, 512))
    image, box = projected_density(positions, masses, axis=axis, bins=bins, extent=extent)
    ax = _axes(ax)
    colours = _pyplot().get_cmap(cmap)
    colours = colours.with_extremes(bad=colours(0.0))
    r_scale, r_label = _scale(units, "length")
    s_scale, s_label = _scale(units, "surface_density")
    shown = np.where(image > 0, image * s_scale, np.nan)
    im = ax.imshow(np.log10(shown), origin="lower", extent=tuple(b * r_scale for b in box), cmap=colours,
                   interpolation="nearest")
    first, second = [a for a in "xyz" if a != axis]
    ax.set_xlabel(first + r_label)
    ax.set_ylabel(second + r_label)
    ax.figure.colorbar(im, ax=ax, label=r"$\log_{10}\Sigma$" + s_label)
    return ax
