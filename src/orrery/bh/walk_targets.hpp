#pragma once
// The targets of a walk, apart from the sources the tree is built over
// (DESIGN §3 "Targets are not always the sources"): every source (the
// all-particles solve), a subset of them (the active particles of a time
// bin; a rank's own particles), or points that are not sources at all.
//
// A target is walked exactly as walk_target walks a source: the same
// opening test at its position, with its sorted source index for the
// membership test (-1 for a point: it is no cell's particle and excludes no
// term). So a source's result as one target of a subset is bit-identical to
// its result when every source is a target, on every walk and backend.
// Host or device pointers alike; trivially copyable (kernels take it by value).
#include <cstdint>
#include <type_traits>

#include "orrery/bh/octree.hpp"

namespace orrery::bh {

template <class Real>
struct WalkTargets {
  std::int32_t count = 0;
  /// [count] the sorted source index of each target (a subset of the
  /// sources; ascending order keeps a group's walks alike), or null.
  const std::int32_t* source = nullptr;
  /// [count] positions of targets that are not sources (source null), or null.
  const Real* x = nullptr;
  const Real* y = nullptr;
  const Real* z = nullptr;

  /// The sorted source index of target k: source[k], -1 for a point, k
  /// itself when every source is a target.
  ORRERY_HDI std::int32_t self(std::int32_t k) const { return source != nullptr ? source[k] : (x != nullptr ? -1 : k); }
  /// The position of target k, whose self() is i, in the tree t.
  ORRERY_HDI void position(const OctreeView<Real>& t, std::int32_t k, std::int32_t i, Real& tx, Real& ty,
                           Real& tz) const {
    const bool point = x != nullptr;  // uniform over a walk: one kind of targets
    tx = point ? x[k] : t.x[i];
    ty = point ? y[k] : t.y[i];
    tz = point ? z[k] : t.z[i];
  }
};
static_assert(std::is_trivially_copyable_v<WalkTargets<float>>);

/// Every source of t, in sorted order: target k is sorted source k.
template <class Real>
WalkTargets<Real> every_source(const OctreeView<Real>& t) {
  return {static_cast<std::int32_t>(t.num_particles)};
}

}  // namespace orrery::bh
