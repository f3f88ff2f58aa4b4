#pragma once
// The CPU direct-summation kernel: the field of all sources at one target.
//
// Vectorisation by explicit blocking, not by the compiler's choice: source j
// always goes to lane j % kLanes of the partial sums, each lane sums its
// sources in a fixed order (index order, except that the block holding the
// target and the partial last block come last), and the lanes are combined
// in a fixed order at the end. So a target's result depends only on the input, never on the thread
// count, the array alignment or how the compiler vectorises (contract 6).
// The arithmetic is xm:: (IEEE, explicit fma, no contraction): the same bits
// under any compiler honouring -ffp-contract=off.
#include <algorithm>
#include <cstdint>

#include "orrery/core/exact_math.hpp"
#include "orrery/core/math_mode.hpp"
#include "orrery/core/particles.hpp"

namespace orrery::gravity {

/// Lanes of the partial sums: two AVX2 registers, so that two independent
/// accumulation chains hide the fma latency.
template <class Real>
inline constexpr int kDirectLanes = 64 / static_cast<int>(sizeof(Real));

template <class Real>
struct TargetField {
  Real ax, ay, az;
  Real potential;  // 0 unless computed
};

template <class Real, bool WithPotential>
struct LaneSums {
  static constexpr int W = kDirectLanes<Real>;
  alignas(64) Real ax[W] = {};
  alignas(64) Real ay[W] = {};
  alignas(64) Real az[W] = {};
  alignas(64) Real phi[W] = {};

  /// Adds source j (valid = it exists and is not the target) to lane l.
  /// Invalid sources contribute exactly zero, selected after the arithmetic
  /// so that a non-finite factor (coincident points without softening) never
  /// reaches the sums.
  template <class Softening>
  ORRERY_HD void add(int l, Real dx, Real dy, Real dz, Real m, bool valid, const Softening& soft) {
    const auto ff = soft.template factors<MathMode::exact>(xm::norm2(dx, dy, dz));
    const Real mf = valid ? xm::mul(m, ff.f) : Real(0);
    ax[l] = xm::fma(mf, dx, ax[l]);
    ay[l] = xm::fma(mf, dy, ay[l]);
    az[l] = xm::fma(mf, dz, az[l]);
    if constexpr (WithPotential) phi[l] = xm::add(phi[l], valid ? xm::mul(m, ff.phi) : Real(0));
  }

  ORRERY_HD TargetField<Real> combine() const {
    TargetField<Real> f{0, 0, 0, 0};
    for (int l = 0; l < W; ++l) {
      f.ax = xm::add(f.ax, ax[l]);
      f.ay = xm::add(f.ay, ay[l]);
      f.az = xm::add(f.az, az[l]);
      f.potential = xm::sub(f.potential, phi[l]);
    }
    return f;
  }
};

/// The softened field at source i of all sources j != i.
template <class Real, class Softening, bool WithPotential>
TargetField<Real> direct_field_at(std::int64_t i, const SourcesView<Real>& s, const Softening& soft) {
  constexpr int W = kDirectLanes<Real>;
  const Real xi = s.x[i], yi = s.y[i], zi = s.z[i];
  const Real* __restrict x = s.x;
  const Real* __restrict y = s.y;
  const Real* __restrict z = s.z;
  const Real* __restrict m = s.mass;
  LaneSums<Real, WithPotential> sums;
  const std::int64_t full = s.count - s.count % W;
  const std::int64_t own_block = i - i % W;
  // Full blocks other than the target's own: no lane needs a mask.
  for (std::int64_t j0 = 0; j0 < full; j0 += W) {
    // Skipping one block in N/W costs nothing and keeps the mask out of the hot loop.
    if (j0 == own_block) continue;
#pragma omp simd
    for (int l = 0; l < W; ++l) {
      const std::int64_t j = j0 + l;
      sums.add(l, xm::sub(x[j], xi), xm::sub(y[j], yi), xm::sub(z[j], zi), m[j], true, soft);
    }
  }
  // Then the target's own block and the partial last block, with masks:
  // the target itself and sources past the end (clamped) contribute zero.
  const std::int64_t last = s.count - 1;
  const auto masked_block = [&](std::int64_t j0) {
    for (int l = 0; l < W; ++l) {
      const std::int64_t j = std::min<std::int64_t>(j0 + l, last);
      sums.add(l, xm::sub(x[j], xi), xm::sub(y[j], yi), xm::sub(z[j], zi), m[j], (j0 + l <= last) & (j != i), soft);
    }
  };
  if (own_block < full) masked_block(own_block);
  if (full < s.count) masked_block(full);
  return sums.combine();
}

}  // namespace orrery::gravity
