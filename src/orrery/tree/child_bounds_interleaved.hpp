#pragma once
// child_bounds() of build_steps.hpp with its seven binary searches advanced
// together, for the GPU level kernel (octree_gpu.cu).
//
// Same results, by construction: each search runs exactly child_bounds'
// lower_bound steps on the same range and target, and a finished search (n =
// 0) no longer changes, so every bound is the unique lower bound of its
// child's first key in [first, first + count). octree_gpu_test.cu checks the
// equality against child_bounds on random and real trees.
//
// Why: on the GPU a level lasts as long as the chain of dependent loads of its
// largest node. child_bounds makes that chain about 7 log2(count) loads long
// (one search after the other); here each step issues seven independent
// loads, so the chain is about log2(count) + 1 long.
#include <cstdint>

#include "orrery/tree/morton.hpp"

namespace orrery::tree {

ORRERY_HDI void child_bounds_interleaved(const std::uint64_t* keys, std::int32_t first, std::int32_t count,
                                         std::uint64_t key, std::int32_t level, std::int32_t bounds[9]) {
  const int shift = key_shift(level + 1);
  std::int32_t lo[7], n[7];
  for (int c = 0; c < 7; ++c) {
    lo[c] = first;
    n[c] = count;
  }
  // A lower_bound step leaves at most floor(n / 2): floor(log2(count)) + 1
  // steps finish every search (a fixed trip count, the same for all seven).
  for (std::int32_t left = count; left > 0; left /= 2) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int c = 0; c < 7; ++c) {
      const std::uint64_t target = key | (std::uint64_t(c + 1) << shift);
      const std::int32_t half = n[c] / 2;
      const bool live = n[c] > 0;
      // A finished search reads keys[first] (in range: count >= 1) and keeps its state.
      const bool right = live & (keys[live ? lo[c] + half : first] < target);
      lo[c] = right ? lo[c] + half + 1 : lo[c];
      n[c] = right ? n[c] - half - 1 : half;
    }
  }
  bounds[0] = first;
  for (int c = 0; c < 7; ++c) bounds[c + 1] = lo[c];
  bounds[8] = first + count;
}

}  // namespace orrery::tree
