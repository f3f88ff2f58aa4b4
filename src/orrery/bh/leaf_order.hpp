#pragma once
// The walk order of every source by the Hilbert order of the tree's leaves
// (hilbert.hpp), on the host: the order leaf_order_gpu.hpp computes on the
// device, written plainly (its tests' reference, and host models of the
// coherent walk: bench/coherent_walk_model.cpp).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "orrery/bh/hilbert.hpp"
#include "orrery/bh/octree.hpp"

namespace orrery::bh {

/// The sorted index of each target in walk order: the leaves of `t` (host
/// pointers) by ascending cell_hilbert_key, each leaf's particles in sorted
/// order. A permutation of [0, t.num_particles).
template <class Real>
std::vector<std::int32_t> hilbert_leaf_order(const OctreeView<Real>& t) {
  std::vector<std::int32_t> leaves;
  for (std::int32_t n = 0; n < t.num_nodes; ++n)
    if (t.next[n] == n + 1) leaves.push_back(n);
  std::vector<std::uint64_t> key(static_cast<std::size_t>(t.num_nodes));
  for (std::int32_t n : leaves) key[static_cast<std::size_t>(n)] = cell_hilbert_key(t.key[n], t.level[n]);
  std::sort(leaves.begin(), leaves.end(), [&](std::int32_t a, std::int32_t b) {
    return key[static_cast<std::size_t>(a)] < key[static_cast<std::size_t>(b)];
  });
  std::vector<std::int32_t> order;
  order.reserve(static_cast<std::size_t>(t.num_particles));
  for (std::int32_t n : leaves)
    for (std::int32_t j = t.first[n]; j < t.first[n] + t.count[n]; ++j) order.push_back(j);
  return order;
}

}  // namespace orrery::bh
