#include "orrery/gravity/direct_solver.hpp"

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/gravity/direct_loops.hpp"
#include "orrery/gravity/direct_per_type.hpp"
#include "orrery/gravity/all_pairs_report.hpp"
#include "orrery/gravity/solve_arguments.hpp"

namespace orrery::gravity {

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
  const bool potential = options.potential && out.potential != nullptr;
  field(sources, TargetSet<Real>{}, out, potential);
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
  field(sources, targets, out, options.potential && out.potential != nullptr);
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

template <class Real, class Softening>
void DirectSolver<Real, Softening>::field(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                                          const AccelerationsView<Real>& out, bool potential) const {
  if (per_type_) {
    direct_field_per_type(sources, targets, out, potential, pairs_, per_type_->of_sources(sources.count, name()).data());
  } else {
    direct_loops::field(sources, targets, out, potential, [&](std::int64_t) -> const Softening& { return softening_; });
  }
}

template class DirectSolver<float, PlummerSoftening<float>>;
template class DirectSolver<float, SplineSoftening<float>>;
template class DirectSolver<double, PlummerSoftening<double>>;
template class DirectSolver<double, SplineSoftening<double>>;

}  // namespace orrery::gravity
