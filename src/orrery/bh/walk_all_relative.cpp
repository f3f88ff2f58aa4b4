// The relative opening's walks (walk_all_impl.hpp), compiled apart from the
// geometric ones in walk_all.cpp so that the two build in parallel.
#include "orrery/bh/walk_all_impl.hpp"

namespace orrery::bh {

template <class Real>
void walk_targets_relative(const Octree<Real>& tree, const WalkTargets<Real>& targets, const TreeSolverConfig& c,
                           bool potential, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* pt,
                           const Real* scale) {
  walk_targets_opening<RelativeOpening>(tree, targets, c, potential, ax, ay, az, pot, pt, scale);
}

template void walk_targets_relative(const Octree<float>&, const WalkTargets<float>&, const TreeSolverConfig&, bool,
                                    float*, float*, float*, float*, InteractionCounts*, const float*);
template void walk_targets_relative(const Octree<double>&, const WalkTargets<double>&, const TreeSolverConfig&, bool,
                                    double*, double*, double*, double*, InteractionCounts*, const double*);

}  // namespace orrery::bh
