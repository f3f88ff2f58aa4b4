"""orrery.Simulation: particles, a force solver and the leapfrog, from Python."""

import math as _math
import operator

import numpy as np

from . import _arrays, _core, _gravity
from . import diagnostics as _diag

#: Time step when none is given (an exact binary fraction of the Henon time unit).
DEFAULT_DT = 1.0 / 128


class Simulation:
    """An N-body run: kick-drift-kick leapfrog with a fixed step ``dt``.

    Create one from arrays, ``Simulation(positions, velocities, masses, dt=...)``,
    or from a generator: ``Simulation.plummer(n, seed=...)``, ``.hernquist``,
    ``.cold_sphere``, ``.kepler``, ``.collision``; or read one:
    ``Simulation.from_snapshot(path)``, ``Simulation.load_checkpoint(path)``.
    Gravity settings are keywords, as for orrery.forces: solver, backend,
    precision, theta, leaf_capacity, multipole, opening, tolerance,
    softening, softening_kernel, math. They are fixed for the life of the
    simulation. With opening="relative" each force evaluation reads the
    previous one's accelerations: the first (at the first step or after a
    load) is a bootstrap, and checkpoints carry them so that a loaded run
    continues bit-identically.

    Array access (numpy):
      x, y, z, vx, vy, vz, mass, ids, ax, ay, az, potential
        zero-copy, read-only views of the simulation's own host memory,
        in the run's dtype. x..vz and ax..az follow the simulation as it
        steps (they are views, not snapshots: copy them to keep a value);
        potential is evaluated at the current positions when read. With
        backend "cuda" the particles stay on the GPU while a call to step,
        integrate or run is stepping (device_resident is True); the host
        memory behind the views is brought up to date when the call returns.
      positions, velocities, accelerations
        new (N, 3) arrays (copies: the library stores columns, not rows).
    Units: G = 1 code units (Henon units for the generators).
    """

    __slots__ = ("_sim", "_dtype")

    def __init__(self, positions, velocities, masses, ids=None, *, dt=DEFAULT_DT, time=0.0, **settings):
        """positions, velocities: (N, 3); masses: (N,) or a scalar; ids: (N,)
        unsigned integers or None (1..N). Arrays are converted to the
        precision's dtype (copied when they do not already fit)."""
        state = _core.SimulationState()
        state.dt = dt
        state.time_origin = time
        self._create(positions, velocities, masses, ids, state, settings)

    def _create(self, positions, velocities, masses, ids, state, settings):
        config = _gravity.config(**settings)
        dtype = _gravity.dtype(config)
        pos = _arrays.rows3("positions", positions, dtype)
        n = pos.shape[0]
        vel = _arrays.rows3("velocities", velocities, dtype)
        mass = _arrays.column("masses", masses, dtype, n)
        self._sim = _gravity.core("Simulation", config)(pos, vel, mass, _arrays.ids(ids, n), config, state)
        self._dtype = dtype

    @classmethod
    def _from_state(cls, arrays, state, settings):
        self = cls.__new__(cls)
        self._create(arrays["positions"], arrays["velocities"], arrays["masses"], arrays["ids"], state, settings)
        return self

    # ----- initial conditions (Henon units: G = M = 1, E = -1/4 unless noted)

    @classmethod
    def from_initial_conditions(cls, kind, n=4096, *, seed=1, mass=1.0, length=1.0, dt=DEFAULT_DT, model=None,
                                **settings):
        """Particles from the generator `kind` (orrery.initial_condition_kinds()),
        exactly as the CLI's [initial_conditions] table makes them: n particles
        from `seed`, stretched to total mass `mass` and length unit `length`;
        `model` holds the generator's own parameters (e.g. {"truncation": 50}
        for "hernquist"). Generated in float64, rounded once to the precision."""
        config = _core.InitialConditionsConfig()
        config.kind, config.count, config.seed, config.mass, config.length = kind, n, seed, mass, length
        if model:
            params = getattr(config, kind, None)
            for key, value in model.items():
                if params is None or not hasattr(params, key):
                    accepted = [k for k in dir(params) if not k.startswith("_")] if params is not None else []
                    raise ValueError(f"initial_conditions.{kind}.{key}: no such parameter; accepted: "
                                     f"{', '.join(accepted) or 'none'}")
                setattr(params, key, value)
        state = _core.SimulationState()
        state.dt = dt
        return cls._from_state(_core.initial_conditions(config), state, settings)

    @classmethod
    def plummer(cls, n, *, seed=1, **kwargs):
        """A Plummer sphere (Aarseth, Henon & Wielen 1974) of n equal masses."""
        return cls.from_initial_conditions("plummer", n, seed=seed, **kwargs)

    @classmethod
    def hernquist(cls, n, *, seed=1, truncation=100.0, **kwargs):
        """An isotropic Hernquist sphere, truncated at `truncation` scale radii."""
        return cls.from_initial_conditions("hernquist", n, seed=seed, model={"truncation": truncation}, **kwargs)

    @classmethod
    def cold_sphere(cls, n, *, seed=1, **kwargs):
        """A uniform sphere at rest (cold collapse; free-fall time ~4.13)."""
        return cls.from_initial_conditions("cold_sphere", n, seed=seed, **kwargs)

    @classmethod
    def kepler(cls, *, eccentricity=0.5, semi_major_axis=1.0, mass_ratio=1.0, **kwargs):
        """Two bodies on a Kepler orbit (total mass 1), starting at apocentre."""
        model = {"eccentricity": eccentricity, "semi_major_axis": semi_major_axis, "mass_ratio": mass_ratio}
        return cls.from_initial_conditions("kepler", 2, model=model, **kwargs)

    @classmethod
    def collision(cls, n, *, seed=1, separation=10.0, impact_parameter=0.0, relative_velocity=-1.0, **kwargs):
        """Two equal Plummer spheres on a collision orbit (relative_velocity < 0: parabolic)."""
        model = {"separation": separation, "impact_parameter": impact_parameter,
                 "relative_velocity": relative_velocity}
        return cls.from_initial_conditions("collision", n, seed=seed, model=model, **kwargs)

    # ----- files (the CLI's formats)

    @classmethod
    def from_snapshot(cls, path, *, dt=None, **settings):
        """A simulation starting from an HDF5 snapshot (the CLI's, or any
        GADGET-4-layout file with PartType1), at the file's time. The gravity
        settings and dt default to the run configuration the file records
        (Orrery's snapshots carry it; for other files: the library defaults,
        dt = DEFAULT_DT); keywords override them. The precision is the file's
        unless given."""
        arrays, info = _core.read_snapshot(str(path))
        recorded, file_dt = {}, DEFAULT_DT
        if info.config:
            gravity, file_dt = _core.run_settings(info.config, f"snapshot {path}")
            recorded = _gravity.as_dict(gravity)
        recorded["precision"] = {"float": "single", "double": "double"}[info.precision]
        state = _core.SimulationState()
        state.dt = file_dt if dt is None else dt
        state.time_origin = info.time
        return cls._from_state(arrays, state, {**recorded, **settings})

    def save_snapshot(self, path, *, fields=True, units="henon"):
        """Writes an HDF5 snapshot in the CLI's format (GADGET-4 layout) with
        the metadata `orrery run` writes, atomically. fields=True also stores
        Acceleration and Potential at the current positions. units: "henon"
        or "physical" (the [units] table: metadata for readers)."""
        self._sim.save_snapshot(str(path), self._config_toml([f"units.system={units}"]), fields)

    def save_checkpoint(self, path):
        """Writes a checkpoint (the CLI's format): everything needed to
        continue bit-identically, with Simulation.load_checkpoint or with
        `orrery run --restart`."""
        self._sim.save_checkpoint(str(path), self._config_toml(), {})

    def _config_toml(self, extra=()):
        """This run's configuration in the CLI's TOML schema."""
        return _core.config_toml(self._sim.gravity, self.dt, list(extra))

    @classmethod
    def load_checkpoint(cls, path, **overrides):
        """Continues a run from a checkpoint written by save_checkpoint or the
        CLI: same particles, time, step count and settings (from the stored
        configuration), so stepping on is bit-identical to the run that wrote it.
        `overrides` change settings (e.g. theta=0.4): the stored accelerations
        are then the old settings' force, so they are not restored and the
        first step evaluates the force afresh, as a new run does."""
        arrays, state, config_text, _counters, _build = _core.read_checkpoint(str(path))
        gravity, _dt = _core.run_settings(config_text, f"checkpoint {path}")
        stored = _gravity.as_dict(gravity)
        settings = {**stored, **overrides}
        settings["precision"] = "single" if arrays["positions"].dtype == np.float32 else "double"
        self = cls._from_state(arrays, state, settings)
        if "accelerations" in arrays and self.settings == stored:
            # What the next step kicks with and, with opening="relative", what its evaluation reads.
            self._sim.restore_accelerations(_arrays.rows3("accelerations", arrays["accelerations"], self._dtype))
        return self

    # ----- running

    def step(self, count=1):
        """Advances `count` (an integer >= 0) steps of dt. Ctrl-C stops between steps (KeyboardInterrupt)."""
        count = operator.index(count)
        if count < 0:
            raise ValueError(f"count = {count}; accepted: an integer >= 0")
        self._sim.step(count)
        return self

    def integrate(self, t):
        """Steps until time >= t (the first multiple of dt at or after t; no
        step is shortened, so runs stay bit-reproducible). The GIL is released
        while stepping; Ctrl-C raises KeyboardInterrupt between two steps,
        leaving the simulation at a consistent step."""
        self._sim.integrate(float(t))
        return self

    def run(self, t_end, *, every):
        """Integrates to t_end, measuring diagnostics() now and after every
        `every` of simulated time; returns the rows as a numpy record array
        (orrery.diagnostics.DTYPE), ready for orrery.plot."""
        if not every > 0:
            raise ValueError(f"every = {every}; accepted: a number > 0")
        start = self.time
        rows = [self.diagnostics()]
        for k in range(1, int(_math.ceil((t_end - start) / every - 1e-9)) + 1):
            self.integrate(min(start + k * every, t_end))
            rows.append(self.diagnostics())
        return _diag.records(rows)

    def diagnostics(self):
        """The system now, as the CLI's diagnostics log measures it: time,
        step, kinetic, potential, total energy, relative_energy_error (against
        the first measurement of the run), virial_ratio (2K/|W|), momentum,
        angular_momentum, lagrangian_radii (10, 50, 90 % of the mass). A dict."""
        return self._sim.diagnostics()

    def lagrangian_radii(self, fractions=_diag.LAGRANGIAN_FRACTIONS):
        """Radii about the centre of mass enclosing the given mass fractions."""
        return np.asarray(self._sim.lagrangian_radii([float(f) for f in fractions]))

    # ----- state

    @property
    def n(self):
        return self._sim.n

    @property
    def time(self):
        """Simulated time: time_origin + step_count * dt (never accumulated)."""
        return self._sim.time

    @property
    def dt(self):
        return self._sim.state.dt

    @property
    def step_count(self):
        return self._sim.step_count

    @property
    def dtype(self):
        return np.dtype(self._dtype)

    @property
    def settings(self):
        """The gravity settings as a dict (solver, backend, precision, ...)."""
        return _gravity.as_dict(self._sim.gravity)

    @property
    def solver_name(self):
        """The solver actually running, e.g. "tree/cpu/float/monopole"."""
        return self._sim.solver_name

    @property
    def device_resident(self):
        """True when the particles live on the GPU (backend "cuda", or "auto"
        choosing it): steps move no particle data; the host arrays are
        downloaded once at the end of each step/integrate/run call."""
        return self._sim.device_resident

    @property
    def interactions(self):
        """Particle-particle plus particle-cell interactions summed over the run."""
        return self._sim.interactions

    @property
    def timers(self):
        """Wall seconds per phase (force, kick, drift, ...) over the run."""
        return self._sim.timers

    x = property(lambda self: self._sim.x, doc="x positions (view)")
    y = property(lambda self: self._sim.y, doc="y positions (view)")
    z = property(lambda self: self._sim.z, doc="z positions (view)")
    vx = property(lambda self: self._sim.vx, doc="x velocities (view)")
    vy = property(lambda self: self._sim.vy, doc="y velocities (view)")
    vz = property(lambda self: self._sim.vz, doc="z velocities (view)")
    mass = property(lambda self: self._sim.mass, doc="masses (view)")
    ids = property(lambda self: self._sim.id, doc="particle IDs, uint64 (view)")
    ax = property(lambda self: self._sim.ax, doc="x accelerations at the current positions (view)")
    ay = property(lambda self: self._sim.ay, doc="y accelerations (view)")
    az = property(lambda self: self._sim.az, doc="z accelerations (view)")
    potential = property(lambda self: self._sim.potential, doc="specific potentials at the current positions (view)")
    positions = property(lambda self: self._sim.positions(), doc="(N, 3) positions (copy)")
    velocities = property(lambda self: self._sim.velocities(), doc="(N, 3) velocities (copy)")
    accelerations = property(lambda self: self._sim.accelerations(), doc="(N, 3) accelerations (copy)")

    def __repr__(self):
        return (f"<orrery.Simulation N={self.n} t={self.time:g} step={self.step_count} dt={self.dt:g} "
                f"solver={self.solver_name}>")
