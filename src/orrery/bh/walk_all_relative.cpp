// The relative opening's walks (walk_all.hpp), compiled apart from the
// geometric ones in walk_all.cpp so that the two build in parallel.
#include "orrery/bh/walk_all_impl.hpp"

namespace orrery::bh {

template <class Real>
void walk_all_relative(const Octree<Real>& tree, const TreeSolverConfig& c, bool potential, Real* ax, Real* ay,
                       Real* az, Real* pot, InteractionCounts* pt, const Real* scale) {
  walk_all_opening<RelativeOpening>(tree, c, potential, ax, ay, az, pot, pt, scale);
}

template void walk_all_relative(const Octree<float>&, const TreeSolverConfig&, bool, float*, float*, float*, float*,
                                InteractionCounts*, const float*);
template void walk_all_relative(const Octree<double>&, const TreeSolverConfig&, bool, double*, double*, double*,
                                double*, InteractionCounts*, const double*);

}  // namespace orrery::bh
