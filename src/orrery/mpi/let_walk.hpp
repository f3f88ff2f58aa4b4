#pragma once
// Step 5 of a distributed solve (docs/adr/0012): the walk of a rank's own
// particles in its assembled tree (own nodes, the top tree, the local
// essential trees received). The assembled tree is an ordinary bh::Octree,
// so any walk that computes bh::walk_target's sums computes one process's
// bits for each target: the CPU's bh::walk_targets (cpu_let_walk), or a GPU
// walk of a device copy (let_walk_gpu.hpp). The choice is the rank's backend,
// which also builds the rank's own subtrees (build_run, run_moments) and finds
// the decomposition's order of its particles (sort_particle_keys): on the
// host, or on the GPU rank's device, with the same results; the rest of the
// decomposition and the exchange do not change.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/octree.hpp"
#include "orrery/bh/tree_config.hpp"
#include "orrery/core/particles.hpp"
#include "orrery/core/solver_report.hpp"
#include "orrery/mpi/held_particles.hpp"
#include "orrery/mpi/local_tree.hpp"

namespace orrery::mpi {

template <class Real>
class LetWalk {
 public:
  virtual ~LetWalk() = default;
  /// "cpu", or e.g. "cuda/coherent32": the backend of the walk.
  virtual std::string backend() const = 0;
  /// Walks the tree's sorted sources `targets` (ascending, distinct): results and
  /// counters [targets.size()] in the targets' order; scale [targets.size()]
  /// (bh::relative_scale) or null (the geometric walk at theta). A target
  /// that opens a node its rank was not sent gets NaN (the poisoned
  /// sentinel of mpi::AssembledTree), on every backend. `held`: null where
  /// the tree holds its particles; else the tree's particle arrays are
  /// empty and these are its particles (only where places_particles()).
  virtual void walk(const bh::Octree<Real>& tree, const HeldParticles<Real>* held,
                    std::span<const std::int32_t> targets, bool potential, Real* ax, Real* ay, Real* az, Real* pot,
                    InteractionCounts* counts, const Real* scale) = 0;
  /// Whether walk() takes a tree whose particles are `held` where they lie
  /// (DistributedOptions::walk_places_particles): the GPU's places them on
  /// its device; the host places them for the CPU's (mpi::place_particles).
  virtual bool places_particles() const { return false; }
  /// Host seconds spent in each step of walk(), summed over every call so
  /// far, in a fixed order (the GPU's: "upload" of the tree and targets,
  /// "kernel", "download" of the results): the benchmark's split of the
  /// walk phase, a difference of two readings being the calls between.
  /// Empty where the walk is one step (the CPU's).
  virtual std::vector<std::pair<std::string, double>> step_seconds() const { return {}; }
  /// The tree of one run of the rank's sorted particles (mpi::RunBuild's
  /// `tree`, the builds of its own subtrees): bh::build_octree's tree in
  /// `cube` (null: the run's bounding cube). Here on the host, from the run's
  /// keys where the cube is given (bh::build_nodes_sorted: the decomposition
  /// computed and sorted them; the nodes alone); the GPU's builds on its
  /// device (bh::DeviceOctree, the same tree bit for bit) and copies back its
  /// nodes and order, not its sorted sources (the run is sorted by key, so
  /// they are the run: mpi::RunBuild).
  virtual bh::Octree<Real> build_run(const SourcesView<Real>& run, std::span<const std::uint64_t> keys,
                                     const bh::TreeParams& params, const bh::Cube* cube);
  /// The double moments of the given nodes of the last build_run's tree
  /// (mpi::RunBuild's `moments`): the host's build kept every node's; the
  /// GPU's gathers these on its device and copies back only them.
  virtual std::vector<bh::NodeMoments> run_moments(std::span<const std::int32_t> nodes);
  /// The most particles of one build_run where DistributedOptions leaves it
  /// to the backend: the host's builds stay near the sizes measured fast
  /// (kBuildRunParticles, local_tree.hpp); the GPU's build the whole domain
  /// at once (docs/performance/mpi.md, "One build a domain on GPU ranks").
  virtual std::int32_t build_run_particles() const;
  /// The decomposition's sort (sort_by_key_in_place's): the rank's particles
  /// by (key, index), mpi::sort_by_key_and_tie's contract and its one order.
  /// Here on the host; the GPU's sorts on its device where the keys are not
  /// in order already (docs/adr/0021, phase 3).
  virtual bool sort_particle_keys(std::vector<std::uint64_t>&& keys, std::span<const std::uint64_t> index,
                                  std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order);
  /// The decomposition's keys and order (mpi::ParticleOrder's contract) of
  /// the rank's particles `p` with indices `index` in `cube`. Here the keys
  /// are made on the host, then sort_particle_keys. The GPU's, asked to
  /// keep the positions (DistributedOptions::decomposition_on_device), makes
  /// the keys on its device from the particles it uploads and keeps their x,
  /// y, z, m there in the order, which its build_run over the sorted
  /// particles then reads (docs/adr/0021 phase 3) until particles_changed().
  virtual bool order_particles(const SourcesView<Real>& p, std::span<const std::uint64_t> index, const bh::Cube& cube,
                               std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order,
                               const std::function<void(const char*)>& lap, bool keep_positions);
  /// The rank's particles changed since order_particles beyond their
  /// permutation into its order (a migration moved some): nothing the
  /// backend kept of them may be read again.
  virtual void particles_changed() {}

 private:
  std::vector<bh::NodeMoments> run_moments_;  // every node's, of the host's last build_run
};

/// The CPU walk (bh::walk_targets with the tree's configuration).
template <class Real>
std::unique_ptr<LetWalk<Real>> cpu_let_walk(const bh::TreeSolverConfig& config);

}  // namespace orrery::mpi
