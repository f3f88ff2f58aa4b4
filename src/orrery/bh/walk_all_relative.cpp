// The relative opening's walks of monopole and quadrupole trees
// (walk_all_impl.hpp), compiled apart from the geometric ones in
// walk_all.cpp so that the two build in parallel.
#include "orrery/bh/walk_all_impl.hpp"

namespace orrery::bh {

ORRERY_DEFINE_WALK_TARGETS_ENTRY(walk_targets_relative, walk_targets_low_order<RelativeOpening>)

}  // namespace orrery::bh
