#pragma once
// The nodes a rank holds, put in global pre-order by a merge (docs/adr/0012
// decision 7). Pre-order is the order of (start key, level). Each rank's
// nodes below the top leaves lie in its domain, a run of the Morton curve,
// and arrive in pre-order (its own subtrees, built top leaf after top leaf,
// and what write_let sends, top leaf after top leaf, each in pre-order); the
// domains follow in rank order. So the ranks' lists, one after the other in
// rank order, are already the pre-order of every node below the top leaves,
// and only the top tree's internal nodes (a few per rank) go in between.
// What was a sort of every held node is a merge of one short list into one
// ordered sequence: O(held nodes) copies in runs, O(top nodes x log) searches.
#include <cstdint>
#include <span>
#include <vector>

#include "orrery/mpi/node_records.hpp"

namespace orrery::mpi {

/// Records [first, first + count) of `from` (from rank `origin`) are the
/// assembled nodes [at, at + count).
template <class Real>
struct NodeRun {
  const NodeRecords<Real>* from = nullptr;
  std::int64_t first = 0, count = 0, at = 0;
  int origin = 0;
};

/// The held nodes in global pre-order, as runs of consecutive records: the
/// complete nodes of `top` (the top tree's internal nodes, held by every
/// rank: origin `rank`) merged into lists[0], lists[1], ... (rank r's nodes,
/// origin r), which must be in pre-order one after the other. A node held
/// twice is a RuntimeFailure naming it and the two ranks; so is a list out
/// of pre-order (naming the rank and the two nodes): neither can come from
/// write_let and build_local_tree, which this checks in O(held nodes).
template <class Real>
std::vector<NodeRun<Real>> preorder_runs(const NodeRecords<Real>& top, std::span<const NodeRecords<Real>* const> lists,
                                         int rank);

/// The records of `runs` (preorder_runs's) as one list, with the rank each
/// came from; the rank's threads copy the runs in pieces.
template <class Real>
void copy_runs(std::span<const NodeRun<Real>> runs, NodeRecords<Real>& out, std::vector<int>& origin, bool rel,
               bool with_quad);

}  // namespace orrery::mpi
