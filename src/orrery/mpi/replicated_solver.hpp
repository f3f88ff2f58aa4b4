#pragma once
// A ForceSolver spread over the ranks of an MPI job with every particle on
// every rank (docs/adr/0013, "replicated particles, split targets"). Each
// rank walks only its share of the targets (target_split.hpp: a Morton range
// balanced by the previous evaluation's interaction counts) with the solver
// it wraps, against the whole set of sources, then the ranks gather every
// target's results. Since a target's result from a subset solve is the bits
// of the all-targets solve (gravity/targets.hpp, docs/adr/0011), what every
// rank holds afterwards is bit-identical to one process's solve, for any K:
// accelerations, potentials and counters.
//
// Collective: every rank calls solve() with the same sources, targets and
// options. Moves 16 bytes per target per solve in single precision, 28 in
// double (three accelerations and a 32-bit work count), plus 4 or 8 for the
// potentials and 24 for per-target counters when asked.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "orrery/gravity/force_solver.hpp"
#include "orrery/gravity/targets.hpp"
#include "orrery/mpi/communicator.hpp"

namespace orrery::mpi {

template <class Real>
class ReplicatedSolver final : public gravity::ForceSolver<Real> {
 public:
  /// `inner` (non-null, else InputError) must take a TargetSet (every solver
  /// of the library does): InputError naming it otherwise.
  ReplicatedSolver(std::unique_ptr<gravity::ForceSolver<Real>> inner, Communicator comm);

  /// The wrapped solver's name: snapshots and logs read the same for every K.
  std::string name() const override { return inner_->name(); }
  SolverReport solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                     const gravity::SolveOptions& options = {}) override;
  /// The field at `targets` (every source, a subset, points), split over the
  /// ranks; with the relative opening and previous accelerations,
  /// options.largest_previous_acceleration < 0 is replaced by the largest
  /// over the targets (as the all-targets solve computes it).
  SolverReport solve(const SourcesView<Real>& sources, const gravity::TargetSet<Real>& targets,
                     const AccelerationsView<Real>& out, const gravity::SolveOptions& options = {}) override;

  /// The cuts of the last solve: rank r walked the targets at places
  /// [cuts[r], cuts[r+1]) of the Morton order (for tests and benchmarks).
  const std::vector<std::int64_t>& last_cuts() const { return cuts_; }
  const gravity::ForceSolver<Real>& inner() const { return *inner_; }
  const Communicator& communicator() const { return comm_; }

 private:
  // The targets' places in Morton order; sets cuts_ (rank r: places [cuts_[r], cuts_[r+1]) of it).
  std::vector<std::int64_t> split(const SourcesView<Real>& sources, const gravity::TargetSet<Real>& targets);
  // Every rank's results into `out` at the targets' places, and the counters.
  SolverReport gather(const Accelerations<Real>& own, const SolverReport& inner, const std::vector<std::int64_t>& order,
                      const AccelerationsView<Real>& out, bool potential, bool per_target) const;

  std::unique_ptr<gravity::ForceSolver<Real>> inner_;
  Communicator comm_;
  // Per source (caller's order): the particle-cell plus particle-particle
  // interactions of its last evaluation, the weight of the next split.
  std::vector<std::uint32_t> work_;
  std::vector<std::int64_t> cuts_;
  // Every source's index in Morton order at the positions of a recent solve.
  static constexpr std::int64_t kRefreshOrder = 8;
  std::vector<std::int64_t> by_key_;
  std::int64_t solves_ = 0;
};

extern template class ReplicatedSolver<float>;
extern template class ReplicatedSolver<double>;

}  // namespace orrery::mpi
