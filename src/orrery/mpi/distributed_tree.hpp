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
//      particles in the assembled tree (let_walk.hpp: the CPU solver's own
//      walk, or the GPU's on a device copy of the tree).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "orrery/bh/tree_config.hpp"
#include "orrery/core/solver_report.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/mpi/byte_buffer.hpp"
#include "orrery/mpi/communicator.hpp"
#include "orrery/mpi/let.hpp"
#include "orrery/mpi/let_walk.hpp"
#include "orrery/mpi/rank_particles.hpp"

namespace orrery::mpi {

/// For tests: let_shrink < 1 selects the local essential trees for boxes
/// shrunk by that factor about their centres (too aggressive on purpose).
/// max_held_particles > 0: the most particles a rank may hold in its walk's
/// tree (its own and those received), a memory budget; a solve past it on
/// any rank stops every rank with an error naming the rank and the counts.
/// budget_key: what the limit is called in its error (the configuration key
/// that set it).
/// build_run_particles: the most particles of one build of the rank's
/// subtrees (build_local_tree's runs of top leaves; a top leaf larger than
/// it is one run); 0: the backend's (LetWalk::build_run_particles); tests
/// lower it to build in many runs.
struct DistributedOptions {
  double let_shrink = 1.0;
  std::int64_t max_held_particles = 0;
  std::string budget_key = "the limit";
  std::int32_t build_run_particles = 0;
  /// The assembly leaves the held particles where they lie (the rank's
  /// sorted arrays, the received bytes) and the walk places them: a GPU
  /// rank's on its device, its own particles copied there from its
  /// subtrees' build rather than through the host (docs/adr/0021 phase 1;
  /// at 16M on one GPU rank of an H100 host the step 0.407 -> 0.357 s);
  /// a CPU rank's walk has the host place them after the assembly, the same
  /// tree. Off: the host places them in the assembly. The same results.
  bool walk_places_particles = true;
  /// The rank's backend makes the decomposition's keys where it sorts them
  /// and keeps the sorted positions and masses there for its subtree build:
  /// a GPU rank's device, which then uploads the particles once a step
  /// rather than their keys and indices for the sort and the sorted
  /// particles for the build (docs/adr/0021 phase 3; LetWalk::order_particles).
  /// Off: the keys made on the host. The same results. Unset (the
  /// default): on where one rank holds every particle, whose build always
  /// reads the kept copy (nothing migrates); off otherwise. Measured at 16M
  /// on an H100 host: one rank's step 0.357 -> 0.345 s, four ranks' sharing
  /// the GPU 0.48 -> 0.52 s (their migration changes the particles every
  /// step, so the build uploads them again).
  std::optional<bool> decomposition_on_device;
};

/// The bytes one part of a solve moved on this rank (the benchmark's).
struct PartTraffic {
  std::string part;
  Traffic bytes;
};

template <class Real>
class DistributedTree {
 public:
  /// `walk` walks the rank's targets in its assembled tree (null: the CPU's,
  /// cpu_let_walk(config)); it must compute walk_target's sums with `config`.
  DistributedTree(const bh::TreeSolverConfig& config, Communicator comm, DistributedOptions options = {},
                  std::shared_ptr<LetWalk<Real>> walk = nullptr);

  /// Moves `particles` (this rank's, any of them) to their domains, sorted
  /// by (key, index), and writes every particle's acceleration (potential with
  /// options.potential) into particles.a and its interactions into
  /// particles.work. Relative opening: options.previous_accelerations reads
  /// particles.a as a_old; otherwise a geometric walk first supplies it (as
  /// gravity::TreeSolver bootstraps). report.total is the sum over every
  /// rank; report.per_target (with options.per_target_counts) is this
  /// rank's particles', in their new order. Collective. A solve that throws
  /// (every rank stops: a missing node, a budget passed) leaves `particles`
  /// valid but unspecified: sorted, or emptied by the migration.
  /// report.phase_seconds: "decomposition", "migration", "tree", then per
  /// evaluation "exchange" and "walk"; report.piece_seconds splits
  /// "decomposition" into "decomposition/cube" (the particle count and the
  /// key cube's reductions), "decomposition/keys", "decomposition/order" and
  /// "decomposition/permute" (the keys, the order by them and the particles
  /// put in it: sort_by_key_in_place's; where a GPU rank makes the keys on
  /// its device, "keys" is the particles' upload and "order" the device's
  /// keys, sort and downloads), "decomposition/top" (the top tree
  /// and the domains' cuts) and
  /// "decomposition/owners" (where each domain starts among the sorted
  /// particles, a binary search a rank); "migration" into "migration/pack",
  /// "migration/alltoall" and "migration/rebuild" (migrate's); "tree" into
  /// "tree/build" (the backend's builds of the runs, a GPU rank's copies
  /// to and from its device in them), "tree/records" (the subtrees' records
  /// from them), "tree/plan" (each top leaf's particles found and checked)
  /// and "tree/top"
  /// (the top leaves' moments gathered, the top tree's records); and each
  /// "exchange" into "exchange/domains" (the target boxes and their
  /// allgather), "exchange/selection" (write_let for every other rank),
  /// "exchange/alltoall" and "exchange/assembly" (with the budget's check;
  /// with walk_places_particles, the host's placement of a CPU rank's
  /// particles after it).
  /// keep_accelerations: particles.a stays as it was (read as a_old), only
  /// the potentials are new: the potential-only solve of a step whose
  /// accelerations the run already integrates with (integrate::Simulation's).
  /// active_only (block time steps): every particle is a source, but only
  /// those whose particles.active is set are walked as targets (their
  /// acceleration, potential and work written), the others keep theirs;
  /// each target's result is one process's TreeSolver subset solve's
  /// (gravity::TargetSet), since a target's sums do not depend on which
  /// others are walked, and the relative opening's floor is the exact
  /// maximum of every particle's |a_old| (SolveOptions::
  /// largest_previous_acceleration of that solve). The local essential
  /// trees are chosen for the active targets' boxes alone. Needs
  /// options.previous_accelerations with the relative opening.
  /// report.per_target then holds the targets' counts, in their order.
  SolverReport solve(RankParticles<Real>& particles, const gravity::SolveOptions& options = {},
                     bool keep_accelerations = false, bool active_only = false);

  /// The walk's tree of the last solve on this rank (tests): its nodes, and
  /// its particles where `placed` (a CPU rank's; a GPU rank's walk placed
  /// them on its device, and `held` then points at storage of that solve).
  const AssembledTree<Real>& last_tree() const { return tree_; }
  /// The bytes each part of the last solve moved on this rank, in order:
  /// "decomposition" (the cube's and the top tree's reductions, the leaves'
  /// work), "migration", "tree" (the top leaves' moments), then per
  /// evaluation "domains" (the target boxes' allgather), "let" (the local
  /// essential trees' all-to-all) and "walk" (the budget's and the
  /// missing-node checks), and "totals" (the counters' sums); the relative
  /// opening's bootstrap evaluation adds a second domains, let and walk.
  const std::vector<PartTraffic>& last_traffic() const { return traffic_; }
  /// The walk's backend ("cpu", "cuda/coherent32", ...).
  std::string walk_backend() const { return walk_->backend(); }

 private:
  void check_budget(std::int64_t held, std::int64_t own) const;

  bh::TreeSolverConfig config_;
  Communicator comm_;
  DistributedOptions options_;
  std::shared_ptr<LetWalk<Real>> walk_;
  // The rank's own subtrees, rebuilt every solve into the last one's storage.
  LocalTree<Real> own_;
  AssembledTree<Real> tree_;
  std::vector<PartTraffic> traffic_;
  // The receive buffer of a solve's all-to-alls (migration's, then each
  // evaluation's LET), one after the other: each is read into particles or
  // the tree before the next. Before them, the decomposition's sort
  // permutes the particles through it (permute_in_place's scratch). Kept
  // across solves, it stays as large as the largest, so a step's exchanges
  // receive into pages already touched.
  ByteBuffer received_;
  // The walk's results, [targets] in their order, kept across solves: every
  // element is written each solve, so the storage is reused with no zero
  // fill (28 bytes a target); the accelerations and potentials are swapped
  // into the particles, whose old arrays come back here.
  struct Results {
    std::vector<Real> ax, ay, az, pot;
    std::vector<InteractionCounts> counts;
  } results_;
  // The decomposition's sort gathers each Real field of the particles into
  // it and swaps the two (permute_in_place): a rank's count of Real, kept.
  std::vector<Real> spare_;
  // The send bytes of each evaluation's LET, cleared and rewritten: kept
  // across solves, its capacity is the largest so far, so the writes grow it
  // without a reallocation's copy and fresh pages.
  std::vector<std::byte> send_;
};

}  // namespace orrery::mpi
