"""orrery.Simulation: particles, a force solver and the leapfrog, from Python."""

import math
import operator
import warnings

import numpy as np

from . import _arrays, _core, _gravity, _stepping
from . import diagnostics as _diag
from .errors import EnergyErrorExceeded, TimeStepWarning
from .units import Units

#: Time step when none is given (an exact binary fraction of the Henon time unit).
DEFAULT_DT = 1.0 / 128
#: Simulation.run's energy-error limit when none is given: integration.max_energy_error's default.
DEFAULT_MAX_ENERGY_ERROR = 1e-2


def _max_energy_error(value):
    try:
        limit = float(value)
    except (TypeError, ValueError):
        limit = math.nan
    if not (math.isfinite(limit) and limit >= 0):
        raise ValueError(f"max_energy_error = {value!r}; accepted: a finite number >= 0 (0: no limit)")
    return limit


class Simulation:
    """An N-body run: kick-drift-kick leapfrog with a fixed step ``dt``.

    Create one from arrays, ``Simulation(positions, velocities, masses, dt=...)``,
    or from a generator: ``Simulation.plummer(n, seed=...)``, ``.hernquist``,
    ``.cold_sphere``, ``.kepler``, ``.collision``; or read one:
    ``Simulation.from_snapshot(path)``, ``Simulation.load_checkpoint(path)``.
    Gravity settings are keywords, as for orrery.forces: solver, backend,
    precision, theta, leaf_capacity, multipole, opening, tolerance,
    relative_cap, group_opening, list_walk, softening, softening_kernel, math. They are fixed for the life of the
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
    Units: ``sim.units`` (an orrery.Units) says what the code units (G = 1)
    are: Henon units, or the physical system (kpc, km/s, 2.32509e5 Msun). It
    comes from the generator, the snapshot or the checkpoint the simulation
    was made from, and every snapshot and checkpoint is written in it. Plain
    numbers are in these code units; astropy quantities are converted to them
    where they cross the API (positions, velocities, masses, dt, time, t_end,
    every, softening, the generators' mass and length), and
    ``sim.units.quantity(sim.x, "length")`` attaches units to a result.
    """

    __slots__ = ("_sim", "_dtype", "_units", "_types", "_block")

    #: GADGET particle types, in the order the particles are kept (sim.particle_types).
    TYPES = tuple(f"PartType{t}" for t in range(6))

    def __init__(self, positions, velocities, masses, ids=None, *, dt=DEFAULT_DT, time=0.0, units="henon",
                 types=None, **settings):
        """positions, velocities: (N, 3); masses: (N,) or a scalar; ids: (N,)
        unsigned integers or None (1..N); units: "henon", "physical" or an
        orrery.Units, the system the plain numbers are in; types: GADGET
        particle types of the rows in order, e.g. {"PartType1": 8192,
        "PartType2": 4096} for a halo followed by a disc (None: all
        PartType1). Arrays are converted to the precision's dtype (copied
        when they do not already fit)."""
        units = Units.of(units)
        state = _core.SimulationState()
        state.dt = units.to_code(dt, "time", "dt")
        state.time_origin = units.to_code(time, "time", "time")
        arrays = {"positions": units.to_code(positions, "length", "positions"),
                  "velocities": units.to_code(velocities, "velocity", "velocities"),
                  "masses": units.to_code(masses, "mass", "masses"), "ids": ids}
        self._create(arrays, state, settings, units, types)

    def _create(self, arrays, state, settings, units, counts=None):
        """counts: the types of the rows, which the softening per type applies to: a user's
        {"PartType1": n1, ...}, or a file's PartType0..5 counts (None or all zero: all PartType1)."""
        if "softening" in settings:
            settings = {**settings, "softening": units.to_code(settings["softening"], "length", "softening")}
        if settings.get("softening_per_type"):
            per_type = settings["softening_per_type"]
            convert = lambda eps: None if eps is None else units.to_code(eps, "length", "softening_per_type")
            per_type = ({k: convert(v) for k, v in per_type.items()} if isinstance(per_type, dict)
                        else [convert(v) for v in per_type])
            settings = {**settings, "softening_per_type": per_type}
        config = _gravity.config(**settings)
        dtype = _gravity.dtype(config)
        pos = _arrays.rows3("positions", arrays["positions"], dtype)
        n = pos.shape[0]
        vel = _arrays.rows3("velocities", arrays["velocities"], dtype)
        mass = _arrays.column("masses", arrays["masses"], dtype, n)
        ids = _arrays.ids(arrays["ids"], n)
        types = (0, n, 0, 0, 0, 0)
        if isinstance(counts, dict):
            counts = _gravity.type_counts(counts, n)
        if counts is not None and any(counts):
            counts = tuple(int(c) for c in counts)
            if sum(counts) != n:
                raise ValueError(f"particle type counts {counts} add up to {sum(counts)}, not to the {n} particles")
            types = counts
        config.type_counts = types
        self._sim = _gravity.core("Simulation", config)(pos, vel, mass, ids, config, state)
        self._dtype = dtype
        self._units = units
        self._types = types

    @classmethod
    def _from_state(cls, arrays, state, settings, units, counts=None):
        self = cls.__new__(cls)
        self._create(arrays, state, settings, units, counts)
        return self

    # ----- initial conditions (built in Henon units, G = M = 1, E = -1/4, then stretched)

    @classmethod
    def from_initial_conditions(cls, kind, n=4096, *, seed=1, mass=1.0, length=1.0, units="henon", dt=DEFAULT_DT,
                                model=None, **settings):
        """Particles from the generator `kind` (orrery.initial_condition_kinds()),
        exactly as the CLI's [initial_conditions] and [units] tables make them:
        n particles from `seed`, stretched to total mass `mass` and length unit
        `length`. units: "henon" (mass and length in code units) or "physical"
        (mass in Msun, length in kpc, as the CLI's units.system = "physical");
        astropy quantities are accepted for mass, length and dt in either.
        `model` holds the generator's own parameters, in the model's Henon
        units before stretching (e.g. {"truncation": 50} for "hernquist").
        Generated in float64, rounded once to the precision."""
        units = Units.of(units)
        if hasattr(mass, "unit"):  # a quantity: to code mass, then to the table's mass unit (Msun when physical)
            mass = units.to_code(mass, "mass", "mass") / units.config_mass_unit
        length = units.to_code(length, "length", "length")
        dt = units.to_code(dt, "time", "dt")
        config = _core.InitialConditionsConfig()
        config.kind, config.count, config.seed, config.mass, config.length = kind, n, seed, float(mass), float(length)
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
        return cls._from_state(_core.initial_conditions(config, units.unit_system), state, settings, units)

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
        GADGET-4-layout file with any of PartType0..5: masses from Masses or
        MassTable), at the file's time, in the file's unit system (its
        /Parameters), keeping its particle types and IDs. The gravity settings and dt
        default to the run configuration the file records (Orrery's
        snapshots carry it; for other files: the library defaults, dt =
        DEFAULT_DT); keywords override them. The precision is the file's
        unless given."""
        arrays, info = _core.read_snapshot(str(path))
        units = Units.of(info.units)
        recorded, file_dt = {}, DEFAULT_DT
        if info.config:
            gravity, file_dt, _units = _core.run_settings(info.config, f"snapshot {path}")
            recorded = _gravity.as_dict(gravity)
        recorded["precision"] = {"float": "single", "double": "double"}[info.precision]
        state = _core.SimulationState()
        state.dt = file_dt if dt is None else units.to_code(dt, "time", "dt")
        state.time_origin = info.time
        return cls._from_state(arrays, state, {**recorded, **settings}, units, info.types)

    def save_snapshot(self, path, *, fields=True):
        """Writes an HDF5 snapshot in the CLI's format (GADGET-4 layout) with
        the metadata `orrery run` writes, in the simulation's units
        (sim.units), atomically. fields=True also stores Acceleration and
        Potential at the current positions."""
        self._sim.save_snapshot(str(path), self._config_toml(), fields, self._types)

    def save_checkpoint(self, path):
        """Writes a checkpoint (the CLI's format): everything needed to
        continue bit-identically, with Simulation.load_checkpoint or with
        `orrery run --restart` (block time steps too: their settings
        and bins are in it)."""
        self._sim.save_checkpoint(str(path), self._config_toml(), dict(zip(self.TYPES, self._types)))

    def _config_toml(self):
        """This run's configuration in the CLI's TOML schema, its units included."""
        block = getattr(self, "_block", None)
        extra = [] if block is None else [
            "integration.kind=block", f"integration.dt_max={self.dt!r}", f"integration.dt_min={block[0]!r}",
            f"integration.criterion={block[1]}", f"integration.eta={block[2]!r}"]
        return _core.config_toml(self._sim.gravity, self.dt, self._units.config() + extra)

    @classmethod
    def load_checkpoint(cls, path, **overrides):
        """Continues a run from a checkpoint written by save_checkpoint or the
        CLI: same particles, time, step count and settings (from the stored
        configuration), so stepping on is bit-identical to the run that wrote it.
        `overrides` change settings (e.g. theta=0.4): the stored accelerations
        are then the old settings' force, so they are not restored and the
        first step evaluates the force afresh, as a new run does."""
        arrays, state, config_text, counters, _build = _core.read_checkpoint(str(path))
        gravity, _dt, units = _core.run_settings(config_text, f"checkpoint {path}")
        stored = _gravity.as_dict(gravity)
        settings = {**stored, **overrides}
        settings["precision"] = "single" if arrays["positions"].dtype == np.float32 else "double"
        self = cls._from_state(arrays, state, settings, Units.of(units), [counters.get(name, 0) for name in cls.TYPES])
        if "accelerations" in arrays and self.settings == stored:
            # What the next step kicks with and, with opening="relative", what its evaluation reads.
            self._sim.restore_accelerations(_arrays.rows3("accelerations", arrays["accelerations"], self._dtype))
        kind, _dt_max, dt_min, criterion, eta = _core.block_settings(config_text, f"checkpoint {path}")
        if kind == "block":
            self._use_block_steps(dt_min, criterion, eta)
            if "time_bins" in arrays:
                self._sim.restore_time_bins(arrays["time_bins"])
        return self

    # ----- block time steps

    def use_block_steps(self, *, dt_min=1e-6, criterion="softening", eta=0.025):
        """Integrates with individual power-of-two time steps from now on
        (docs/block_steps.md): dt becomes the longest step, each particle
        steps by dt / 2^k for the smallest k its criterion allows, down to
        dt_min; step() then advances one block step of dt, to the next
        synchronisation point. criterion: "softening" (GADGET-4's
        sqrt(2 eta eps / |a|), needs softening > 0) or "dynamical" (Zemp et
        al. 2007, defined without softening). Not on a device-resident
        simulation (backend = "cuda" there: use backend "cpu")."""
        return self._use_block_steps(self._units.to_code(dt_min, "time", "dt_min"), str(criterion), float(eta))

    def _use_block_steps(self, dt_min, criterion, eta):
        """use_block_steps with dt_min in code units."""
        self._sim.use_block_steps(criterion, eta, float(dt_min))
        self._block = (float(dt_min), criterion, eta)
        return self

    @property
    def time_bins(self):
        """Each particle's time bin (numpy int8; bin k steps by dt / 2^k): the
        bin of the step it starts at this synchronisation point. Empty with
        the global step or before the first block step."""
        return self._sim.time_bins()

    @property
    def time_bin_histogram(self):
        """Particles per time bin, bins 0 .. deepest (numpy int64; empty with the global step)."""
        return self._sim.time_bin_histogram()

    # ----- running

    def step(self, count=1):
        """Advances `count` (an integer >= 0) steps of dt. Ctrl-C stops between steps (KeyboardInterrupt)."""
        count = operator.index(count)
        if count < 0:
            raise ValueError(f"count = {count}; accepted: an integer >= 0")
        self._sim.step(count)
        return self

    def integrate(self, t, *, callback=None, every=None, progress=None):
        """Steps until time >= t (the first multiple of dt at or after t; no
        step is shortened, so runs stay bit-reproducible). The GIL is released
        while stepping; Ctrl-C raises KeyboardInterrupt between two steps,
        leaving the simulation at a consistent step.

        callback: called with the simulation after every `every` of simulated
        time (required with a callback) and at t; returning False stops the
        integration there. progress: the CLI's progress line on stderr, for
        runs longer than a second: None (default) shows it on a terminal
        only, True always, False never."""
        t = float(self._units.to_code(t, "time", "t"))
        if callback is not None and every is None:
            raise ValueError("integrate(callback=...) needs every, the simulated time between calls (a number > 0)")
        every = self._every(every)
        _stepping.advance(self, t, every=every, at_every=() if callback is None else (callback,), progress=progress)
        return self

    def run(self, t_end, *, every, callback=None, progress=None, max_energy_error=DEFAULT_MAX_ENERGY_ERROR):
        """Integrates to t_end, measuring diagnostics() now and after every
        `every` of simulated time; returns the rows as a numpy record array
        (orrery.diagnostics.DTYPE), ready for orrery.plot. callback and
        progress as for integrate: the callback is called after each row;
        returning False stops the run (the rows so far are returned).

        The run watches itself as the CLI's does (docs/time_steps.md): it
        warns (orrery.TimeStepWarning) when dt is larger than the time-step
        criterion's step for the fastest particle, at the first row where it
        is, and raises orrery.EnergyErrorExceeded at the first row whose
        |relative_energy_error| passes max_energy_error (a number >= 0; 0: no
        limit), the simulation left at that row's step (save_checkpoint keeps it)."""
        t_end = float(self._units.to_code(t_end, "time", "t_end"))
        every = self._every(every)
        limit = _max_energy_error(max_energy_error)
        rows, warned = [], []

        def measure(sim, caller=4):  # stack levels up to the caller of run: from advance, or from run itself
            rows.append(sim.diagnostics())
            row = rows[-1]
            if not warned:
                message = sim._sim.step_warning()
                if message is not None:
                    warned.append(message)
                    warnings.warn(message, TimeStepWarning, stacklevel=caller)
            excess = _core.energy_error_excess(row["step"], row["time"], row["relative_energy_error"], limit)
            if excess is not None:
                raise EnergyErrorExceeded(excess)

        measure(self, caller=3)
        at_every = [measure]
        if callback is not None:
            at_every.append(callback)
        _stepping.advance(self, t_end, every=every, at_every=at_every, progress=progress)
        return _diag.records(rows)

    def _every(self, every):
        if every is None:
            return None
        every = self._units.to_code(every, "time", "every")
        if not every > 0:
            raise ValueError(f"every = {every}; accepted: a number > 0")
        return float(every)

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
    def particle_types(self):
        """{"PartType1": n1, ...}: how many particles of each GADGET type the
        simulation holds, in order (PartType0 first); generated and array-made
        simulations are all PartType1, files keep theirs through every output."""
        return {name: count for name, count in zip(self.TYPES, self._types) if count}

    @property
    def units(self):
        """The unit system of the code units (an orrery.Units)."""
        return self._units

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
                f"units={self.units.system} solver={self.solver_name}>")
