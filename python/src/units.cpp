// Unit systems (core/units.hpp) for the Python layer (orrery/units.py): the
// CLI's [units] table turned into a UnitSystem by the CLI's own function, so
// the constants and the accepted values live in one place.
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "orrery/core/units.hpp"
#include "orrery/driver/setup.hpp"

namespace orrery::python {

void bind_units(nb::module_& m) {
  nb::class_<UnitSystem>(m, "UnitSystem", "What one code unit is in cgs (G = 1 in code units).")
      .def_ro("name", &UnitSystem::name)
      .def_ro("length_cm", &UnitSystem::length_cm)
      .def_ro("mass_g", &UnitSystem::mass_g)
      .def_ro("velocity_cm_per_s", &UnitSystem::velocity_cm_per_s)
      .def_ro("gravity_constant", &UnitSystem::gravity_constant)
      .def_ro("config_mass_unit", &UnitSystem::config_mass_unit)
      .def_prop_ro("time_s", &UnitSystem::time_s)
      .def("same_as", [](const UnitSystem& a, const UnitSystem& b) { return same_units(a, b); }, nb::arg("other"));
  m.def(
      "unit_system",
      [](const std::string& system, double length_kpc, double mass_msun) {
        return driver::unit_system(integrate::UnitsConfig{system, length_kpc, mass_msun});
      },
      nb::arg("system"), nb::arg("length_kpc"), nb::arg("mass_msun"),
      "The [units] table's UnitSystem; ValueError in the CLI's words for a value it refuses.");
  m.attr("KPC_CM") = cgs::kpc;
  m.attr("MSUN_G") = cgs::msun;
  m.attr("GYR_S") = cgs::gyr;
  m.attr("G_KPC_KMS2_PER_MSUN") = cgs::G_kpc_kms2_per_msun;
}

}  // namespace orrery::python
