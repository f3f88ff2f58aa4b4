#pragma once
// Unit systems. The solvers compute with G = 1 in code units; a UnitSystem
// says what one code unit of length, mass and velocity is in cgs, and what G
// is in code units (GravityConstantInternal of the GADGET-4 snapshot layout).
//
//   henon     G = M = 1, E = -1/4 for the initial models. Physically scaled,
//             for readers that want cgs, to 1 code length = `length_kpc` kpc
//             and 1 code mass = `mass_msun` Msun (defaults 1 kpc, 1e10 Msun);
//             the velocity unit follows from G = 1 (207.4 km/s by default).
//   physical  kpc, km/s and, for G = 1, the mass unit kpc (km/s)^2 / G =
//             1 / 4.30091e-6 Msun = 2.32509e5 Msun (G = 4.30091e-6 kpc (km/s)^2 / Msun).
//             Masses in the configuration are given in Msun (to_code_mass);
//             the snapshot's UnitMass_in_g states the code mass unit, so yt
//             and pynbody show Msun. One code time unit is 0.9778 Gyr.
//
// The solvers never see G: every unit system has G = 1 in code units.
#include <cmath>
#include <string>

namespace orrery {

namespace cgs {
inline constexpr double kpc = 3.0856775814913673e21;  // cm (IAU 2015)
inline constexpr double msun = 1.98841e33;              // g (IAU 2015 nominal GM / CODATA G)
inline constexpr double km_per_s = 1e5;                 // cm/s
inline constexpr double gyr = 3.15576e16;               // s (Julian)
/// G in kpc (km/s)^2 / Msun; the cgs value follows from it so that the
/// physical unit system is consistent to the last digit quoted.
inline constexpr double G_kpc_kms2_per_msun = 4.30091e-6;
inline constexpr double G = G_kpc_kms2_per_msun * kpc * km_per_s * km_per_s / msun;
}  // namespace cgs

struct UnitSystem {
  std::string name = "henon";
  double length_cm = cgs::kpc;
  double mass_g = 1e10 * cgs::msun;
  double velocity_cm_per_s = std::sqrt(cgs::G * 1e10 * cgs::msun / cgs::kpc);
  double gravity_constant = 1.0;  // G in code units (1 for both systems)
  /// Code mass per unit of the masses given in a configuration (1 in Henon
  /// units; 4.30091e-6 in the physical system, where they are given in Msun).
  double config_mass_unit = 1.0;

  double to_code_mass(double config_mass) const { return config_mass * config_mass_unit; }

  double time_s() const { return length_cm / velocity_cm_per_s; }
  double time_gyr(double code_time) const { return code_time * time_s() / cgs::gyr; }

  friend bool operator==(const UnitSystem&, const UnitSystem&) = default;
};

/// The same unit system up to rounding (a unit read back from a file, or
/// recomputed from kpc and Msun, may differ from the original in the last bit).
inline bool same_units(const UnitSystem& a, const UnitSystem& b) {
  const auto close = [](double x, double y) { return std::abs(x - y) <= 1e-12 * std::abs(y); };
  return a.name == b.name && close(a.length_cm, b.length_cm) && close(a.mass_g, b.mass_g) &&
         close(a.velocity_cm_per_s, b.velocity_cm_per_s) && close(a.gravity_constant, b.gravity_constant);
}

/// Hénon units scaled to `length_kpc` and `mass_msun` (both > 0; the caller validates).
inline UnitSystem henon_units(double length_kpc = 1.0, double mass_msun = 1e10) {
  UnitSystem u;
  u.name = "henon";
  u.length_cm = length_kpc * cgs::kpc;
  u.mass_g = mass_msun * cgs::msun;
  u.velocity_cm_per_s = std::sqrt(cgs::G * u.mass_g / u.length_cm);
  u.gravity_constant = 1.0;
  return u;
}

/// kpc, km/s, 2.32509e5 Msun (G = 1); configuration masses in Msun.
inline UnitSystem physical_units() {
  UnitSystem u;
  u.name = "physical";
  u.length_cm = cgs::kpc;
  u.velocity_cm_per_s = cgs::km_per_s;
  u.mass_g = cgs::msun / cgs::G_kpc_kms2_per_msun;
  u.gravity_constant = 1.0;
  u.config_mass_unit = cgs::G_kpc_kms2_per_msun;
  return u;
}

}  // namespace orrery
