#pragma once
// Power-of-two time bins (GADGET-4's hierarchy, Springel et al. 2021 §4):
// bin k steps by dt_max / 2^k. Within one block step of dt_max, time is
// counted in ticks of dt_max / 2^deepest (deepest: the deepest bin
// allowed), so bin k's step is 2^(deepest - k) ticks and a step of bin k
// begins and ends only at multiples of it: the bins nest, and every bin
// ends together at the block step's end (a synchronisation point).
//
// Everything here decides which particles are active; it is integer
// arithmetic and exact power-of-two scaling, usable from host and device
// code (ORRERY_HDI) so the CPU and the GPU activate the same particles.
#include <cstdint>

#include "orrery/core/hd.hpp"

namespace orrery::integrate {

using TimeBin = std::int8_t;

/// The deepest bin a block step can hold: 2^deepest ticks fit an int64
/// with room to add a step to a tick.
inline constexpr int kMaxTimeBins = 61;

/// Ticks of bin k's step.
ORRERY_HDI std::int64_t bin_ticks(int bin, int deepest) { return std::int64_t{1} << (deepest - bin); }

/// Whether a step of bin k begins or ends at `tick` (0 <= tick <= 2^deepest).
ORRERY_HDI bool bin_ends_at(int bin, std::int64_t tick, int deepest) {
  return (tick & (bin_ticks(bin, deepest) - 1)) == 0;
}

/// The shallowest (longest-step) bin whose steps end at `tick`: where a
/// particle may move to a longer step (GADGET's rule: only where the old
/// and the new bin both end). 0 at the block step's ends.
ORRERY_HDI int shallowest_bin_ending_at(std::int64_t tick, int deepest) {
  if (tick == 0) return 0;
  int zeros = 0;
  while (((tick >> zeros) & 1) == 0) ++zeros;
  return deepest > zeros ? deepest - zeros : 0;
}

/// The bin a criterion's step `dt` asks for: the shallowest k with
/// dt_max / 2^k <= dt (0 when dt >= dt_max, including an infinite dt). A
/// result beyond `deepest` (or -1 for a dt that is not a number > 0) means
/// the step is below dt_min: the caller's error.
ORRERY_HDI int bin_of_step(double dt, double dt_max, int deepest) {
  if (!(dt > 0)) return -1;
  double step = dt_max;
  int bin = 0;
  // Halving is exact; the loop runs at most deepest + 1 times.
  while (step > dt && bin <= deepest) {
    step *= 0.5;
    ++bin;
  }
  return bin;
}

/// The bin a particle moves to at the end of its step of bin `old_bin`,
/// ending at `tick`, when its criterion asks for `wanted`: a shorter step
/// always; a longer one only as far as a bin that also ends at `tick`.
ORRERY_HDI int next_bin(int old_bin, int wanted, std::int64_t tick, int deepest) {
  if (wanted >= old_bin) return wanted;
  const int sync = shallowest_bin_ending_at(tick, deepest);
  return wanted > sync ? wanted : sync;
}

}  // namespace orrery::integrate
