#pragma once
// The moments of the nodes that straddle ranks (docs/adr/0012 decision 2):
// the top tree's internal nodes. Every rank gathers the double moments of
// every top leaf from its owner (bytes: no arithmetic on the way) and
// combines each internal node from its children in child order, bottom up,
// with the build's own bh::combine_moments: the operands and the order of
// one process's build, so the bits of one process's tree, on every rank.
#include <vector>

#include "orrery/bh/build_steps.hpp"
#include "orrery/mpi/communicator.hpp"
#include "orrery/mpi/global_tree.hpp"
#include "orrery/mpi/node_records.hpp"

namespace orrery::mpi {

/// Every top leaf's moments in top.leaves order, from each rank's own
/// (`mine`, its domain's leaves in order; domains are contiguous in rank order).
std::vector<bh::NodeMoments> gather_leaf_moments(const std::vector<bh::NodeMoments>& mine, const TopTree& top,
                                                 const Communicator& comm);

/// Every top node rounded as the one-process build rounds it, in the top
/// tree's pre-order; complete: the internal nodes (their children are top nodes).
template <class Real>
NodeRecords<Real> top_node_records(const TopTree& top, const std::vector<bh::NodeMoments>& leaf_moments,
                                   const bh::Cube& cube, const bh::TreeParams& params);

}  // namespace orrery::mpi
