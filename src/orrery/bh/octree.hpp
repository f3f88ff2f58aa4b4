#pragma once
// The Barnes-Hut octree: its parameters (tree_params.hpp), its node layout and the views the
// walks take (DESIGN §3).
//
// Nodes are stored in depth-first pre-order. Node i holds the sorted
// particles [first[i], first[i] + count[i]); its subtree is [i, next[i]), so
// a leaf is exactly a node with next[i] == i + 1, and its first child, if any,
// is i + 1. The tree is a pure function of the positions, the masses and the
// parameters: every backend builds these arrays with identical bits.
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "orrery/bh/morton.hpp"
#include "orrery/bh/tree_params.hpp"

namespace orrery::bh {

/// Second moment about the centre of mass, S_ab = sum m d_a d_b (d = x - com),
/// stored whole rather than traceless: the softened expansion needs its trace
/// (interactions.hpp, docs/adr/0005).
enum QuadIndex : int { kXX = 0, kXY, kXZ, kYY, kYZ, kZZ, kQuadComponents };

/// Non-owning view of a built tree; pointers are host or device memory alike.
/// Trivially copyable: kernels take it by value.
template <class Real>
struct OctreeView {
  std::int32_t num_nodes = 0;
  std::int64_t num_particles = 0;
  // Topology, [num_nodes].
  const std::uint64_t* key = nullptr;   // start key of the cell
  const std::int32_t* level = nullptr;  // 0 = root cube
  const std::int32_t* first = nullptr;  // first sorted particle
  const std::int32_t* count = nullptr;  // number of particles
  const std::int32_t* next = nullptr;   // first node after the subtree
  // Moments, [num_nodes].
  const Real* mass = nullptr;
  const Real* com_x = nullptr;
  const Real* com_y = nullptr;
  const Real* com_z = nullptr;
  const Real* crit2 = nullptr;  // accept the cell when |target - com|^2 > crit2 (see opening.hpp)
  const Real* quad = nullptr;   // [num_nodes * 6] (QuadIndex order) or null for monopole trees
  // Sources in sorted order, [num_particles].
  const Real* x = nullptr;
  const Real* y = nullptr;
  const Real* z = nullptr;
  const Real* m = nullptr;
  // Relative opening only (null otherwise), [num_nodes]: side * sqrt(mass /
  // tolerance); a target with scale s (walk.hpp) accepts the cell only when
  // also |target - com|^2 > crit_rel * s.
  const Real* crit_rel = nullptr;
};
static_assert(std::is_trivially_copyable_v<OctreeView<float>>);

/// A tree built on the host: the arrays behind an OctreeView, plus the
/// permutation from sorted order to the caller's order.
template <class Real>
struct Octree {
  Cube cube;
  TreeParams params;
  std::vector<std::uint64_t> key;
  std::vector<std::int32_t> level, first, count, next;
  std::vector<Real> mass, com_x, com_y, com_z, crit2, quad;
  std::vector<Real> crit_rel;              // relative opening only
  std::vector<Real> x, y, z, m;            // sources in sorted order
  std::vector<std::int32_t> order;         // order[sorted] = caller's index
  int depth = 0;                           // deepest level present

  std::int32_t num_nodes() const { return static_cast<std::int32_t>(key.size()); }
  OctreeView<Real> view() const {
    return {num_nodes(), static_cast<std::int64_t>(x.size()), key.data(), level.data(), first.data(),
            count.data(), next.data(), mass.data(), com_x.data(), com_y.data(), com_z.data(),
            crit2.data(), quad.empty() ? nullptr : quad.data(), x.data(), y.data(), z.data(), m.data(),
            crit_rel.empty() ? nullptr : crit_rel.data()};
  }
};

}  // namespace orrery::bh
