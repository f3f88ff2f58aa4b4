#pragma once
// The interface every solver implements: given sources (host SoA arrays), it
// writes accelerations and, on request, potentials, and reports what it did.
// The field of all sources is evaluated at every source (self excluded) or,
// through the TargetSet overload, at a subset of them or at other points
// (targets.hpp; the seam block steps and MPI build on, docs/adr/0011).
#include <memory>
#include <optional>
#include <string>

#include "orrery/bh/morton.hpp"
#include "orrery/core/error.hpp"
#include "orrery/core/particles.hpp"
#include "orrery/core/solver_report.hpp"
#include "orrery/gravity/targets.hpp"

namespace orrery::gravity {

struct SolveOptions {
  bool potential = true;          // compute potentials (else out.potential is ignored)
  bool per_target_counts = false;  // fill SolverReport::per_target
  // out.ax/ay/az hold the accelerations of the previous evaluation (the
  // same particles a step earlier). Read, before they are overwritten, by a
  // tree solver with the relative opening (docs/adr/0007); without them it
  // bootstraps: a geometric walk at theta supplies them. Ignored otherwise.
  bool previous_accelerations = false;
  // The relative opening's floor (bh/opening_relative.hpp) is a fraction of
  // the largest |a_old| of the evaluation. A solve of a subset of the
  // targets gives here the largest over all of them, so that each target's
  // bits are those of the solve of every target; negative: the largest over
  // the targets solved (the whole set when every source is a target).
  double largest_previous_acceleration = -1.0;
  // The tree's key cube, given from outside (e.g. the global one of an MPI
  // run) instead of the sources' own bounding cube; every source must lie in
  // it (an InputError names one that does not). The tree solvers, CPU and
  // GPU (either build); the other solvers have no tree and ignore it.
  std::optional<bh::Cube> cube;
};

template <class Real>
class ForceSolver {
 public:
  virtual ~ForceSolver() = default;
  /// A short name for logs and reports, e.g. "tree/cpu/monopole".
  virtual std::string name() const = 0;
  /// Overwrites out.ax/ay/az (and out.potential if requested and non-null).
  /// out.count must equal sources.count. Throws InputError on invalid input.
  virtual SolverReport solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                             const SolveOptions& options = {}) = 0;
  /// The field of `sources` at `targets` (host arrays): `out` holds
  /// targets.count entries in the targets' order, each bit-identical to the
  /// one the target gets when every source is a target. Every solver of the
  /// library takes every kind of set (reference, direct and tree, CPU and
  /// CUDA); this default, for a solver that does not, takes only the set of
  /// every source and refuses the rest with an InputError naming the solver.
  virtual SolverReport solve(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                             const AccelerationsView<Real>& out, const SolveOptions& options = {}) {
    if (targets.all()) return solve(sources, out, options);
    throw InputError("solver " + name() +
                     " evaluates the field at every source only, not at a subset or at other points; accepted: "
                     "the reference, direct or tree solver (CPU or CUDA)");
  }
};

}  // namespace orrery::gravity
