#include "orrery/gravity/direct_solver.hpp"

#include <chrono>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/gravity/direct_kernel.hpp"
#include "orrery/gravity/all_pairs_report.hpp"
#include "orrery/gravity/solve_arguments.hpp"

namespace orrery::gravity {

namespace {

// Fewer targets than this (< ~50 us of work) run on one thread: starting a
// parallel region costs more, and on a loaded machine much more. The result
// does not depend on it (each target's sum is the same on any thread).
constexpr std::int64_t kParallelTargets = 256;

// soft_of(i): the softening argument of target i's field (the policy, or its
// TargetSoftenings with a softening per type), chosen once per solve.
template <class Real, bool WithPotential, class SoftOf>
void direct_all(const SourcesView<Real>& s, const AccelerationsView<Real>& out, const SoftOf& soft_of) {
#pragma omp parallel for schedule(static) if (s.count >= kParallelTargets)
  for (std::int64_t i = 0; i < s.count; ++i) {
    const auto soft = soft_of(i);
    const TargetField<Real> f = direct_field_at<Real, std::decay_t<decltype(soft)>, WithPotential>(i, s, soft);
    out.ax[i] = f.ax;
    out.ay[i] = f.ay;
    out.az[i] = f.az;
    if constexpr (WithPotential) out.potential[i] = f.potential;
  }
}

// soft_of(k): as direct_all's, for target k of the set.
template <class Real, bool WithPotential, class SoftOf>
void direct_targets(const SourcesView<Real>& s, const TargetSet<Real>& t, const AccelerationsView<Real>& out,
                    const SoftOf& soft_of) {
#pragma omp parallel for schedule(static) if (t.count >= kParallelTargets)
  for (std::int64_t k = 0; k < t.count; ++k) {
    const DirectTarget<Real> at = t.index != nullptr ? DirectTarget<Real>(t.index[k], s) : DirectTarget<Real>(t.x[k], t.y[k], t.z[k]);
    const auto soft = soft_of(k);
    const TargetField<Real> f = direct_field_at<Real, std::decay_t<decltype(soft)>, WithPotential>(at, s, soft);
    out.ax[k] = f.ax;
    out.ay[k] = f.ay;
    out.az[k] = f.az;
    if constexpr (WithPotential) out.potential[k] = f.potential;
  }
}

// Calls run(soft_of) with soft_of(k) the softening of target k, whose class
// is target_class(k) (PairSoftenings::kPointRow for a point): the one policy,
// or with a softening per type the target's TargetSoftenings over the
// sources' classes `cls`.
template <class Real, class Softening, class TargetClass, class Run>
void with_target_softening(const Softening& one, const PairSoftenings<Softening>* pairs, const std::uint8_t* cls,
                           const TargetClass& target_class, const Run& run) {
  if (pairs == nullptr) {
    run([&](std::int64_t) { return one; });
  } else {
    run([&](std::int64_t k) { return TargetSoftenings<Softening, Real>{pairs->row(target_class(k)), cls}; });
  }
}

}  // namespace

template <class Real, class Softening>
DirectSolver<Real, Softening>::DirectSolver(Real eps, const std::optional<SofteningClasses>& per_type)
    : softening_(validated_softening(eps)) {
  if (per_type && !per_type->uniform()) {
    per_type_ = validated_softening_classes(*per_type);
    pairs_ = PairSoftenings<Softening>::template of<Real>(*per_type_);
  }
}

template <class Real, class Softening>
std::string DirectSolver<Real, Softening>::name() const {
  return std::string("direct/cpu/") + (sizeof(Real) == 4 ? "single/" : "double/") +
         std::string(to_string(Softening::kind));
}

template <class Real, class Softening>
SolverReport DirectSolver<Real, Softening>::solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                                                  const SolveOptions& options) {
  check_solve_arguments(name(), sources, out);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::uint8_t> cls = per_type_ ? per_type_->of_sources(sources.count, name()) : std::vector<std::uint8_t>{};
  with_target_softening<Real>(softening_, per_type_ ? &pairs_ : nullptr, cls.data(), [&](std::int64_t i) { return cls[i]; },
                        [&](const auto& soft_of) {
                          if (options.potential && out.potential != nullptr) {
                            direct_all<Real, true>(sources, out, soft_of);
                          } else {
                            direct_all<Real, false>(sources, out, soft_of);
                          }
                        });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return all_pairs_report(sources.count, options.per_target_counts, "direct", seconds);
}

template <class Real, class Softening>
SolverReport DirectSolver<Real, Softening>::solve(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                                                  const AccelerationsView<Real>& out, const SolveOptions& options) {
  if (targets.all()) return solve(sources, out, options);
  check_solve_arguments(name(), sources, AccelerationsView<Real>{sources.count});
  if (out.count != targets.count)
    throw InputError(name() + ": accelerations hold " + std::to_string(out.count) + " entries for " +
                     std::to_string(targets.count) + " targets; they must be equal");
  for (std::int64_t k = 0; k < targets.count; ++k) {
    if (targets.index != nullptr) {
      const std::int64_t j = targets.index[k];
      if (j < 0 || j >= sources.count) throw InputError(target_out_of_range(k, j, sources.count));
    } else if (!(std::isfinite(targets.x[k]) && std::isfinite(targets.y[k]) && std::isfinite(targets.z[k]))) {
      throw InputError(name() + ": target point " + std::to_string(k) + " is not finite; positions must be finite");
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::uint8_t> cls = per_type_ ? per_type_->of_sources(sources.count, name()) : std::vector<std::uint8_t>{};
  const auto target_class = [&](std::int64_t k) {
    return targets.index != nullptr ? int{cls[targets.index[k]]} : PairSoftenings<Softening>::kPointRow;
  };
  with_target_softening<Real>(softening_, per_type_ ? &pairs_ : nullptr, cls.data(), target_class, [&](const auto& soft_of) {
    if (options.potential && out.potential != nullptr) {
      direct_targets<Real, true>(sources, targets, out, soft_of);
    } else {
      direct_targets<Real, false>(sources, targets, out, soft_of);
    }
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SolverReport report;
  // Each source target meets the N - 1 others, each point all N.
  const auto n = static_cast<std::uint64_t>(sources.count);
  const InteractionCounts each{0, 0, targets.index != nullptr ? n - 1 : n};
  report.total.particle_interactions = each.particle_interactions * static_cast<std::uint64_t>(targets.count);
  if (options.per_target_counts) report.per_target.assign(static_cast<std::size_t>(targets.count), each);
  report.add_phase("direct", seconds);
  return report;
}

template class DirectSolver<float, PlummerSoftening<float>>;
template class DirectSolver<float, SplineSoftening<float>>;
template class DirectSolver<double, PlummerSoftening<double>>;
template class DirectSolver<double, SplineSoftening<double>>;

}  // namespace orrery::gravity
