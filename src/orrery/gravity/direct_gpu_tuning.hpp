#pragma once
// Launch geometry of the fast direct kernel: K targets per thread and Tile
// threads (= sources per shared-memory tile) per block. Larger K reads each
// source from shared memory once per K interactions but makes fewer blocks;
// the choice keeps enough blocks to fill every multiprocessor.
// Measured on the H200: docs/performance/gpu_direct.md.
#include <cstdint>

namespace orrery::gravity::gpu {

struct DirectFastConfig {
  int targets_per_thread;
  int tile;
  friend bool operator==(const DirectFastConfig&, const DirectFastConfig&) = default;
};

/// The configurations compiled into the library, best (largest K) first.
inline constexpr DirectFastConfig kDirectFastConfigs[] = {{4, 256}, {2, 256}, {1, 128}};

/// Double precision needs twice the registers per target: K = 4 would spill.
constexpr bool config_allowed(const DirectFastConfig& c, int real_bytes) {
  return real_bytes == 4 || c.targets_per_thread <= 2;
}

/// The first allowed configuration of kDirectFastConfigs that gives at least
/// `blocks_per_sm` blocks per multiprocessor for n targets; the last one otherwise.
constexpr DirectFastConfig choose_fast_config(std::int64_t n, int multiprocessors, int real_bytes,
                                              int blocks_per_sm = 2) {
  for (const auto& c : kDirectFastConfigs) {
    if (!config_allowed(c, real_bytes)) continue;
    const std::int64_t per_block = std::int64_t(c.targets_per_thread) * c.tile;
    if ((n + per_block - 1) / per_block >= std::int64_t(multiprocessors) * blocks_per_sm) return c;
  }
  return kDirectFastConfigs[std::size(kDirectFastConfigs) - 1];
}

}  // namespace orrery::gravity::gpu
