#pragma once
// The Hilbert curve over the key grid (morton.hpp): an order of cells in
// which consecutive cells share a face, unlike the Morton curve, whose
// consecutive cells can lie across the cube. The GPU walk can take its targets
// in the Hilbert order of their leaves (leaf_order_gpu.hpp), so that the 32
// targets of a warp lie close together and the union of their walks is small
// (docs/performance/gpu_tree.md, "Warps in Hilbert order"). Integer
// arithmetic only: host and device compute the same indices.
//
// Skilling's transform ("Programming the Hilbert curve", AIP Conf. Proc. 707,
// 2004): the coordinates are turned in place, top bit first, into the
// "transposed" index, whose bits interleaved (x's first in each triple) are
// the Hilbert index. The transform of bit b depends only on the bits above
// it, so a cell's index at level L is the first 3L bits of the index of any
// grid point inside it: the curve visits each cell's descendants
// consecutively, and cells of different levels order as the points in them.
#include <cstdint>

#include "orrery/bh/morton.hpp"

namespace orrery::bh {

/// The Hilbert index of grid point (ix, iy, iz) of a grid of 2^bits cells per
/// axis (1 <= bits <= kMaxLevel; coordinates below 2^bits): a bijection onto
/// [0, 8^bits) in which consecutive indices are face neighbours.
ORRERY_HDI std::uint64_t hilbert_index(std::uint32_t ix, std::uint32_t iy, std::uint32_t iz, int bits) {
  std::uint32_t x[3] = {ix, iy, iz};
  const std::uint32_t top = 1u << (bits - 1);
  for (std::uint32_t q = top; q > 1; q >>= 1) {  // undo the excess work
    const std::uint32_t p = q - 1;
    for (int i = 0; i < 3; ++i) {
      if (x[i] & q) {
        x[0] ^= p;  // invert
      } else {
        const std::uint32_t t = (x[0] ^ x[i]) & p;  // exchange
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  x[1] ^= x[0];  // Gray encode
  x[2] ^= x[1];
  std::uint32_t t = 0;
  for (std::uint32_t q = top; q > 1; q >>= 1)
    if (x[2] & q) t ^= q - 1;
  return morton_key(x[0] ^ t, x[1] ^ t, x[2] ^ t);
}

/// The Hilbert index of the finest-level grid point where the curve enters
/// the cell of Morton key `key` at `level` (the cell's index at its level,
/// shifted to kMaxLevel): disjoint cells of any levels sort by it as the
/// curve visits them.
ORRERY_HDI std::uint64_t cell_hilbert_key(std::uint64_t key, int level) {
  if (level == 0) return 0;
  const int shift = kMaxLevel - level;
  const std::uint64_t h =
      hilbert_index(compact_bits(key >> 2) >> shift, compact_bits(key >> 1) >> shift, compact_bits(key) >> shift, level);
  return h << (3 * shift);
}

}  // namespace orrery::bh
