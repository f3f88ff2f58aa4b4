#pragma once
// The units of each snapshot dataset, stated where readers look for them.
//
// /Parameters carries the code units (UnitLength_in_cm, ...), but pynbody's
// GADGET reader also wants every dataset to say which power of them it is in,
// and warns "Unable to infer units from HDF attributes" for each array that
// does not. Two conventions are written, both derived from the run's own
// UnitSystem (nothing is converted: the data stay in code units):
//
//   EAGLE's, read by pynbody's GadgetHDFSnap: VarDescription ("U_L", "U_V^2 U_L^-1", ...),
//     CGSConversionFactor, aexp-scale-exponent = h-scale-exponent = 0 (no cosmology);
//   GADGET-4's (IO_Def::write_dataset_attributes): length_scaling, mass_scaling,
//     velocity_scaling, a_scaling = h_scaling = 0, to_cgs.
#include <hdf5.h>

#include <string>

#include "orrery/core/units.hpp"
#include "orrery/io/hdf5_util.hpp"

namespace orrery::io {

/// A dataset's physical dimension as powers of the code length, mass and velocity units.
struct Dimension {
  int length = 0, mass = 0, velocity = 0;
};

inline constexpr Dimension kLength{1, 0, 0};
inline constexpr Dimension kMass{0, 1, 0};
inline constexpr Dimension kVelocity{0, 0, 1};
inline constexpr Dimension kSpecificEnergy{0, 0, 2};  // potential per unit mass
inline constexpr Dimension kAcceleration{-1, 0, 2};
inline constexpr Dimension kDimensionless{};  // particle IDs

/// The unit system of a file's /Parameters attributes (`name` is its unit_system
/// attribute, empty for files of other codes). Orrery computes with G = 1, so
/// the attributes must describe such a system: "physical" exactly Orrery's, or
/// Hénon units scaled to any length and mass (the velocity unit following from
/// G = 1). A file without unit_system whose units are the physical ones reads as
/// "physical". InputError (naming the attributes and the G they imply) otherwise.
UnitSystem units_from_attributes(const h5::Where& w, const std::string& name, double length_cm, double mass_g,
                                 double velocity_cm_per_s);

/// Writes both conventions' unit attributes on the existing dataset `group/name`.
void describe_units(const h5::Where& w, hid_t group, const char* name, Dimension d, const UnitSystem& units);

}  // namespace orrery::io
