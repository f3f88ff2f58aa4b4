#pragma once
// The top of the global octree, from integer counts all-reduced over the
// ranks (cornerstone's method; docs/adr/0012 decision 1). A cell of it is
// split when its global count exceeds `bucket` and it is splittable by the
// octree's own rule (more than one key, above the deepest level): since
// bucket >= the leaf capacity, every cell it splits the octree splits too,
// so its nodes are nodes of the one-process octree (DESIGN §3) and its
// leaves ("top leaves") cut that octree into whole subtrees. What it
// contains depends only on every particle's key and on bucket, never on
// which rank holds which particle: the counts are sums of integers and the
// key ranges minima and maxima, all exact.
#include <cstdint>
#include <span>
#include <vector>

#include "orrery/mpi/communicator.hpp"

namespace orrery::mpi {

/// The top tree's nodes in pre-order (sorted by (key, level)).
struct TopTree {
  std::vector<std::uint64_t> key;   // start key of the cell
  std::vector<std::int32_t> level;
  std::vector<std::uint64_t> count; // particles of every rank in the cell
  std::vector<std::int32_t> next;   // first node after the subtree
  std::vector<std::int32_t> leaves; // the nodes that are leaves, in Morton order

  std::int32_t size() const { return static_cast<std::int32_t>(key.size()); }
  bool is_leaf(std::int32_t i) const { return next[i] == i + 1; }
};

/// The top tree over every rank's particles, whose keys this rank holds
/// sorted in `keys`. Collective: every rank calls it with the same bucket and
/// gets the same tree. One all-reduce of counts, minima and maxima per level.
TopTree build_top_tree(std::span<const std::uint64_t> keys, std::uint64_t bucket, const Communicator& comm);

/// The top tree's bucket for N particles on K ranks and leaf capacity cap:
/// about 64 top leaves per rank (so that a rank's domain can be balanced to
/// a fraction of a leaf's work), never below cap.
std::uint64_t top_bucket(std::uint64_t n, int ranks, std::int32_t cap);

/// next[] of nodes in pre-order given their keys and levels: the first node
/// whose start key is at or past the end of the cell (DESIGN §3's layout check).
std::vector<std::int32_t> escape_indices(std::span<const std::uint64_t> key, std::span<const std::int32_t> level);

/// The cut of the top leaves into K domains along the Morton curve: domain r
/// is leaves [cuts[r], cuts[r + 1]), balanced by `work` per leaf (the
/// previous evaluation's exact interaction counts; by particle count when
/// every work is 0). A pure function of its arguments.
std::vector<std::int64_t> domain_cuts(const TopTree& top, std::span<const std::uint64_t> work, int ranks);

/// The rank whose domain holds `key` (cuts from domain_cuts).
int owner_of(const TopTree& top, std::span<const std::int64_t> cuts, std::uint64_t key);

/// Where each domain starts in keys sorted ascending: the particles whose
/// owner_of is r are [starts[r], starts[r + 1]) (K + 1 values, starts[K] =
/// keys.size()). One binary search a rank in place of owner_of a particle.
std::vector<std::int64_t> domain_starts(const TopTree& top, std::span<const std::int64_t> cuts,
                                        std::span<const std::uint64_t> sorted_keys);

}  // namespace orrery::mpi
