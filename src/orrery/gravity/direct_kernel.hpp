#pragma once
// The CPU direct-summation kernel: the field of all sources at one target.
//
// Vectorisation by explicit blocking, not by the compiler's choice: source j
// always goes to lane j % kLanes of the partial sums, each lane sums its
// sources in index order, and the lanes are combined in a fixed order at the
// end. So a target's result depends only on the input, never on the thread
// count, the array alignment, or how the compiler vectorises
// (contract 6); the GPU's exact mode (direct_gpu_exact.cu) follows the same
// order and gets the same bits.
// The arithmetic is xm:: (IEEE, explicit fma, no contraction): the same bits
// under any compiler honouring -ffp-contract=off.
// `soft` is the softening policy, or with a softening per type the target's
// TargetSoftenings (core/pair_softening.hpp), looked up per source.
#include <algorithm>
#include <cstdint>

#include "orrery/core/exact_math.hpp"
#include "orrery/core/math_mode.hpp"
#include "orrery/core/pair_softening.hpp"
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

/// One target's view of the sources: its position and the blocks of W sources.
template <class Real>
struct DirectTarget {
  std::int64_t i;
  Real xi, yi, zi;

  DirectTarget(std::int64_t index, const SourcesView<Real>& s) : i(index), xi(s.x[index]), yi(s.y[index]), zi(s.z[index]) {}
  /// A point that is no source (index -1: it excludes no source).
  DirectTarget(Real x, Real y, Real z) : i(-1), xi(x), yi(y), zi(z) {}

  /// Adds the block of W sources starting at j0 (a multiple of W) to the
  /// lanes, masking the target itself and sources past the end (clamped).
  template <bool WithPotential, class Softening>
  void add_masked_block(LaneSums<Real, WithPotential>& sums, std::int64_t j0, const SourcesView<Real>& s,
                        const Softening& soft) const {
    const std::int64_t last = s.count - 1;
    for (int l = 0; l < kDirectLanes<Real>; ++l) {
      const std::int64_t j = std::min<std::int64_t>(j0 + l, last);
      sums.add(l, xm::sub(s.x[j], xi), xm::sub(s.y[j], yi), xm::sub(s.z[j], zi), s.mass[j], (j0 + l <= last) & (j != i),
               source_softening(soft, j));
    }
  }

  /// Adds the full blocks in [j_begin, j_end) (multiples of W) in index
  /// order. Only the block holding the target needs a mask: the range is
  /// split around it so the hot loop has neither mask nor branch.
  template <bool WithPotential, class Softening>
  void add_blocks(LaneSums<Real, WithPotential>& sums, std::int64_t j_begin, std::int64_t j_end,
                  const SourcesView<Real>& s, const Softening& soft) const {
    constexpr int W = kDirectLanes<Real>;
    const std::int64_t own_block = i - i % W;
    if (own_block < j_begin || own_block >= j_end) {
      add_unmasked_blocks(sums, j_begin, j_end, s, soft);
      return;
    }
    add_unmasked_blocks(sums, j_begin, own_block, s, soft);
    add_masked_block(sums, own_block, s, soft);
    add_unmasked_blocks(sums, own_block + W, j_end, s, soft);
  }

  /// The hot loop: full blocks in [j_begin, j_end) not holding the target.
  template <bool WithPotential, class Softening>
  void add_unmasked_blocks(LaneSums<Real, WithPotential>& sums, std::int64_t j_begin, std::int64_t j_end,
                           const SourcesView<Real>& s, const Softening& soft) const {
    constexpr int W = kDirectLanes<Real>;
    const Real* __restrict x = s.x;
    const Real* __restrict y = s.y;
    const Real* __restrict z = s.z;
    const Real* __restrict m = s.mass;
    for (std::int64_t j0 = j_begin; j0 < j_end; j0 += W) {
#pragma omp simd
      for (int l = 0; l < W; ++l) {
        const std::int64_t j = j0 + l;
        sums.add(l, xm::sub(x[j], xi), xm::sub(y[j], yi), xm::sub(z[j], zi), m[j], true, source_softening(soft, j));
      }
    }
  }
};

/// The sources in whole blocks of W; the rest form the masked tail block.
template <class Real>
std::int64_t full_blocks_end(const SourcesView<Real>& s) {
  return s.count - s.count % kDirectLanes<Real>;
}

/// The softened field at target t (a source, which it excludes, or a
/// point) of all sources: every lane in index order.
template <class Real, class Softening, bool WithPotential>
TargetField<Real> direct_field_at(const DirectTarget<Real>& t, const SourcesView<Real>& s, const Softening& soft) {
  LaneSums<Real, WithPotential> sums;
  const std::int64_t full = full_blocks_end(s);
  t.add_blocks(sums, 0, full, s, soft);
  if (full < s.count) t.add_masked_block(sums, full, s, soft);
  return sums.combine();
}

/// The softened field at source i of all sources j != i.
template <class Real, class Softening, bool WithPotential>
TargetField<Real> direct_field_at(std::int64_t i, const SourcesView<Real>& s, const Softening& soft) {
  return direct_field_at<Real, Softening, WithPotential>(DirectTarget<Real>(i, s), s, soft);
}

}  // namespace orrery::gravity
