#pragma once
// A rank's own part of the global octree (docs/adr/0012 decision 2): the
// whole subtree of each top leaf of its domain, whose particles all live on
// this rank. The octree's split rule decides a cell from the particles
// inside it, so a tree built over the rank's particles alone holds, below
// each top leaf's cell, the one-process tree's nodes with the same particles
// in the same order, hence the same moments bit for bit (the build's own
// code, bh::build_octree in the global cube, run once over the domain).
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/octree.hpp"
#include "orrery/mpi/global_tree.hpp"
#include "orrery/mpi/node_records.hpp"
#include "orrery/mpi/rank_particles.hpp"

namespace orrery::mpi {

/// The particles of one build of build_local_tree's (see there).
inline constexpr std::int32_t kBuildRunParticles = std::int32_t(1) << 21;

template <class Real>
struct LocalTree {
  NodeRecords<Real> nodes;          // the subtrees in pre-order, all complete
  std::vector<std::int32_t> first;  // first particle of each node in the rank's sorted particles
  std::vector<std::int32_t> next;   // first node after the subtree, in `nodes`
  std::vector<std::int32_t> roots;  // the node of each of the domain's top leaves, in Morton order
  std::vector<bh::NodeMoments> root_moments;  // their moments in double (top_moments.hpp combines them)
  Real cap2 = Real(0);  // the relative opening's cap of the parameters (bh::OctreeView::cap2)
};

/// How one run of the rank's sorted particles becomes a tree. `tree`:
/// bh::build_octree's tree in `cube` (null: the run's own bounding cube). Its
/// nodes are read, and its order where it has one (it must be the identity),
/// not its sorted sources, which may be left empty (the run is sorted by key:
/// they are the run). `keys` are the run's keys in `cube` (where it is
/// given), in order: a build may take them instead of computing and sorting
/// its own (bh::build_nodes_sorted, which returns neither sources nor order).
/// `moments`: the double moments of the given nodes of the tree `tree`
/// returned last (build_octree's `moments` at those nodes), asked for once
/// a run, before the next run's build: the subtrees' roots alone are read
/// (a GPU rank's device sends those, not every node's). The rank's backend
/// supplies both (LetWalk::build_run and run_moments: on the host, or a GPU
/// rank's device build, the same tree bit for bit).
template <class Real>
struct RunBuild {
  std::function<bh::Octree<Real>(const SourcesView<Real>& run, std::span<const std::uint64_t> keys,
                                 const bh::TreeParams& params, const bh::Cube* cube)>
      tree;
  std::function<std::vector<bh::NodeMoments>(std::span<const std::int32_t> nodes)> moments;
};

/// The subtrees of top leaves [leaf_begin, leaf_end) (top.leaves order) over
/// the rank's particles sorted by (key, index), `keys` their keys in `cube`.
/// Every particle of those leaves must be here: a count that differs from
/// the top tree's is a RuntimeFailure naming the leaf. The leaves are built
/// in runs of consecutive leaves of at most run_particles particles (a
/// leaf larger than that is a run of its own); the records do not depend on
/// the runs, nor on where `build` builds them. lap, if set, is called with
/// "plan" once the leaves' particles are found, then "build" after each
/// run's build and "records" after its records are planned, and "records"
/// once more after every record is filled (a caller's timer).
/// The tree is written into `out`, whatever it held: its storage is reused
/// (a rank builds nearly the same count of records every solve).
template <class Real>
void build_local_tree(LocalTree<Real>& out, const RankParticles<Real>& sorted, std::span<const std::uint64_t> keys,
                                 const TopTree& top, std::int64_t leaf_begin, std::int64_t leaf_end,
                                 const bh::Cube& cube, const bh::TreeParams& params,
                                 std::int32_t run_particles, const RunBuild<Real>& build,
                                 const std::function<void(const char*)>& lap = {});

}  // namespace orrery::mpi
