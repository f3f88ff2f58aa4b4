// walk_targets and walk_all: the opening and the expansion are the tree's,
// chosen once per solve; the geometric walks of monopole and quadrupole
// trees are instantiated here, the relative ones in walk_all_relative.cpp,
// the octupole and hexadecapole ones in a file each (translation units that
// compile in parallel).
#include "orrery/bh/walk_all.hpp"

#include "orrery/bh/walk_all_impl.hpp"

namespace orrery::bh {

template <class Real>
void walk_targets(const Octree<Real>& tree, const WalkTargets<Real>& targets, const TreeSolverConfig& c,
                  bool potential, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* pt, const Real* scale) {
  if (tree.params.multipole == Multipole::octupole)
    walk_targets_octupole(tree, targets, c, potential, ax, ay, az, pot, pt, scale);
  else if (tree.params.multipole == Multipole::hexadecapole)
    walk_targets_hexadecapole(tree, targets, c, potential, ax, ay, az, pot, pt, scale);
  else if (tree.crit_rel.empty())
    walk_targets_low_order<GeometricOpening>(tree, targets, c, potential, ax, ay, az, pot, pt, scale);
  else
    walk_targets_relative(tree, targets, c, potential, ax, ay, az, pot, pt, scale);
}

template <class Real>
void walk_all(const Octree<Real>& tree, const TreeSolverConfig& c, bool potential, Real* ax, Real* ay, Real* az,
              Real* pot, InteractionCounts* pt, const Real* scale) {
  walk_targets(tree, every_source(tree.view()), c, potential, ax, ay, az, pot, pt, scale);
}

template void walk_targets(const Octree<float>&, const WalkTargets<float>&, const TreeSolverConfig&, bool, float*,
                           float*, float*, float*, InteractionCounts*, const float*);
template void walk_targets(const Octree<double>&, const WalkTargets<double>&, const TreeSolverConfig&, bool, double*,
                           double*, double*, double*, InteractionCounts*, const double*);
template void walk_all(const Octree<float>&, const TreeSolverConfig&, bool, float*, float*, float*, float*,
                       InteractionCounts*, const float*);
template void walk_all(const Octree<double>&, const TreeSolverConfig&, bool, double*, double*, double*, double*,
                       InteractionCounts*, const double*);

}  // namespace orrery::bh
