"""One-shot force evaluation, for people who only want the solver."""

from typing import NamedTuple, Optional

import numpy as np

from . import _arrays, _gravity
from .units import Units, _is_quantity


class Forces(NamedTuple):
    """What orrery.forces returns; unpacks as ``acc, pot, report = ...``."""

    accelerations: np.ndarray  #: (N, 3), the run's dtype
    potentials: Optional[np.ndarray]  #: (N,), specific potential (G = 1); None with potential=False
    report: dict  #: solver name, interaction counts, seconds by phase (and per_target counts)


def forces(positions, masses, *, solver=None, backend=None, precision=None, theta=None, leaf_capacity=None,
           multipole=None, opening=None, tolerance=None, relative_cap=None, group_opening=None, list_walk=None,
           softening=None, softening_kernel=None, math=None,
           traversal=None, group_width=None, potential=True, per_target=False, units=None, softening_per_type=None,
           types=None):
    """Accelerations and potentials of N particles on each other (self excluded).

    positions: (N, 3) array; masses: (N,) array or a scalar (all equal).
    precision: "single" (float32) or "double" (float64); left unset it is
    the positions' own: float64 positions (and lists of Python floats,
    which numpy makes float64) are computed in double precision and give
    float64 results; float32 or integer positions are computed in single. Inputs are converted
    to the precision's dtype: other real dtypes, lists and non-contiguous
    arrays are accepted (copied), anything else is rejected.

    solver: "direct" (default), "tree", "reference" (double, compensated sums);
    orrery.available_solvers() lists this build's solver/backend pairs.
    backend: "cpu" (default), "cuda", "auto" (CUDA when a GPU is present).
    theta, leaf_capacity, multipole ("monopole" or 1, "quadrupole" or 2, "octupole" or 3, "hexadecapole" or 4),
    opening ("geometric" or "relative"), tolerance (the relative
    criterion's alpha) and relative_cap (its cap's angle as a fraction of
    theta, 0..1; 1: the geometric walk at theta), group_opening (0, or 32: groups
    of 32 consecutive targets decide together which cells to open, docs/adr/0017) and
    list_walk (True: groups of 32 targets in Hilbert order walk breadth first and sum
    interaction lists, Bonsai's walk, docs/adr/0019; single precision on the GPU):
    tree settings. A one-shot call has no previous
    accelerations, so opening="relative" costs a bootstrap evaluation (a
    geometric walk at theta) before the relative one. softening (Plummer-equivalent eps, default 0.05),
    softening_kernel ("plummer" or "spline"), math ("fast" or "exact": GPU
    kernels only), traversal ("coherent" or "independent") and group_width
    (8, 16, 32, 64): the GPU tree walk. Units: G = 1 code units. These are
    the keys of the CLI's [gravity] table (docs/config.md): unset (None)
    settings take its defaults, and invalid values raise ValueError with
    the schema's message.

    softening_per_type: a softening per GADGET particle type ({"PartType2":
    0.01, ...} or six values, None for a type that takes `softening`; CPU
    solvers only, docs/softening.md): a pair takes the larger of its two,
    a tree cell the largest of its particles'. types: the particles' types
    in order, {"PartType1": n1, "PartType2": n2, ...} (None: all PartType1).

    units: None (code units, G = 1), or "henon" / "physical" / an
    orrery.Units: the system the results are in; positions, masses and
    softening may then be astropy quantities (converted to it). Quantities
    without `units` are refused (they would need a unit system to mean
    anything to a G = 1 solver).

    per_target=True adds report["per_target"], an (N, 3) uint64 array of
    (node visits, particle-cell, particle-particle) counts per particle.

    Returns Forces(accelerations (N, 3), potentials (N,) or None, report dict).
    The GIL is released while the solver runs. Invalid input raises ValueError
    with the library's message (the CLI's).
    """
    if units is None:
        given = [name for name, v in (("positions", positions), ("masses", masses), ("softening", softening))
                 if _is_quantity(v)]
        if given:
            raise TypeError(f"orrery.forces: {', '.join(given)} given as quantities; pass units=\"physical\" (or "
                            "\"henon\", an orrery.Units) to say which code units the results are in")
    else:
        units = Units.of(units)
        positions = units.to_code(positions, "length", "positions")
        masses = units.to_code(masses, "mass", "masses")
        softening = units.to_code(softening, "length", "softening")
        if isinstance(softening_per_type, dict):
            softening_per_type = {k: units.to_code(v, "length", "softening_per_type") for k, v in softening_per_type.items()}
    if precision is None:
        # The input's precision: a float64 caller gets float64 back, never a silently rounded float32.
        precision = "double" if np.asarray(positions).dtype == np.float64 else "single"
    config = _gravity.config(solver=solver, backend=backend, precision=precision, theta=theta,
                             leaf_capacity=leaf_capacity, multipole=multipole, opening=opening,
                             tolerance=tolerance, relative_cap=relative_cap, group_opening=group_opening,
                             list_walk=list_walk,
                             softening=softening,
                             softening_kernel=softening_kernel, math=math, traversal=traversal,
                             group_width=group_width, softening_per_type=softening_per_type)
    dtype = _gravity.dtype(config)
    pos = _arrays.rows3("positions", positions, dtype)
    mass = _arrays.column("masses", masses, dtype, pos.shape[0])
    config.type_counts = _gravity.type_counts(types, pos.shape[0])
    acc, pot, report = _gravity.core("forces", config)(pos, mass, config, potential, per_target)
    return Forces(acc, pot, report)
