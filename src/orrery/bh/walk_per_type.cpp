#include "orrery/bh/walk_per_type.hpp"

#include <type_traits>

#include "orrery/bh/walk.hpp"
#include "orrery/core/error.hpp"
#include "orrery/core/pair_softening.hpp"

namespace orrery::bh {

template <class Real>
NodeSoftenings<Real> node_softenings(const OctreeView<Real>& t, const SofteningClasses& classes,
                                     const std::uint8_t* sorted_class) {
  NodeSoftenings<Real> out{std::vector<std::uint8_t>(static_cast<std::size_t>(t.num_nodes)),
                           std::vector<Real>(static_cast<std::size_t>(t.num_nodes))};
  // Each node over its own particle range: N times the depth, next to the walk's N log N.
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int32_t n = 0; n < t.num_nodes; ++n) {
    int largest = sorted_class[t.first[n]];
    bool mixed = false;
    for (std::int32_t j = t.first[n] + 1; j < t.first[n] + t.count[n]; ++j) {
      mixed |= classes.eps[sorted_class[j]] != classes.eps[largest];
      largest = classes.larger(largest, sorted_class[j]);
    }
    const Real h = Real(classes.eps[largest]);
    out.largest[static_cast<std::size_t>(n)] = static_cast<std::uint8_t>(largest);
    out.mixed_eps2[static_cast<std::size_t>(n)] = mixed ? h * h : Real(0);
  }
  return out;
}

namespace {

template <bool Pot, Multipole M, MathMode Mode, class Real, class Policy>
void walk_each(const PairSoftenings<Policy>& pairs, const OctreeView<Real>& t, const WalkTargets<Real>& targets,
               const SofteningClasses& classes, const std::uint8_t* sorted_class, const NodeSoftenings<Real>& nodes,
               const Real* scale, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* counts) {
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int32_t k = 0; k < targets.count; ++k) {
    const std::int32_t i = targets.self(k);
    Real tx, ty, tz;
    targets.position(t, k, i, tx, ty, tz);
    // A point has no softening of its own (eps 0).
    const int own = i >= 0 ? int{sorted_class[i]} : PairSoftenings<Policy>::kPointRow;
    const Real eps = i >= 0 ? Real(classes.eps[own]) : Real(0);
    const TargetSoftenings<Policy, Real> soft{pairs.row(own), sorted_class, nodes.largest.data(), nodes.mixed_eps2.data(),
                                              eps * eps};
    WalkCounts c;
    const Accumulator<Real> acc =
        walk_target_at<Pot, M, Mode>(t, soft, i, tx, ty, tz, c, scale != nullptr ? scale[k] : Real(0));
    ax[k] = acc.ax;
    ay[k] = acc.ay;
    az[k] = acc.az;
    if constexpr (Pot) pot[k] = acc.pot;
    counts[k] = {c.node_visits, c.cell_interactions, c.particle_interactions};
  }
}

// Run-time configuration to compile-time parameters, once, on the host.
template <bool Pot, Multipole M, class Real, class... Args>
void dispatch(const TreeSolverConfig& c, Args&&... args) {
  with_softening<Real>(c.softening_kind, Real(c.softening), [&](auto one) {
    using Policy = decltype(one);
    const auto pairs = PairSoftenings<Policy>::template of<Real>(*c.per_type);
    if (c.math == MathMode::exact)
      walk_each<Pot, M, MathMode::exact>(pairs, args...);
    else
      walk_each<Pot, M, MathMode::fast>(pairs, args...);
  });
}

}  // namespace

template <class Real>
void walk_targets_per_type(const Octree<Real>& tree, const WalkTargets<Real>& targets, const TreeSolverConfig& config,
                           const std::uint8_t* source_class, bool potential, Real* ax, Real* ay, Real* az, Real* pot,
                           InteractionCounts* per_target, const Real* scale) {
  if (!config.per_type)
    throw InputError("walk_targets_per_type: no softening per type given; accepted: a TreeSolverConfig with per_type set");
  const auto t = tree.view();
  std::vector<std::uint8_t> sorted_class(static_cast<std::size_t>(t.num_particles));
  for (std::int64_t k = 0; k < t.num_particles; ++k) sorted_class[k] = source_class[tree.order[k]];
  const NodeSoftenings<Real> nodes = node_softenings(t, *config.per_type, sorted_class.data());
  const auto walk = [&](auto pot_tag, auto multipole) {
    dispatch<decltype(pot_tag)::value, decltype(multipole)::value, Real>(
        config, t, targets, *config.per_type, sorted_class.data(), nodes, scale, ax, ay, az, pot, per_target);
  };
  with_multipole(tree.params.multipole, [&](auto multipole) {
    potential ? walk(std::true_type{}, multipole) : walk(std::false_type{}, multipole);
  });
}

template NodeSoftenings<float> node_softenings(const OctreeView<float>&, const SofteningClasses&, const std::uint8_t*);
template NodeSoftenings<double> node_softenings(const OctreeView<double>&, const SofteningClasses&, const std::uint8_t*);
template void walk_targets_per_type(const Octree<float>&, const WalkTargets<float>&, const TreeSolverConfig&,
                                    const std::uint8_t*, bool, float*, float*, float*, float*, InteractionCounts*,
                                    const float*);
template void walk_targets_per_type(const Octree<double>&, const WalkTargets<double>&, const TreeSolverConfig&,
                                    const std::uint8_t*, bool, double*, double*, double*, double*, InteractionCounts*,
                                    const double*);

}  // namespace orrery::bh
