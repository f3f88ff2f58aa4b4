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
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "orrery/core/softening.hpp"
#include "orrery/core/softening_classes.hpp"
#include "orrery/gravity/force_solver.hpp"

namespace orrery::gravity {

template <class Real>
class ReferenceSolver final : public ForceSolver<Real> {
 public:
  /// eps >= 0 is the Plummer-equivalent softening length of `kernel`;
  /// per_type, when given and not uniform, the softening of each type and
  /// the types' counts (GADGET-4's rule: a pair takes the larger softening).
  ReferenceSolver(SofteningKind kernel, double eps, const std::optional<SofteningClasses>& per_type = {});
  std::string name() const override;
  SolverReport solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                     const SolveOptions& options = {}) override;
  /// The field at `targets` (targets.hpp: a subset of the sources by index,
  /// each excluding itself, or points, which exclude none); `out` holds
  /// targets.count entries in the targets' order, each bit-identical to the
  /// one it gets when every source is a target (each target's sum is the
  /// same loop on one thread). InputError for an index out of range or
  /// listed twice, or a point not finite.
  SolverReport solve(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                     const AccelerationsView<Real>& out, const SolveOptions& options = {}) override;

 private:
  SofteningKind kernel_;
  double eps_;
  std::optional<SofteningClasses> per_type_;  // set only when not uniform
};

/// The reference accelerations at some of the sources only: for each k,
/// (ax, ay, az)[k] is the field of all sources at source targets[k] (itself
/// excluded), in double, bit-identical to what ReferenceSolver<double> sums
/// for that target before rounding. For accuracy checks on large N, where the
/// full O(N^2) reference is too slow. targets[k] in [0, sources.count).
template <class Real>
void reference_accelerations_at(const SourcesView<Real>& sources, std::span<const std::int64_t> targets,
                                SofteningKind kernel, double eps, double* ax, double* ay, double* az);

extern template class ReferenceSolver<float>;
extern template class ReferenceSolver<double>;

}  // namespace orrery::gravity
