#include "orrery/gravity/direct_solver.hpp"

#include <chrono>
#include <cmath>
#include <string>

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

template <class Real, class Softening, bool WithPotential>
void direct_all(const SourcesView<Real>& s, const AccelerationsView<Real>& out, const Softening& soft) {
#pragma omp parallel for schedule(static) if (s.count >= kParallelTargets)
  for (std::int64_t i = 0; i < s.count; ++i) {
    const TargetField<Real> f = direct_field_at<Real, Softening, WithPotential>(i, s, soft);
    out.ax[i] = f.ax;
    out.ay[i] = f.ay;
    out.az[i] = f.az;
    if constexpr (WithPotential) out.potential[i] = f.potential;
  }
}

template <class Real, class Softening, bool WithPotential>
void direct_targets(const SourcesView<Real>& s, const TargetSet<Real>& t, const AccelerationsView<Real>& out,
                    const Softening& soft) {
#pragma omp parallel for schedule(static) if (t.count >= kParallelTargets)
  for (std::int64_t k = 0; k < t.count; ++k) {
    const DirectTarget<Real> at = t.index != nullptr ? DirectTarget<Real>(t.index[k], s) : DirectTarget<Real>(t.x[k], t.y[k], t.z[k]);
    const TargetField<Real> f = direct_field_at<Real, Softening, WithPotential>(at, s, soft);
    out.ax[k] = f.ax;
    out.ay[k] = f.ay;
    out.az[k] = f.az;
    if constexpr (WithPotential) out.potential[k] = f.potential;
  }
}

}  // namespace

template <class Real, class Softening>
DirectSolver<Real, Softening>::DirectSolver(Real eps) : softening_(validated_softening(eps)) {}

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
  if (options.potential && out.potential != nullptr) {
    direct_all<Real, Softening, true>(sources, out, softening_);
  } else {
    direct_all<Real, Softening, false>(sources, out, softening_);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return all_pairs_report(sources.count, options.per_target_counts, "direct", seconds);
}

template <class Real, class Softening>
SolverReport DirectSolver<Real, Softening>::solve(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                                                  const AccelerationsView<Real>& out, const SolveOptions& options) {
  if (targets.all()) return solve(sources, out, options);
  check_target_set(name(), sources, targets, out);
  const auto start = std::chrono::steady_clock::now();
  if (options.potential && out.potential != nullptr) {
    direct_targets<Real, Softening, true>(sources, targets, out, softening_);
  } else {
    direct_targets<Real, Softening, false>(sources, targets, out, softening_);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return all_pairs_report(sources.count, targets, options.per_target_counts, "direct", seconds);
}

template class DirectSolver<float, PlummerSoftening<float>>;
template class DirectSolver<float, SplineSoftening<float>>;
template class DirectSolver<double, PlummerSoftening<double>>;
template class DirectSolver<double, SplineSoftening<double>>;

}  // namespace orrery::gravity
