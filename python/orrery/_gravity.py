"""The gravity settings shared by orrery.forces and orrery.Simulation.

Every setting is a keyword whose default (None) means "the library's
default", read from the C++ GravityConfig, so Python and the CLI cannot drift
apart. Invalid values raise ValueError with the CLI's message.
"""

import numpy as np

from . import _core

#: The keywords, in the order the docs list them.
SETTINGS = ("solver", "backend", "precision", "theta", "leaf_capacity", "multipole",
            "softening", "softening_kernel", "math")

_DTYPES = {"single": np.float32, "double": np.float64}
_MULTIPOLES = {"monopole": 1, "quadrupole": 2}  # the CLI's spelling of multipole orders 1 and 2


def config(**settings):
    """A _core.GravityConfig from keyword settings (None: the default)."""
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise TypeError(f"unknown setting(s) {sorted(unknown)}; accepted: {', '.join(SETTINGS)}")
    c = _core.GravityConfig()
    if isinstance(settings.get("multipole"), str):
        name = settings["multipole"]
        if name not in _MULTIPOLES:
            raise ValueError(f'gravity.multipole = "{name}"; accepted: monopole, quadrupole (or 1, 2)')
        settings["multipole"] = _MULTIPOLES[name]
    for key, value in settings.items():
        if value is not None:
            setattr(c, key, value)
    return c


def as_dict(c):
    """The settings of a GravityConfig as a plain dict."""
    return {key: getattr(c, key) for key in SETTINGS}


def dtype(c):
    """The numpy dtype of the precision of `c`."""
    return _DTYPES[c.precision]


def core(name, c):
    """The _core function or class `name` for the precision of `c`."""
    return getattr(_core, f"{name}_{np.dtype(dtype(c)).name}")
