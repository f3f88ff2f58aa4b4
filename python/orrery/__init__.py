"""Orrery: gravitational N-body simulation (direct summation and Barnes-Hut),
on the CPU and on NVIDIA GPUs, from Python.

    import orrery
    sim = orrery.Simulation.plummer(4096, seed=1, solver="tree", theta=0.5, dt=1/128)
    log = sim.run(2.0, every=0.25)             # diagnostics as a numpy record array
    print(log.relative_energy_error[-1])
    acc, pot, report = orrery.forces(sim.positions, sim.mass, solver="direct")
    orrery.run("examples/plummer_equilibrium.toml", overrides={"integration.t_end": 1})  # as `orrery run`

The same C++ library as the `orrery` command-line program: the same solvers,
integrator, initial conditions, snapshots (HDF5, GADGET-4 layout) and
checkpoints. Units: G = 1 code units, Henon or physical (kpc, km/s, Msun
for the generators' inputs): orrery.Units, sim.units; astropy quantities
are accepted where quantities go in.
orrery.plot holds matplotlib helpers (matplotlib is imported only there).
"""

from . import _core, diagnostics, plot
from ._driver import run
from .errors import EnergyErrorExceeded, TimeStepWarning
from .diagnostics import LAGRANGIAN_FRACTIONS
from .forces import Forces, forces
from .simulation import Simulation
from .units import Units

__version__ = _core.__version__

__all__ = ["EnergyErrorExceeded", "Forces", "LAGRANGIAN_FRACTIONS", "Simulation", "TimeStepWarning", "Units",
           "available_solvers", "cuda_compiled", "diagnostics", "forces", "initial_condition_kinds", "plot",
           "read_snapshot", "run", "version_info"]


def version_info():
    """"orrery 0.9.0 (backends: cpu, cuda)": the version and the backends of this
    build, as `orrery --version` prints them."""
    backends = sorted({pair.split("/", 1)[1] for pair in available_solvers()})
    return f"orrery {__version__} (backends: {', '.join(backends)})"


def available_solvers():
    """"solver/backend" for every combination compiled into this build, e.g. "tree/cpu"."""
    return list(_core.available_solvers())


def initial_condition_kinds():
    """The initial-condition generators of this build (Simulation.from_initial_conditions)."""
    return list(_core.initial_condition_kinds())


def cuda_compiled():
    """Whether this build has the CUDA backend (backend="cuda" also needs a GPU at run time)."""
    return bool(_core.cuda_compiled())


def read_snapshot(path):
    """Reads a snapshot (the CLI's, or any GADGET-4-layout HDF5 file with
    any of PartType0..5) into a dict of numpy arrays in the file's precision:
    positions, velocities (N, 3), masses, ids (the types in order, PartType0
    first), and accelerations / potentials when stored; plus "info", a dict
    of the run metadata (time, step, softening, softening_kernel, theta,
    solver, precision, units (an orrery.Units), types ({"PartType1": n, ...}),
    softening_per_type ({"PartType0": eps0, ..., "PartType5": eps5} when the
    types' softenings differ, else None; docs/softening.md), version, config)."""
    arrays, info = _core.read_snapshot(str(path))
    if info.precision == "float":
        arrays = {k: (v.astype("float32") if v.dtype.kind == "f" else v) for k, v in arrays.items()}
    arrays["info"] = {k: getattr(info, k) for k in ("time", "step", "softening", "softening_kernel", "theta",
                                                     "solver", "precision", "version", "config")}
    arrays["info"]["units"] = Units.of(info.units)
    arrays["info"]["types"] = {f"PartType{t}": int(c) for t, c in enumerate(info.types) if c}
    per_type = info.softening_per_type
    arrays["info"]["softening_per_type"] = None if per_type is None else {f"PartType{t}": e for t, e in enumerate(per_type)}
    return arrays
