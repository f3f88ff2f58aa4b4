#pragma once
// GADGET-4's softening classes in a snapshot's /Parameters, which pynbody
// reads as each particle's eps and GADGET-4 as its parameters:
// SofteningComovingClassN and SofteningMaxPhysClassN (the softening of class
// N, code units; no cosmology, so both equal) and SofteningClassOfPartTypeT
// (the class of type T). Orrery writes one class (0) for every type when the
// run has one softening, else class T for type T (docs/softening.md).
#include <hdf5.h>

#include <array>
#include <optional>

#include "orrery/io/hdf5_util.hpp"

namespace orrery::io {

/// The softening of each type PartType0..5, when they differ.
using SofteningPerType = std::optional<std::array<double, 6>>;

/// Writes the class attributes to /Parameters (group g): `softening` for
/// every type, or one class per type with per_type's softenings.
void write_softening_classes(const h5::Where& w, hid_t g, double softening, const SofteningPerType& per_type);

/// The softening of each type from the class attributes of /Parameters
/// (group g), when every type names a class that is stored and the types'
/// softenings differ; nothing otherwise (a file with one softening, or
/// without classes). InputError naming the attribute for a class that is
/// not stored, or a softening that is not a finite number >= 0.
SofteningPerType read_softening_classes(const h5::Where& w, hid_t g);

}  // namespace orrery::io
