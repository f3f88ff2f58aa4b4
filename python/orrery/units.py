"""The unit system of a simulation: what its code units (always G = 1) are.

Two systems, as the CLI's [units] table (docs/snapshots.md, "Units"):

  Units("henon", length_kpc=1, mass_msun=1e10)
      G = M = 1, E = -1/4 for the generators' models; one length unit is
      length_kpc kpc and one mass unit mass_msun Msun for readers that want
      physical units (the velocity unit follows from G = 1).
  Units("physical")
      kpc, km/s and a mass unit of 1/4.30091e-6 Msun (so that G = 1). The
      generators take their `mass` in Msun and their `length` in kpc.

A Simulation carries one (``sim.units``) from the generator, snapshot or
checkpoint it came from into every file it writes. Plain numbers passed to
the API are in its code units; astropy quantities (an optional dependency)
are converted to them (``to_code``), and ``quantity`` attaches the units to
a result when asked (numpy arrays stay the default).
"""

import numpy as np

from . import _core

#: Powers of the code (length, mass, velocity) units of each named dimension.
DIMENSIONS = {
    "length": (1, 0, 0), "mass": (0, 1, 0), "velocity": (0, 0, 1), "time": (1, 0, -1),
    "acceleration": (-1, 0, 2), "specific_energy": (0, 0, 2), "energy": (0, 1, 2),
    "momentum": (0, 1, 1), "angular_momentum": (1, 1, 1), "dimensionless": (0, 0, 0),
}


def _is_quantity(value):
    """An astropy Quantity (checked without importing astropy)."""
    return hasattr(value, "unit") and hasattr(value, "to_value")


class Units:
    """One unit system; immutable, compared by value."""

    __slots__ = ("_u", "_length_kpc", "_mass_msun")

    def __init__(self, system="henon", *, length_kpc=1.0, mass_msun=1e10):
        if system == "physical" and (length_kpc, mass_msun) != (1.0, 1e10):
            raise ValueError("Units(\"physical\"): length_kpc and mass_msun are Henon-unit settings; the physical "
                             "system is always kpc, km/s and 1/4.30091e-6 Msun")
        if _is_quantity(length_kpc) or _is_quantity(mass_msun):
            raise TypeError("Units: length_kpc and mass_msun are plain numbers (kpc and Msun)")
        self._u = _core.unit_system(str(system), float(length_kpc), float(mass_msun))
        self._length_kpc, self._mass_msun = float(length_kpc), float(mass_msun)

    @classmethod
    def of(cls, value):
        """A Units from a Units, a system name ("henon", "physical"), or a
        _core.UnitSystem (a file's); ValueError for anything else."""
        if isinstance(value, Units):
            return value
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, _core.UnitSystem):
            if value.name == "physical":
                return cls("physical")
            return cls("henon", length_kpc=value.length_cm / _core.KPC_CM, mass_msun=value.mass_g / _core.MSUN_G)
        raise TypeError(f"units = {value!r}; accepted: \"henon\", \"physical\" or an orrery.Units")

    # ----- what the units are

    system = property(lambda self: self._u.name, doc='"henon" or "physical"')
    length_cm = property(lambda self: self._u.length_cm, doc="one code length in cm")
    mass_g = property(lambda self: self._u.mass_g, doc="one code mass in g")
    velocity_cm_per_s = property(lambda self: self._u.velocity_cm_per_s, doc="one code velocity in cm/s")
    time_s = property(lambda self: self._u.time_s, doc="one code time in s")
    G = property(lambda self: self._u.gravity_constant, doc="G in code units (always 1)")
    unit_system = property(lambda self: self._u, doc="the C++ core's UnitSystem (for the package's own calls)")
    config_mass_unit = property(lambda self: self._u.config_mass_unit,
                                doc="code masses per unit of the generators' `mass` (per Msun in the physical system)")

    @property
    def mass_msun(self):
        """One code mass in Msun (2.32509e5 in the physical system)."""
        return self.mass_g / _core.MSUN_G

    @property
    def length_kpc(self):
        """One code length in kpc."""
        return self.length_cm / _core.KPC_CM

    @property
    def velocity_km_s(self):
        """One code velocity in km/s."""
        return self.velocity_cm_per_s / 1e5

    @property
    def time_gyr(self):
        """One code time in Gyr."""
        return self.time_s / _core.GYR_S

    def cgs(self, dimension):
        """One code unit of `dimension` (a key of DIMENSIONS) in cgs."""
        try:
            length, mass, velocity = DIMENSIONS[dimension]
        except KeyError:
            raise ValueError(f"dimension {dimension!r}; accepted: {', '.join(DIMENSIONS)}") from None
        return self.length_cm ** length * self.mass_g ** mass * self.velocity_cm_per_s ** velocity

    def config(self):
        """The [units] table as "section.key=value" assignments (the CLI's --set)."""
        if self.system == "physical":
            return ["units.system=physical"]
        return ["units.system=henon", f"units.length_kpc={self._length_kpc!r}", f"units.mass_msun={self._mass_msun!r}"]

    # ----- crossing the API

    def to_code(self, value, dimension, name="value"):
        """`value` in code units: an astropy Quantity is converted (TypeError
        naming `name` when its dimension is not `dimension`); anything else is
        taken to be in code units already and returned unchanged."""
        if not _is_quantity(value):
            return value
        from astropy import units as u  # only reached with a Quantity, so astropy is there

        code = self.cgs(dimension) * _cgs_unit(u, dimension)
        try:
            return value.to_value(code)
        except u.UnitConversionError:
            raise TypeError(f"{name} = {value}: not a {dimension.replace('_', ' ')}; accepted: a plain number in "
                            f"code units or an astropy quantity of {dimension.replace('_', ' ')}") from None

    def quantity(self, value, dimension):
        """`value` (code units) as an astropy Quantity in cgs-derived units
        (opt-in; needs astropy: ImportError saying so otherwise)."""
        try:
            from astropy import units as u
        except ImportError as e:
            raise ImportError("orrery.Units.quantity needs astropy (pip install astropy); plain numpy arrays in "
                              "code units need nothing") from e
        return np.asarray(value) * (self.cgs(dimension) * _cgs_unit(u, dimension))

    # ----- identity

    def __eq__(self, other):
        return isinstance(other, Units) and self._u.same_as(other._u)

    def __hash__(self):
        return hash((self.system, round(self.length_kpc, 9), round(self.mass_msun, 3)))

    def __repr__(self):
        if self.system == "physical":
            return (f"Units('physical': 1 kpc, {self.mass_msun:.6g} Msun, 1 km/s, {self.time_gyr:.4g} Gyr; G = 1)")
        return (f"Units('henon', length_kpc={self._length_kpc:g}, mass_msun={self._mass_msun:g}: "
                f"{self.velocity_km_s:.4g} km/s, {self.time_gyr:.4g} Gyr; G = 1)")


def _cgs_unit(u, dimension):
    """The astropy cgs unit of `dimension`."""
    length, mass, velocity = DIMENSIONS[dimension]
    return u.cm ** length * u.g ** mass * (u.cm / u.s) ** velocity
