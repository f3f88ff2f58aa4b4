#pragma once
// The Barnes-Hut solve over a tree distributed across the ranks, with local
// essential trees (docs/adr/0012): each rank holds O(N/K) particles and the
// nodes its targets' walks visit, and every target's acceleration,
// potential and counters are bit-identical to one process's TreeSolver (and
// so to any K). One solve:
//   1. the key cube from exact minima and maxima over the ranks;
//   2. the top tree from all-reduced integer counts (global_tree.hpp) and
//      the domains on its leaves, balanced by the previous solve's exact work;
//   3. migration of every particle to its domain (migrate.hpp);
//   4. the subtrees of a rank's top leaves (local_tree.hpp) and the
//      straddling nodes' moments combined as one process does (top_moments.hpp);
//   5. the local essential trees (let.hpp) and the walk of the rank's own
//      particles in the assembled tree: bh::walk_targets, the CPU solver's
//      own walk (the seam where a rank's GPU walk would go).
#include <cstdint>
#include <string>
#include <vector>

#include "orrery/bh/tree_config.hpp"
#include "orrery/core/solver_report.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/mpi/communicator.hpp"
#include "orrery/mpi/let.hpp"
#include "orrery/mpi/rank_particles.hpp"

namespace orrery::mpi {

/// For tests: let_shrink < 1 selects the local essential trees for boxes
/// shrunk by that factor about their centres (too aggressive on purpose).
/// max_held_particles > 0: the most particles a rank may hold in its walk's
/// tree (its own and those received), a memory budget; a solve past it on
/// any rank stops every rank with an error naming the rank and the counts.
/// budget_key: what the limit is called in its error (the configuration key
/// that set it).
struct DistributedOptions {
  double let_shrink = 1.0;
  std::int64_t max_held_particles = 0;
  std::string budget_key = "the limit";
};

template <class Real>
class DistributedTree {
 public:
  DistributedTree(const bh::TreeSolverConfig& config, Communicator comm, DistributedOptions options = {});

  /// Moves `particles` (this rank's, any of them) to their domains, sorted
  /// by (key, index), and writes every particle's acceleration (potential with
  /// options.potential) into particles.a and its interactions into
  /// particles.work. Relative opening: options.previous_accelerations reads
  /// particles.a as a_old; otherwise a geometric walk first supplies it (as
  /// gravity::TreeSolver bootstraps). report.total is the sum over every
  /// rank; report.per_target (with options.per_target_counts) is this
  /// rank's particles', in their new order. Collective.
  /// keep_accelerations: particles.a stays as it was (read as a_old), only
  /// the potentials are new: the potential-only solve of a step whose
  /// accelerations the run already integrates with (integrate::Simulation's).
  SolverReport solve(RankParticles<Real>& particles, const gravity::SolveOptions& options = {},
                     bool keep_accelerations = false);

  /// The walk's tree of the last solve on this rank (tests).
  const AssembledTree<Real>& last_tree() const { return tree_; }
  /// Bytes this rank received in the last solve's local essential trees.
  std::int64_t last_let_bytes() const { return let_bytes_; }

 private:
  void check_budget(std::int64_t held, std::int64_t own) const;

  bh::TreeSolverConfig config_;
  Communicator comm_;
  DistributedOptions options_;
  AssembledTree<Real> tree_;
  std::int64_t let_bytes_ = 0;
};

}  // namespace orrery::mpi
