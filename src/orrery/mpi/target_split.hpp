#pragma once
// Which targets each rank walks (docs/adr/0013): the targets in Morton order
// (so a rank's share is compact in space and its walks alike), cut into K
// contiguous ranges where the prefix sum of each target's work crosses r/K
// of the total. The work is the previous evaluation's exact integer count of
// interactions (particle-cell + particle-particle), so the cut is a pure
// function of the particles and K: every rank computes the same one, and
// none needs to be told it. Plain functions, no MPI: tested without ranks.
#include <cstdint>
#include <span>
#include <vector>

#include "orrery/core/particles.hpp"

namespace orrery::mpi {

/// The sources' indices sorted by the Morton key of their position in the
/// sources' bounding cube, ties by index: the tree's order (bh/morton.hpp),
/// the same on every rank and thread count.
template <class Real>
std::vector<std::int64_t> morton_order(const SourcesView<Real>& sources);

/// The places k of a subset (subset[k] a source index in [0, by_key.size()),
/// checked by the caller) in the order `by_key` lists their sources. O(N).
/// InputError for a source listed twice.
std::vector<std::int64_t> subset_in_order(std::span<const std::int64_t> by_key, std::span<const std::int64_t> subset);

/// cuts[0] = 0 <= cuts[1] <= ... <= cuts[parts] = work.size(): range r is
/// [cuts[r], cuts[r+1]), the first index k at which the work of the items
/// before k reaches r/parts of the total (128-bit integer arithmetic, exact).
/// All-zero work splits by count. parts >= 1.
std::vector<std::int64_t> balanced_cuts(std::span<const std::uint32_t> work, int parts);
/// The same for 64-bit work (the summed work of a distributed tree's top leaves).
std::vector<std::int64_t> balanced_cuts(std::span<const std::uint64_t> work, int parts);

}  // namespace orrery::mpi
