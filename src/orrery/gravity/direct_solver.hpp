#pragma once
// CPU direct summation: O(N^2), OpenMP over targets, the inner loop over
// sources vectorised (AVX2) by explicit lane blocking (direct_kernel.hpp).
//
// Real = float or double; Softening = PlummerSoftening<Real> or
// SplineSoftening<Real> (core/softening.hpp), chosen at compile time.
// Self-interaction is excluded. Potentials are computed only when
// SolveOptions::potential and out.potential != nullptr (it costs ~10 %).
// Determinism: bit-identical results for any number of threads, and for any
// alignment of the input arrays.
// With a softening per type (core/softening_classes.hpp) each pair takes the
// policy of the larger of its two softenings, looked up per source; with
// one softening for every type the solver runs the one-policy loops.
#include <optional>
#include <string>

#include "orrery/core/softening.hpp"
#include "orrery/core/softening_classes.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/gravity/targets.hpp"

namespace orrery::gravity {

template <class Real, class Softening>
class DirectSolver final : public ForceSolver<Real> {
 public:
  /// eps >= 0 is the Plummer-equivalent softening length; per_type, when
  /// given and not uniform, the softening of each type and the types'
  /// counts, which every solve's sources must add up to (else InputError).
  explicit DirectSolver(Real eps, const std::optional<SofteningClasses>& per_type = {});
  std::string name() const override;
  SolverReport solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                     const SolveOptions& options = {}) override;
  /// The field at `targets` (targets.hpp: a subset of the sources by index,
  /// each excluding itself, or points, which exclude none); `out` holds
  /// targets.count entries in the targets' order. A source's result is
  /// bit-identical to the one it gets when every source is a target.
  /// InputError for an index out of range or a point not finite.
  SolverReport solve(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                     const AccelerationsView<Real>& out, const SolveOptions& options = {}) override;

 private:
  /// The field at `targets` with one softening or a softening per type, chosen once per solve.
  void field(const SourcesView<Real>& sources, const TargetSet<Real>& targets, const AccelerationsView<Real>& out,
             bool potential) const;

  Softening softening_;
  std::optional<SofteningClasses> per_type_;  // set only when not uniform
  PairSoftenings<Softening> pairs_;           // of per_type_
};

extern template class DirectSolver<float, PlummerSoftening<float>>;
extern template class DirectSolver<float, SplineSoftening<float>>;
extern template class DirectSolver<double, PlummerSoftening<double>>;
extern template class DirectSolver<double, SplineSoftening<double>>;

}  // namespace orrery::gravity
