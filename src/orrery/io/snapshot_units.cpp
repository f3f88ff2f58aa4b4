#include "orrery/io/snapshot_units.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace orrery::io {
namespace {

/// "U_V^2 U_L^-1" for pynbody's parser: it finds each U_ name, reads the
/// power after '^', and ignores the closing bracket (it drops the last character).
std::string description(Dimension d) {
  std::string text;
  const auto term = [&text](const char* name, int power) {
    if (power == 0) return;
    if (!text.empty()) text += ' ';
    text += name;
    if (power != 1) text += '^' + std::to_string(power);
  };
  term("U_L", d.length);
  term("U_M", d.mass);
  term("U_V", d.velocity);
  return (text.empty() ? std::string("dimensionless") : text) + " [cgs]";
}

}  // namespace

UnitSystem units_from_attributes(const h5::Where& w, const std::string& name, double length_cm, double mass_g,
                                 double velocity_cm_per_s) {
  const double g_internal = cgs::G * mass_g / (length_cm * velocity_cm_per_s * velocity_cm_per_s);
  const auto attributes = [&] {
    char buf[256];
    std::snprintf(buf, sizeof buf, "UnitLength_in_cm = %.9g, UnitMass_in_g = %.9g, UnitVelocity_in_cm_per_s = %.9g",
                  length_cm, mass_g, velocity_cm_per_s);
    return std::string(buf);
  };
  // Units written by Orrery round-trip to ~1e-16; other writers quote G to a few digits.
  if (std::abs(g_internal - 1.0) > 1e-6) {
    char g[32];
    std::snprintf(g, sizeof g, "%.6g", g_internal);
    w.fail("Parameters", attributes() + " give G = " + g + " in code units, but Orrery computes with G = 1; accepted: "
                         "unit attributes with G = 1 (Orrery's henon or physical systems), or none (Henon units)");
  }
  const UnitSystem physical = physical_units();
  const bool is_physical = same_units(UnitSystem{physical.name, length_cm, mass_g, velocity_cm_per_s}, physical);
  if (name == "physical" || (name.empty() && is_physical)) {
    if (!is_physical) w.fail("Parameters.unit_system", "\"physical\" but " + attributes() + " are not kpc, km/s and "
                                                       "1/4.30091e-6 Msun");
    return physical;
  }
  if (!name.empty() && name != "henon")
    w.fail("Parameters.unit_system", "\"" + name + "\"; accepted: henon, physical");
  return henon_units(length_cm / cgs::kpc, mass_g / cgs::msun);
}

void describe_units(const h5::Where& w, hid_t group, const char* name, Dimension d, const UnitSystem& u) {
  const h5::Handle set(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
  if (!set.valid()) w.fail(name, "cannot open dataset to describe its units (HDF5: " + h5::last_error() + ")");
  const hid_t s = set.get();
  const double to_cgs = std::pow(u.length_cm, d.length) * std::pow(u.mass_g, d.mass) *
                        std::pow(u.velocity_cm_per_s, d.velocity);
  h5::write_attr(w, s, "VarDescription", description(d));
  h5::write_attr(w, s, "CGSConversionFactor", to_cgs);
  h5::write_attr(w, s, "aexp-scale-exponent", 0.0);
  h5::write_attr(w, s, "h-scale-exponent", 0.0);
  h5::write_attr(w, s, "length_scaling", static_cast<double>(d.length));
  h5::write_attr(w, s, "mass_scaling", static_cast<double>(d.mass));
  h5::write_attr(w, s, "velocity_scaling", static_cast<double>(d.velocity));
  h5::write_attr(w, s, "a_scaling", 0.0);
  h5::write_attr(w, s, "h_scaling", 0.0);
  h5::write_attr(w, s, "to_cgs", to_cgs);
}

}  // namespace orrery::io
