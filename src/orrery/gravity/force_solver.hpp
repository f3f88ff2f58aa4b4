#pragma once
// The interface every solver implements: given sources (host SoA arrays), it
// writes accelerations and, on request, potentials, and reports what it did.
// Solvers evaluate the field of all sources at all sources (self excluded).
#include <memory>
#include <string>

#include "orrery/core/particles.hpp"
#include "orrery/core/solver_report.hpp"

namespace orrery::gravity {

struct SolveOptions {
  bool potential = true;          // compute potentials (else out.potential is ignored)
  bool per_target_counts = false;  // fill SolverReport::per_target
  // out.ax/ay/az hold the accelerations of the previous evaluation (the
  // same particles a step earlier). Read, before they are overwritten, by a
  // tree solver with the relative opening (docs/adr/0007); without them it
  // bootstraps: a geometric walk at theta supplies them. Ignored otherwise.
  bool previous_accelerations = false;
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
};

}  // namespace orrery::gravity
