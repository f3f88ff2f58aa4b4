#include "orrery/mpi/global_tree.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "orrery/bh/build_topology.hpp"
#include "orrery/mpi/key_order.hpp"
#include "orrery/mpi/parallel_copy.hpp"
#include "orrery/mpi/target_split.hpp"

namespace orrery::mpi {

TopTree build_top_tree(std::span<const std::uint64_t> keys, std::uint64_t bucket, const Communicator& comm) {
  std::vector<std::uint64_t> key, count;
  std::vector<std::int32_t> level;
  // The candidate cells of one level, in Morton order: the root, then the
  // eight children of every cell split at the level above.
  std::vector<std::uint64_t> cells = {0};
  for (int lv = 0; !cells.empty(); ++lv) {
    const std::size_t n = cells.size();
    std::vector<std::uint64_t> c(n), lo(n), hi(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto a = std::lower_bound(keys.begin(), keys.end(), cells[i]);
      const auto b = std::upper_bound(a, keys.end(), bh::cell_last_key(cells[i], lv));
      c[i] = static_cast<std::uint64_t>(b - a);
      lo[i] = a < b ? *a : std::numeric_limits<std::uint64_t>::max();
      hi[i] = a < b ? *(b - 1) : 0;
    }
    comm.sum(c);
    comm.min(lo);
    comm.max(hi);
    std::vector<std::uint64_t> below;
    for (std::size_t i = 0; i < n; ++i) {
      if (c[i] == 0 && lv > 0) continue;  // an empty cell is no node
      key.push_back(cells[i]);
      level.push_back(lv);
      count.push_back(c[i]);
      // The octree's own rule (build_topology.hpp), with bucket for the capacity.
      const bool split = c[i] > bucket && lo[i] != hi[i] && lv < bh::kMaxLevel;
      if (!split) continue;
      for (std::uint64_t child = 0; child < 8; ++child) below.push_back(cells[i] | child << bh::key_shift(lv + 1));
    }
    cells = std::move(below);
  }
  // Pre-order is the order of (start key, level) (DESIGN §3).
  std::vector<std::int32_t> order(key.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return key[a] != key[b] ? key[a] < key[b] : level[a] < level[b];
  });
  TopTree t;
  for (const std::int32_t i : order) {
    t.key.push_back(key[i]);
    t.level.push_back(level[i]);
    t.count.push_back(count[i]);
  }
  t.next = escape_indices(t.key, t.level);
  for (std::int32_t i = 0; i < t.size(); ++i)
    if (t.is_leaf(i)) t.leaves.push_back(i);
  return t;
}

std::uint64_t top_bucket(std::uint64_t n, int ranks, std::int32_t cap) {
  const std::uint64_t per_leaf = n / (64 * static_cast<std::uint64_t>(ranks));
  return std::max<std::uint64_t>(per_leaf, static_cast<std::uint64_t>(cap));
}

std::vector<std::int32_t> escape_indices(std::span<const std::uint64_t> key, std::span<const std::int32_t> level) {
  const auto n = static_cast<std::int32_t>(key.size());
  std::vector<std::int32_t> next(static_cast<std::size_t>(n));
  // Each node's escape is its own search: any thread count writes the same.
  // A galloping one from i + 1 (the answer of a binary search over the rest,
  // in steps about the log of the subtree's size rather than of the nodes').
#pragma omp parallel for schedule(static) if (n >= kParallelLoop)
  for (std::int32_t i = 0; i < n; ++i) {
    // The cell's end; the root's is 2^63, past every key (bit 63 is unused).
    const std::uint64_t end = key[i] + (std::uint64_t(1) << bh::key_shift(level[i]));
    next[i] = static_cast<std::int32_t>(
        gallop_partition_point(key.begin() + i + 1, key.end(), [end](std::uint64_t k) { return k < end; }) -
        key.begin());
  }
  return next;
}

std::vector<std::int64_t> domain_cuts(const TopTree& top, std::span<const std::uint64_t> work, int ranks) {
  std::vector<std::uint64_t> w(work.begin(), work.end());
  if (std::all_of(w.begin(), w.end(), [](std::uint64_t v) { return v == 0; }))
    for (std::size_t l = 0; l < w.size(); ++l) w[l] = top.count[top.leaves[l]];
  return balanced_cuts(std::span<const std::uint64_t>(w), ranks);
}

int owner_of(const TopTree& top, std::span<const std::int64_t> cuts, std::uint64_t key) {
  const auto leaf = std::upper_bound(top.leaves.begin(), top.leaves.end(), key,
                                     [&](std::uint64_t k, std::int32_t l) { return k < top.key[l]; }) -
                    top.leaves.begin() - 1;
  return static_cast<int>(std::upper_bound(cuts.begin(), cuts.end(), static_cast<std::int64_t>(leaf)) - cuts.begin()) -
         1;
}

std::vector<std::int64_t> domain_starts(const TopTree& top, std::span<const std::int64_t> cuts,
                                        std::span<const std::uint64_t> sorted_keys) {
  // owner_of(key) >= r exactly when key's top leaf is cuts[r] or later, that
  // is when key is at or past the start key of top leaf cuts[r].
  const auto leaves = static_cast<std::int64_t>(top.leaves.size());
  std::vector<std::int64_t> starts(cuts.size());
  for (std::size_t r = 0; r < cuts.size(); ++r)
    starts[r] = cuts[r] >= leaves ? static_cast<std::int64_t>(sorted_keys.size())
                                  : std::lower_bound(sorted_keys.begin(), sorted_keys.end(), top.key[top.leaves[cuts[r]]]) -
                                        sorted_keys.begin();
  return starts;
}

}  // namespace orrery::mpi
