"""The gravity settings shared by orrery.forces and orrery.Simulation.

They are the keys of the CLI's [gravity] table (docs/config.md), checked and
applied by the CLI's own configuration schema in the C++ core: the same
defaults, accepted values and messages (ValueError). A setting left at None
takes the default. A key added to the schema is accepted here at once.
"""

import numpy as np

from . import _core

_DTYPES = {"single": np.float32, "double": np.float64}
_MULTIPOLES = {1: "monopole", 2: "quadrupole"}  # Python also takes the multipole order as a number


def keys():
    """The setting names (the keys of the [gravity] table)."""
    return tuple(_core.gravity_keys())


def config(**settings):
    """A _core.GravityConfig from keyword settings (None: the default)."""
    unknown = set(settings) - set(keys())
    if unknown:
        raise TypeError(f"unknown setting(s) {sorted(unknown)}; accepted: {', '.join(keys())}")
    given = {}
    for key, value in settings.items():
        if value is None:
            continue
        if isinstance(value, np.generic):
            value = value.item()  # numpy scalars as Python numbers
        if key == "multipole" and not isinstance(value, (str, bool)) and value in _MULTIPOLES:
            value = _MULTIPOLES[value]
        given[key] = value
    return _core.gravity_config(given)


def as_dict(c):
    """The settings of a GravityConfig as a plain dict (multipole as its order, 1 or 2)."""
    return {key: getattr(c, key) for key in keys()}


def dtype(c):
    """The numpy dtype of the precision of `c`."""
    return _DTYPES[c.precision]


def core(name, c):
    """The _core function or class `name` for the precision of `c`."""
    return getattr(_core, f"{name}_{np.dtype(dtype(c)).name}")
