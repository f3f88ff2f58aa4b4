#pragma once
// The yardstick (contract 3): direct summation in double precision with
// Neumaier-compensated sums of accelerations and potentials. Every other
// solver (single precision, tree, GPU) is measured against it.
//
// In/out: any Real; positions and masses are converted to double, results
// rounded once to Real. Self-interaction is excluded. Potentials are written
// only when SolveOptions::potential and out.potential != nullptr.
// Determinism: each target's sum runs over the sources in index order on one
// thread, so the result is bit-identical for any number of OpenMP threads.
// Cost: O(N^2) with ~3x the work of DirectSolver<double>; for checks, not runs.
#include <string>

#include "orrery/core/softening.hpp"
#include "orrery/gravity/force_solver.hpp"

namespace orrery::gravity {

template <class Real>
class ReferenceSolver final : public ForceSolver<Real> {
 public:
  /// eps >= 0 is the Plummer-equivalent softening length of `kernel`.
  ReferenceSolver(SofteningKind kernel, double eps);
  std::string name() const override;
  SolverReport solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                     const SolveOptions& options = {}) override;

 private:
  SofteningKind kernel_;
  double eps_;
};

extern template class ReferenceSolver<float>;
extern template class ReferenceSolver<double>;

}  // namespace orrery::gravity
