#pragma once
// Launch geometry of the fast direct kernel (plain host code, testable on the CPU).
//
// A block of Tile threads owns Tile * K targets and sums a slice of the
// source tiles; the source range is split into S slices when the targets
// alone give too few blocks, or a number of blocks that does not divide
// evenly among the multiprocessors (the last wave of blocks would leave
// some idle: at N = 262144 one slice loses 3 %). The partial fields of the
// slices are summed in slice order, so the result is deterministic.
// Measured on the H200: docs/performance/gpu_direct.md.
#include <algorithm>
#include <array>
#include <cstdint>

namespace orrery::gravity::gpu {

struct DirectFastConfig {
  int targets_per_thread;  // K
  int tile;                // threads per block = sources per shared-memory tile
  friend constexpr bool operator==(const DirectFastConfig&, const DirectFastConfig&) = default;
};

/// The configurations compiled into the library, per precision (double needs
/// twice the registers per target).
template <class Real>
inline constexpr std::array<DirectFastConfig, 3> kFastConfigs =
    sizeof(Real) == 4 ? std::array<DirectFastConfig, 3>{{{4, 256}, {2, 256}, {1, 128}}}
                      : std::array<DirectFastConfig, 3>{{{2, 128}, {1, 128}, {1, 64}}};

inline constexpr int kMaxSlices = 64;

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Time of one launch in units of one block summing one tile: every
/// multiprocessor runs ceil(blocks * slices / SMs) blocks one after another
/// (it is issue-bound: co-resident blocks share it), each of per_slice tiles
/// plus a quarter tile of fixed cost (loading targets, writing results);
/// slower when it holds fewer than 512 threads (16 warps) to hide latency.
constexpr double launch_cost(std::int64_t blocks, std::int64_t tiles, std::int64_t per_slice, int multiprocessors,
                             int tile) {
  const std::int64_t slices = ceil_div(tiles, per_slice);
  const std::int64_t per_sm = ceil_div(blocks * slices, multiprocessors);
  const double busy = std::min(1.0, static_cast<double>(per_sm * tile) / 512.0);
  return static_cast<double>(per_sm) * (static_cast<double>(per_slice) + 0.25) / busy;
}

/// Tiles per slice: the cheapest by launch_cost with at most kMaxSlices
/// slices, preferring fewer slices among costs within 0.5 % of the best.
constexpr std::int64_t choose_tiles_per_slice(std::int64_t blocks, std::int64_t tiles, int multiprocessors,
                                              int tile) {
  double best = launch_cost(blocks, tiles, tiles, multiprocessors, tile);
  for (std::int64_t p = 1; p < tiles; ++p) {
    if (ceil_div(tiles, p) <= kMaxSlices) best = std::min(best, launch_cost(blocks, tiles, p, multiprocessors, tile));
  }
  for (std::int64_t p = tiles; p >= 1; --p) {  // fewest slices first
    if (ceil_div(tiles, p) > kMaxSlices) break;
    if (launch_cost(blocks, tiles, p, multiprocessors, tile) <= 1.005 * best) return p;
  }
  return tiles;
}

struct DirectFastPlan {
  DirectFastConfig config;
  std::int64_t blocks;     // target blocks
  std::int64_t tiles;      // source tiles
  std::int64_t per_slice;  // tiles per slice
  std::int64_t slices() const { return ceil_div(tiles, per_slice); }
};

constexpr DirectFastPlan plan_for(const DirectFastConfig& c, std::int64_t n, int multiprocessors) {
  const std::int64_t blocks = ceil_div(n, std::int64_t(c.tile) * c.targets_per_thread);
  const std::int64_t tiles = ceil_div(n, c.tile);
  return {c, blocks, tiles, choose_tiles_per_slice(blocks, tiles, multiprocessors, c.tile)};
}

/// Predicted seconds-like cost: launch_cost x interactions per block-tile x
/// issue slots per interaction (14 plus the shared-memory load and loop
/// overhead spread over K targets, from the SASS of the Plummer kernel).
constexpr double plan_cost(const DirectFastPlan& p, int multiprocessors) {
  const double k = p.config.targets_per_thread;
  return launch_cost(p.blocks, p.tiles, p.per_slice, multiprocessors, p.config.tile) * p.config.tile * p.config.tile * k *
         (14.0 + 1.5 / k);
}

/// The compiled configuration (and its slicing) with the lowest plan_cost for n targets.
template <class Real>
constexpr DirectFastPlan choose_fast_plan(std::int64_t n, int multiprocessors) {
  DirectFastPlan best = plan_for(kFastConfigs<Real>[0], n, multiprocessors);
  for (const auto& c : kFastConfigs<Real>) {
    const DirectFastPlan p = plan_for(c, n, multiprocessors);
    if (plan_cost(p, multiprocessors) < plan_cost(best, multiprocessors)) best = p;
  }
  return best;
}

}  // namespace orrery::gravity::gpu
