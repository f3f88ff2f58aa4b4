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
  check_target_set(name(), sources, targets, out);
  const auto start = std::chrono::steady_clock::now();
  field(sources, targets, out, options.potential && out.potential != nullptr);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return all_pairs_report(sources.count, targets, options.per_target_counts, "direct", seconds);
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
