#pragma once
// The tree's topology read off the sorted keys directly, per particle and per
// node, with no level-by-level pass: the one topology algorithm of both
// builds (octree_build.cpp in OpenMP loops, octree_gpu.cu in kernels;
// docs/adr/0009, 0010). build_topology_test.cpp checks it against a
// reference written from DESIGN §3's definition.
//
// Why it gives DESIGN §3's octree. Let shared(a, b) be the number of
// leading levels (3-bit digits) two keys share, 0..21, and c_j =
// shared(key[j-1], key[j]) (c_0 = -1: particle 0 starts every cell). Particle
// j is the first of the level-L cell containing it iff c_j < L. The octree
// splits a node iff it holds more than cap particles, of more than one key,
// and is above the deepest level; each of these only weakens from a cell to
// its sub-cells, so the level-L cell containing j is a node iff its parent
// cell is "splittable" (and the root always is). Hence the nodes whose first
// particle is j are the levels c_j+1 .. top_j, a contiguous run:
//   - the first, (j, c_j+1), exists iff the level-c_j cell containing j (it
//     holds j-1 too, so not one key) holds more than cap particles;
//   - (j, L) for L > c_j+1 exists iff the level-(L-1) cell STARTING at j is
//     splittable: key[j+cap] in it (more than cap particles), a key other than
//     key[j] in it, L-1 <= 20. With m_j = shared(key[j], key[j+cap]) that is
//     L-1 <= min(m_j, 20) when m_j < 21 (the first other key comes no later
//     than j+cap, so it shares at least m_j levels), else L-1 <= min(shared
//     with the first other key after j, 20).
//   - a particle with c_j == 21 (a repeat of the previous key) starts nothing.
// Pre-order (DFS, children in child order) is the order of (first particle,
// level): the subtree of a node is exactly the nodes whose first particle
// lies in its cell, so with P the exclusive scan of the per-particle node
// counts, node (j, L) has index P[j] + L - (c_j + 1) and next = P[end], end
// being the first particle after its cell.
#include <bit>
#include <cstdint>

#include "orrery/bh/morton.hpp"

namespace orrery::bh {

/// Number of leading levels keys a and b share: 0..kMaxLevel (kMaxLevel when
/// a == b). Bit 63 is unused (0 in both), so the xor has at least one leading zero.
ORRERY_HDI int shared_levels(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  const int zeros = __clzll(static_cast<long long>(a ^ b));
#else
  const int zeros = std::countl_zero(a ^ b);
#endif
  return (zeros - 1) / 3;
}

/// c_j: the levels sorted particle j shares with particle j-1; -1 for j = 0.
ORRERY_HDI int shared_with_previous(const std::uint64_t* keys, std::int32_t j) {
  return j == 0 ? -1 : shared_levels(keys[j - 1], keys[j]);
}

/// Start key of the level-`level` cell holding `key`.
ORRERY_HDI std::uint64_t cell_start_key(std::uint64_t key, int level) {
  const int shift = key_shift(level);  // at most 63: a defined shift
  return key >> shift << shift;
}

/// Last key of the level-`level` cell holding `key`.
ORRERY_HDI std::uint64_t cell_last_key(std::uint64_t key, int level) {
  return key | ((std::uint64_t(1) << key_shift(level)) - 1);
}

/// The first index k in (j, limit) with keys[k] > last, or limit if none;
/// keys[j] <= last. Galloping, then bisection: about 2 log2(k - j) dependent
/// loads, so the small cells (most of them) finish in a few steps. The loops
/// are searches: their trip counts are the data's.
ORRERY_HDI std::int64_t first_key_after(const std::uint64_t* keys, std::int64_t j, std::int64_t limit,
                                        std::uint64_t last) {
  std::int64_t lo = j, step = 1;  // keys[lo] <= last
  while (lo + step < limit && keys[lo + step] <= last) {
    lo += step;
    step *= 2;
  }
  std::int64_t hi = lo + step < limit ? lo + step : limit;  // keys[hi] > last, or hi == limit
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    const bool inside = keys[mid] <= last;
    lo = inside ? mid : lo;
    hi = inside ? hi : mid;
  }
  return hi;
}

/// The nodes whose first particle is sorted particle j: levels first_level ..
/// first_level + count - 1 (count 0: none).
struct NodesAt {
  int first_level;
  int count;
};

/// The nodes starting at particle j of the n sorted keys, leaf capacity cap
/// (see the header comment for why). O(log cap) loads per particle, plus
/// O(log run) for a run of more than cap equal keys.
ORRERY_HDI NodesAt nodes_at(const std::uint64_t* keys, std::int32_t n, std::int32_t j, std::int32_t cap) {
  const int c = shared_with_previous(keys, j);
  if (c == kMaxLevel) return {c + 1, 0};  // a repeat of the previous key starts no cell
  const std::int64_t window_end = std::int64_t(j) + cap;  // j .. j + cap: cap + 1 particles
  int m = window_end < n ? shared_levels(keys[j], keys[window_end]) : -1;
  // Does the level-c cell holding j (and j-1) hold more than cap particles?
  // Yes if j .. j+cap lie in it (m >= c). Otherwise find its end (before
  // window_end): a cap+1 window ending there lies in the cell iff its first
  // particle does. Only then is there a search (often m decides alone).
  if (j > 0 && m < c) {
    const std::int64_t end = first_key_after(keys, j, window_end < n ? window_end : n, cell_last_key(keys[j], c));
    const std::int64_t s = end - 1 - cap;
    if (s < 0 || shared_levels(keys[s], keys[j]) < c) return {c + 1, 0};  // the parent is a leaf
  }
  if (m == kMaxLevel) {  // j .. j+cap are one key: the first other key sets how deep cells split
    const std::int64_t r = first_key_after(keys, window_end, n, keys[j]);
    m = r < n ? shared_levels(keys[j], keys[r]) : -1;
  }
  // m <= 20 now (levels shared with a different key): the deepest split
  // cell starting at j, so no level-21 cell is ever split.
  const int top = m + 1 > c + 1 ? m + 1 : c + 1;
  return {c + 1, top - c};
}

/// The topology arrays of a tree in pre-order (OctreeView's first five), writable.
struct TopologyArrays {
  std::uint64_t* key;
  std::int32_t *level, *first, *count, *next;
};

/// Writes key, level and first of the nodes whose first particle is j.
/// start[j] = P_j (the exclusive scan of nodes_at(...).count over the
/// particles, n + 1 entries): they are nodes start[j] .. start[j+1] - 1.
ORRERY_HDI void write_nodes_at(const std::uint64_t* keys, const std::int32_t* start, std::int32_t j,
                               const TopologyArrays& out) {
  const int first_level = shared_with_previous(keys, j) + 1;
  for (std::int32_t i = start[j]; i < start[j + 1]; ++i) {
    const int level = first_level + (i - start[j]);
    out.key[i] = cell_start_key(keys[j], level);
    out.level[i] = level;
    out.first[i] = j;
  }
}

/// Writes count and next of node i (its first and level written): its cell
/// ends at the first particle past its last key, and the node after its
/// subtree is the first node of that particle (start[n] = the node count).
ORRERY_HDI void write_extent(const std::uint64_t* keys, std::int32_t n, const std::int32_t* start, std::int32_t i,
                             const TopologyArrays& out) {
  const std::int32_t j = out.first[i];
  const auto end = static_cast<std::int32_t>(first_key_after(keys, j, n, cell_last_key(keys[j], out.level[i])));
  out.count[i] = end - j;
  out.next[i] = start[end];
}

/// The children of node p in child order: p + 1, then each child's next,
/// until next[p] (none for a leaf, next[p] == p + 1). Returns their number (<= 8).
ORRERY_HDI int children_of(const std::int32_t* next, std::int32_t p, std::int32_t children[8]) {
  int k = 0;
  for (std::int32_t c = p + 1; c < next[p]; c = next[c]) children[k++] = c;
  return k;
}

}  // namespace orrery::bh
