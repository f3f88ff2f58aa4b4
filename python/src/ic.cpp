// Initial conditions through the CLI's own path: make_initial_conditions()
// with an InitialConditionsConfig (the [initial_conditions] table), returning
// float64 arrays; the table's mass is converted by the run's unit system as
// the CLI converts it. The Python layer rounds them once to the run's precision,
// as ic::to_precision does for the CLI.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "orrery/core/units.hpp"
#include "orrery/ic/initial_conditions.hpp"

namespace orrery::python {

void bind_ic(nb::module_& m) {
  using ic::CollisionParameters;
  using ic::HernquistParameters;
  using ic::InitialConditionsConfig;
  using ic::KeplerParameters;
  nb::class_<HernquistParameters>(m, "HernquistParameters").def_rw("truncation", &HernquistParameters::truncation);
  nb::class_<KeplerParameters>(m, "KeplerParameters")
      .def_rw("eccentricity", &KeplerParameters::eccentricity)
      .def_rw("semi_major_axis", &KeplerParameters::semi_major_axis)
      .def_rw("mass_ratio", &KeplerParameters::mass_ratio);
  nb::class_<CollisionParameters>(m, "CollisionParameters")
      .def_rw("separation", &CollisionParameters::separation)
      .def_rw("impact_parameter", &CollisionParameters::impact_parameter)
      .def_rw("relative_velocity", &CollisionParameters::relative_velocity);
  nb::class_<InitialConditionsConfig>(m, "InitialConditionsConfig", "The [initial_conditions] table.")
      .def(nb::init<>())
      .def_rw("kind", &InitialConditionsConfig::kind)
      .def_rw("count", &InitialConditionsConfig::count)
      .def_rw("seed", &InitialConditionsConfig::seed)
      .def_rw("mass", &InitialConditionsConfig::mass)
      .def_rw("length", &InitialConditionsConfig::length)
      .def_rw("hernquist", &InitialConditionsConfig::hernquist)
      .def_rw("kepler", &InitialConditionsConfig::kepler)
      .def_rw("collision", &InitialConditionsConfig::collision);
  m.def(
      "initial_conditions",
      [](InitialConditionsConfig config, const UnitSystem& units) {
        // As driver::initial_state: the table's mass is in Msun in the physical system.
        config.mass = units.to_code_mass(config.mass);
        Particles<double> p;
        {
          nb::gil_scoped_release release;
          p = ic::make_initial_conditions(config);
        }
        return particle_arrays(std::move(p));
      },
      nb::arg("config"), nb::arg("units"), "positions, velocities, masses, ids as float64 / uint64 arrays.");
  m.def("initial_condition_kinds", &ic::initial_condition_kinds, "The initial-condition generators of this build.");
}

}  // namespace orrery::python
