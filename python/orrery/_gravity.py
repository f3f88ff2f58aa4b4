"""The gravity settings shared by orrery.forces and orrery.Simulation.

They are the keys of the CLI's [gravity] table (docs/config.md), checked and
applied by the CLI's own configuration schema in the C++ core: the same
defaults, accepted values and messages (ValueError). A setting left at None
takes the default. A key added to the schema is accepted here at once.
"""

import numpy as np

from . import _core

_DTYPES = {"single": np.float32, "double": np.float64}
_MULTIPOLES = {1: "monopole", 2: "quadrupole", 3: "octupole", 4: "hexadecapole"}  # Python also takes the multipole order as a number


def keys():
    """The setting names (the keys of the [gravity] table)."""
    return tuple(_core.gravity_keys())


TYPES = tuple(f"PartType{t}" for t in range(6))


def type_counts(types, n):
    """The PartType0..5 counts of {"PartType1": n1, ...} for n particles (None: all PartType1)."""
    if types is None:
        return [0, n, 0, 0, 0, 0]
    unknown = set(types) - set(TYPES)
    if unknown:
        raise ValueError(f"types: {sorted(unknown)}; accepted: {', '.join(TYPES)} with a count each")
    counts = [int(types.get(name, 0)) for name in TYPES]
    if min(counts) < 0 or sum(counts) != n:
        raise ValueError(f"types = {types}: the counts must be >= 0 and add up to the {n} particles")
    return counts


def _per_type(value):
    """softening_per_type as the schema's keys: {"PartType2": 0.01} (or {2: 0.01}), or six values (None: unset)."""
    if isinstance(value, dict):
        items = value.items()
    else:
        value = list(value)
        if len(value) != 6:
            raise ValueError(f"softening_per_type = {value}: accepted: a dict {{'PartType2': eps, ...}} or six "
                             "values (None: the type takes softening)")
        items = enumerate(value)
    out = {}
    for key, eps in items:
        name = f"PartType{key}" if isinstance(key, int) else key
        if name not in TYPES:
            raise ValueError(f"softening_per_type: {key!r} is not a particle type; accepted: {', '.join(TYPES)}")
        if eps is not None:
            out[f"softening_per_type.{name}"] = eps.item() if isinstance(eps, np.generic) else eps
    return out


def config(**settings):
    """A _core.GravityConfig from keyword settings (None: the default)."""
    unknown = set(settings) - set(keys())
    if unknown:
        raise TypeError(f"unknown setting(s) {sorted(unknown)}; accepted: {', '.join(keys())}")
    given = {}
    for key, value in settings.items():
        if value is None:
            continue
        if key == "softening_per_type":
            given.update(_per_type(value))
            continue
        if isinstance(value, np.generic):
            value = value.item()  # numpy scalars as Python numbers
        if key == "multipole" and not isinstance(value, (str, bool)) and value in _MULTIPOLES:
            value = _MULTIPOLES[value]
        given[key] = value
    return _core.gravity_config(given)


def as_dict(c):
    """The settings of a GravityConfig as a plain dict (multipole as its order, 1 to 4)."""
    return {key: getattr(c, key) for key in keys()}


def dtype(c):
    """The numpy dtype of the precision of `c`."""
    return _DTYPES[c.precision]


def core(name, c):
    """The _core function or class `name` for the precision of `c`."""
    return getattr(_core, f"{name}_{np.dtype(dtype(c)).name}")
